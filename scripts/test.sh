#!/usr/bin/env bash
# Builds esdirk from scratch and runs the whole test suite (unit tests, examples, install
# test) through CTest. Usage: ./scripts/test.sh [extra CMake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
# SUNDIALS is needed only by the benchmark's quick mode, which the suite runs so the
# comparison never rots; the library itself never links it.
ESDIRK_WITH_SUNDIALS=1 ./scripts/install-deps.sh
build=build/test
rm -rf "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_TESTS=ON \
      -DESDIRK_BUILD_EXAMPLES=ON -DESDIRK_BUILD_FORTRAN=ON -DESDIRK_BUILD_BENCH=ON "$@"
cmake --build "$build" -j "$(nproc)"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
