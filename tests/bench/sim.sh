#!/bin/sh
# The simulation suite: kbisect's performance bisection against a plain
# bisection with k = 1 and k = 5 runs per commit, on generated histories of
# 200 commits with merges.  Prints, per scenario, the rate of exact answers,
# of confident wrong culprits and of no-regression verdicts, and the mean
# number of runs and of boots.  The scenarios after the first nine have
# kernel-shaped noise: a machine whose speed changes during the session,
# boots that differ more than runs do, a layout offset per commit.  With
# 100 trials the whole took 14 minutes here beside other work, most of it
# on the pool;
# a substring selects scenarios (e.g. "boot spread", "slower", "layout").
# Then flaky failures (pass/fail tests that fail only some of the time):
# kbisect's --flaky beside a plain bisection and ktest's BISECT_TRIES=5;
# "flaky" runs only those.  SIM_SEED=N draws other histories and runs
# than the tables of the README (seeds N+1 on).
#
#   sh tests/bench/sim.sh [TRIALS] [SCENARIO-SUBSTRING]
set -e
cd "$(dirname "$0")/../.."
make -s tests/sim/bench-sim
exec tests/sim/bench-sim "${1:-100}" ${2:+"$2"}
