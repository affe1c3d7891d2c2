#!/usr/bin/env bash
# Builds esdirk from scratch and runs the whole test suite (unit tests, examples, install
# test) through CTest, then the hardening stages of doc/hardening.md:
#   release  GCC Release: every test, example and the benchmark's quick mode
#   asan     GCC with AddressSanitizer + UndefinedBehaviorSanitizer: unit, C and Fortran tests
#   tsan     GCC with ThreadSanitizer: integrators in several threads (tests/threads)
#   clang    clang Release: the library and its tests
#   fuzz     clang + libFuzzer: a short run of each fuzz target (scripts/fuzz.sh)
# Usage: ./scripts/test.sh [extra CMake arguments for the release stage]
#        ESDIRK_CI_STAGES="release asan" ./scripts/test.sh    (a subset; default: all)
# Every stage runs even when an earlier one failed; the wall time and result of each is
# printed at the end (also in build/ci-times.txt) and the exit status is 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# SUNDIALS is needed only by the benchmark's quick mode, which the suite runs so the
# comparison never rots; the library itself never links it. clang for its own stages.
ESDIRK_WITH_SUNDIALS=1 ESDIRK_WITH_CLANG=1 ./scripts/install-deps.sh
jobs=$(nproc)
stages=${ESDIRK_CI_STAGES:-release asan tsan clang fuzz}
extra_release_args=("$@")

# configure BUILD_DIR CMAKE_ARGS...: a fresh build folder.
configure() {
  local build=$1
  shift
  rm -rf "$build"
  cmake -S . -B "$build" "$@" > /dev/null
}

release() {
  configure build/test -DCMAKE_BUILD_TYPE=Release -DESDIRK_BUILD_TESTS=ON \
    -DESDIRK_BUILD_EXAMPLES=ON -DESDIRK_BUILD_FORTRAN=ON -DESDIRK_BUILD_BENCH=ON \
    "${extra_release_args[@]}"
  cmake --build build/test -j "$jobs"
  (cd build/test && ctest --output-on-failure -j "$jobs")
}

# The test programs, not the examples or the install test: those run in the release stage,
# and an instrumented library cannot be linked by the install test's plain consumer.
sanitized_tests() {
  local build=$1
  shift
  configure "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DESDIRK_BUILD_TESTS=ON \
    -DESDIRK_BUILD_EXAMPLES=OFF -DESDIRK_BUILD_BENCH=OFF "$@"
  cmake --build "$build" -j "$jobs"
  (cd "$build" && ctest --output-on-failure -j "$jobs" -E '^install')
}

asan() {
  # Leaks are errors too.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    sanitized_tests build/asan -DESDIRK_SANITIZE=ON -DESDIRK_BUILD_FORTRAN=ON
}

tsan() {
  configure build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DESDIRK_SANITIZE=thread \
    -DESDIRK_BUILD_TESTS=ON -DESDIRK_BUILD_EXAMPLES=OFF -DESDIRK_BUILD_BENCH=OFF
  cmake --build build/tsan -j "$jobs" --target test_threads
  TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/threads/test_threads
}

clang_build() {
  CC=clang CXX=clang++ sanitized_tests build/clang -DCMAKE_BUILD_TYPE=Release \
    -DESDIRK_BUILD_FORTRAN=OFF
}

fuzz() { ./scripts/fuzz.sh 10; }

declare -A run=([release]=release [asan]=asan [tsan]=tsan [clang]=clang_build [fuzz]=fuzz)
times=()
failed=0
all_start=$(date +%s)
for stage in $stages; do
  [[ -n "${run[$stage]:-}" ]] || { echo "unknown stage $stage" >&2; exit 2; }
  echo "==== stage $stage"
  start=$(date +%s)
  # A subshell of its own, so that 'set -e' stops the stage at its first failing command.
  set +e
  (set -e; "${run[$stage]}")
  status=$?
  set -e
  result=passed
  ((status == 0)) || { result=FAILED; failed=1; }
  times+=("$(printf '%-8s %4d s  %s' "$stage" $(($(date +%s) - start)) "$result")")
done
times+=("$(printf '%-8s %4d s' total $(($(date +%s) - all_start)))")
mkdir -p build
printf '%s\n' "CI wall time per stage:" "${times[@]}" | tee build/ci-times.txt
exit "$failed"
