#!/usr/bin/env bash
# Instruction counts (callgrind) of one gradient per solver and rtol, the figure the load of a
# shared machine does not disturb: writes solver,rtol,instructions lines for plot_adjoint.py.
#
#     bench/sundials/count_adjoint_instructions.sh BUILD_DIR > bench/sundials/results/adjoint_instructions.csv
set -euo pipefail
bench="${1:?usage: $0 BUILD_DIR}/bench/sundials/bench_adjoint_sundials"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "solver,rtol,instructions"
for rtol in 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8 1e-9 1e-10; do
  for run in "esdirk esdirk 1" "IDAS IDAS 1" "IDAS_rtolB=rtol/100 IDAS 0.01"; do
    set -- $run
    count=$(valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=single_gradient \
              "$bench" --single "$2" "$rtol" "$3" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo "${1//_/ },$rtol,$count"
  done
done
