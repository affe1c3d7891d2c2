#!/usr/bin/env bash
# Redraws the pictures of doc/tutorial.md: builds and runs the tutorial's programs (the CTest
# tests doc_tutorial_*, which write CSV files) in a build folder, then plots the CSV files into
# doc/ with Debian's matplotlib.
#     ./scripts/tutorial-pictures.sh [BUILD_DIR]     (default build/tutorial)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/tutorial}
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_TESTS=ON \
    -DESDIRK_BUILD_EXAMPLES=OFF > /dev/null
fi
targets=$(cd "$build" && ctest -N -L docs | sed -n 's/^ *Test *#[0-9]*: \(doc_tutorial_[0-9]*\)$/\1/p')
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $targets
(cd "$build" && ctest -L docs -R doc_tutorial --output-on-failure)
/usr/bin/python3 doc/tutorial_pictures.py "$build/tests/docs/output" doc
