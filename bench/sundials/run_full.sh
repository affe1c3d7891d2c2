#!/usr/bin/env bash
# Regenerates the SUNDIALS comparison: builds bench_sundials, runs the full benchmark (rtol 1e-3
# .. 1e-10, median wall times) and writes results/results.csv, results/tables.md and the
# work-precision diagrams results/*.png, and the adjoint comparison (results/adjoint*.{csv,txt},
# results/dow_adjoint.png; the instruction counts need valgrind). Usage:
# bench/sundials/run_full.sh [build dir]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target bench_sundials bench_adjoint_sundials
mkdir -p "$here/results"
"$build/bench/sundials/bench_sundials" --full --csv "$here/results/results.csv" | tee "$here/results/run.log"
/usr/bin/python3 "$here/plot.py" "$here/results/results.csv" "$here/results"
"$build/bench/sundials/bench_adjoint_sundials" --full --csv "$here/results/adjoint.csv" --min-time 0.5 \
  | tee "$here/results/adjoint.txt"
adjoint_plot=("$here/results/adjoint.csv")
if command -v valgrind >/dev/null; then
  "$here/count_adjoint_instructions.sh" "$build" > "$here/results/adjoint_instructions.csv"
  adjoint_plot+=("$here/results/adjoint_instructions.csv")
fi
/usr/bin/python3 "$here/plot_adjoint.py" "${adjoint_plot[@]}" "$here/results/dow_adjoint.png" \
  | tee "$here/results/adjoint_ratios.txt"
echo "wrote $here/results/tables.md and $here/results/*.png"
