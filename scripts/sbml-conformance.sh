#!/usr/bin/env bash
# Runs the whole SBML Test Suite (the semantic cases) through esdirk-sbml-suite and regenerates
# doc/sbml-conformance.md from the run (doc/sbml-conformance.md says how to read it).
#   ./scripts/sbml-conformance.sh [--subset] [BUILD_DIR]        (BUILD_DIR: default build/rel)
#     --subset  also choose the CI subset again (tests/sbml_tools/conformance_subset.txt,
#               with its floor) from this run
# The cases: $ESDIRK_SBML_TEST_SUITE (a folder holding cases/NNNNN/), by default
# ../shared/sbml-test-suite beside the source tree. Threads: $ESDIRK_SBML_JOBS (default: nproc).
# The run's output and its per-case report stay in BUILD_DIR/sbml-conformance/. Exits non-zero
# when a case fails (after writing the page).
set -euo pipefail
cd "$(dirname "$0")/.."
subset=0
if [[ ${1:-} == --subset ]]; then
  subset=1
  shift
fi
build=${1:-build/rel}
suite=${ESDIRK_SBML_TEST_SUITE:-../shared/sbml-test-suite}
cases=$suite/cases
if [[ ! -d $cases ]]; then
  echo "sbml-conformance: no SBML Test Suite cases in $cases (set ESDIRK_SBML_TEST_SUITE)" >&2
  exit 2
fi
if [[ ! -f $build/CMakeCache.txt ]]; then
  echo "sbml-conformance: $build is not a configured build folder; configure it first, e.g." >&2
  echo "  cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release" >&2
  exit 2
fi
cmake --build "$build" -j "${ESDIRK_BUILD_JOBS:-2}" --target esdirk-sbml-suite
# The table is written by the Python the build's CMake found (never the python3 first on PATH);
# the system's when the build found none.
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
[[ -x ${python:-} ]] || python=/usr/bin/python3
runner=$build/sbml/tools/esdirk-sbml-suite
out=$build/sbml-conformance
mkdir -p "$out"
jobs=${ESDIRK_SBML_JOBS:-$(nproc)}
export OPENBLAS_NUM_THREADS=1
start=$SECONDS
status=0
"$runner" --jobs "$jobs" --report "$out/report.tsv" "$cases" > "$out/output.txt" || status=$?
seconds=$((SECONDS - start))
tail -1 "$out/output.txt"
echo "sbml-conformance: $seconds s wall on $jobs threads; every line in $out/output.txt"
"$python" scripts/sbml_conformance.py table "$out/report.tsv" \
  --command "scripts/sbml-conformance.sh ($jobs threads, $seconds s wall, $(git rev-parse --short HEAD 2>/dev/null || echo unknown))" \
  > doc/sbml-conformance.md
echo "sbml-conformance: wrote doc/sbml-conformance.md"
if ((subset)); then
  "$python" scripts/sbml_conformance.py subset "$out/report.tsv" > tests/sbml_tools/conformance_subset.txt
  echo "sbml-conformance: wrote tests/sbml_tools/conformance_subset.txt ($(grep -c '^[0-9]' tests/sbml_tools/conformance_subset.txt) cases, $(head -1 tests/sbml_tools/conformance_subset.txt))"
fi
# A status of 1 means some case failed; anything else is the runner's own failure.
exit "$status"
