#!/usr/bin/env bash
# Builds esdirk from scratch and runs the whole test suite (unit tests, examples, install
# test) through CTest. Usage: ./scripts/test.sh [extra CMake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build=build/test
rm -rf "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_TESTS=ON \
      -DESDIRK_BUILD_EXAMPLES=ON -DESDIRK_BUILD_FORTRAN=ON "$@"
cmake --build "$build" -j "$(nproc)"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
