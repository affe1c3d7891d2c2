#!/usr/bin/env bash
# Builds esdirk from scratch and runs the Dow Chemical batch reactor benchmark, printing its
# results and statistics (CSV and PNG files land in build/dow/output).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build=build/dow
rm -rf "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_TESTS=OFF -DESDIRK_BUILD_EXAMPLES=ON
cmake --build "$build" -j "$(nproc)" --target dow
mkdir -p "$build/output"
# dow draws its plots itself (states and scaled sensitivities over a log time axis) with the
# Python that has matplotlib (Debian's, installed above), found when it was configured.
"$build/examples/dow/dow" --output "$build/output" "$@"
