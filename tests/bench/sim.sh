#!/bin/sh
# The simulation suite: kbisect's performance bisection against a plain
# bisection with k = 1 and k = 5 runs per commit, on generated histories of
# 200 commits with merges.  Prints, per scenario, the rate of exact answers,
# of confident wrong culprits and the mean number of runs.
#
#   sh tests/bench/sim.sh [TRIALS] [SCENARIO-SUBSTRING]
set -e
cd "$(dirname "$0")/../.."
make -s tests/sim/bench-sim
exec tests/sim/bench-sim "${1:-100}" ${2:+"$2"}
