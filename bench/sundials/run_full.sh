#!/usr/bin/env bash
# Regenerates the SUNDIALS comparison: builds bench_sundials, runs the full benchmark (rtol 1e-3
# .. 1e-10, median wall times) and writes results/results.csv, results/tables.md and the
# work-precision diagrams results/*.png. Usage: bench/sundials/run_full.sh [build dir]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target bench_sundials
mkdir -p "$here/results"
"$build/bench/sundials/bench_sundials" --full --csv "$here/results/results.csv" | tee "$here/results/run.log"
/usr/bin/python3 "$here/plot.py" "$here/results/results.csv" "$here/results"
echo "wrote $here/results/tables.md and $here/results/*.png"
