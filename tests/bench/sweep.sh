#!/bin/sh
# Scenarios drawn at random (tests/sim/bench-sweep.c): ranges of 1-500
# commits, steps of 2-10% or none, every noise model, boot spread, layout
# offsets, speed changes and pools, each drawn apart from the others.
# Prints each scenario's exact and wrong culprits, the seed of every wrong
# one (to run again), and the totals.  SEED draws other scenarios.  100
# scenarios of 40 trials took 4 minutes here.
#
#   sh tests/bench/sweep.sh [SCENARIOS] [TRIALS] [SEED]
set -e
cd "$(dirname "$0")/../.."
make -s tests/sim/bench-sweep
exec tests/sim/bench-sweep "${1:-100}" "${2:-40}" "${3:-1}"
