#!/usr/bin/env bash
# Builds esdirk from scratch and runs the whole test suite (unit tests, examples, install
# test) through CTest, then the hardening stages of doc/hardening.md:
#   release  GCC Release: every test, example and the benchmark's quick mode, with the
#            optional Ipopt and MPI components required (ESDIRK_REQUIRE_SOLVERS) and the
#            Python package and its pytest suite (ESDIRK_REQUIRE_PYTHON; never in the
#            sanitizer stages, whose runtimes the interpreter does not load)
#   asan     GCC -O1 with AddressSanitizer + UndefinedBehaviorSanitizer and assertions: the
#            unit, C, Fortran and binding tests
#   tsan     GCC -O1 with ThreadSanitizer: integrators in several threads (tests/threads), the
#            multiple-shooting thread pool (a refused thread start included) and its C API
#            (re-entrant calls from four pool threads included)
#   clang    clang -O1 with ASan + UBSan + libFuzzer coverage (scripts/fuzz.sh's build): a 5 s
#            run of each fuzz target, then, in the same build, the tests of the surfaces the
#            fuzz targets attack (C API, model text, SBML text)
# Usage: ./scripts/test.sh [extra CMake arguments for the release stage]
#        ESDIRK_CI_STAGES="release asan" ./scripts/test.sh    (a subset; default: all)
# Every stage runs even when an earlier one failed; the wall time, the CPU time (user + system
# of everything the stage ran: a measure that does not depend on other load of the machine)
# and the result of each are printed at the end (also in build/ci-times.txt); the exit status
# is 1 if any stage failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# SUNDIALS is needed only by the benchmark's quick mode, which the suite runs so the
# comparison never rots; the library itself never links it. clang for its own stages.
ESDIRK_WITH_SUNDIALS=1 ESDIRK_WITH_CLANG=1 ESDIRK_WITH_CCACHE=1 ./scripts/install-deps.sh
jobs=$(nproc)
# Every compile goes through ccache (CMake takes the launchers from the environment, the fuzz
# build's included), keyed on paths relative to this clone: the first run on a machine compiles
# everything, a later run of a tree that changed little compiles only what changed. The build
# folders are still made afresh. The sloppiness lets ccache cache the files that use the tests'
# precompiled header (tests/CMakeLists.txt).
export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
export CCACHE_BASEDIR=$PWD CCACHE_SLOPPINESS=pch_defines,time_macros
# The sanitizer and fuzz builds compile with -g1, and for a compile with debug information
# ccache hashes the working directory too (the build folder's absolute path goes into the
# objects), so a clone at another path missed every one of those objects and compiled them all
# again (the release stage, without -g, hit). Without it the debug information may name
# the build folder of the clone that filled the cache; the file:line frames of a sanitizer
# report stay right (their paths are relative to CCACHE_BASEDIR).
export CCACHE_NOHASHDIR=1
# One OpenBLAS thread per test: CTest runs $jobs tests at once, and OpenBLAS's own threads on
# the small dense matrices of an integrator only spin (doc/linear-solvers-guide.md).
export OPENBLAS_NUM_THREADS=1
stages=${ESDIRK_CI_STAGES:-release asan tsan clang}
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
    -DESDIRK_REQUIRE_SOLVERS=ON -DESDIRK_REQUIRE_PYTHON=ON \
    "${extra_release_args[@]}"
  cmake --build build/test -j "$jobs"
  (cd build/test && ctest --output-on-failure -j "$jobs")
}

# The tests only run in the sanitizer builds: the examples and the benchmark run in the
# release stage, and the install test's plain consumer cannot link an instrumented library.
run_tests() { (cd "$1" && ctest --output-on-failure -j "$jobs" -E '^install'); }

# Sanitizer builds at -O1 with assertions: half the compile time of -O2, and the tests are
# short either way.
# -g1: line tables only (sanitizer reports keep their file:line frames). Full -g made GCC's
# sanitized compiles 2.5x slower (variable tracking), most of the sanitizer stages' time.
debug_o1=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1"
          "-DCMAKE_Fortran_FLAGS_DEBUG=-O1 -g1")

asan() {
  configure build/asan "${debug_o1[@]}" -DESDIRK_SANITIZE=ON -DESDIRK_BUILD_TESTS=ON \
    -DESDIRK_BUILD_EXAMPLES=OFF -DESDIRK_BUILD_BENCH=OFF -DESDIRK_BUILD_FORTRAN=ON
  cmake --build build/asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_tests build/asan
}

tsan() {
  configure build/tsan "${debug_o1[@]}" -DESDIRK_SANITIZE=thread -DESDIRK_BUILD_TESTS=ON \
    -DESDIRK_BUILD_EXAMPLES=OFF -DESDIRK_BUILD_BENCH=OFF
  cmake --build build/tsan -j "$jobs" --target test_threads test_multishoot test_capi_multishoot
  TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/threads/test_threads
  # The multiple-shooting thread pool and interval evaluator (the estimation suite is too slow
  # under TSan and runs the same pool).
  TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/multishoot/test_multishoot --run_test=thread_pool,intervals
  TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/capi/test_capi_multishoot
}

# One clang build serves the fuzz targets and the tests (built after the fuzz run, in the same
# folder and configuration), so the library is compiled by clang once. Only the tests of the
# surfaces that take hostile input run here: the asan stage already runs every test under ASan +
# UBSan, and building the rest again with clang cost a third of the CI's time.
# The command-line tools are built by name: their tests run them through CMake scripts, which
# a folder's build does not see as dependencies.
clang_test_dirs=(tests/capi tests/structural tests/sbml_tools)
clang_stage() {
  rm -rf build/fuzz
  ESDIRK_FUZZ_OPT=-O1 ESDIRK_FUZZ_DEBUG=-g1 ./scripts/fuzz.sh 5
  cmake --build build/fuzz -j "$jobs" --target esdirk-structural esdirk-sbml-suite
  local dir
  for dir in "${clang_test_dirs[@]}"; do
    cmake --build "build/fuzz/$dir" -j "$jobs"
    UBSAN_OPTIONS=print_stacktrace=1 run_tests "build/fuzz/$dir"
  done
}

declare -A run=([release]=release [asan]=asan [tsan]=tsan [clang]=clang_stage)
times=()
failed=0
all_start=$(date +%s)
for stage in $stages; do
  [[ -n "${run[$stage]:-}" ]] || { echo "unknown stage $stage" >&2; exit 2; }
  echo "==== stage $stage"
  start=$(date +%s)
  # A subshell of its own, so that 'set -e' stops the stage at its first failing command;
  # 'times' reports the CPU time of its children when it ends.
  cpu_file=$(mktemp)
  set +e
  (trap 'times > "$cpu_file"' EXIT; set -e; "${run[$stage]}")
  status=$?
  set -e
  cpu=$(tail -1 "$cpu_file" | tr 'ms' '  ' | awk '{printf "%d", 60 * $1 + $2 + 60 * $3 + $4}')
  rm -f "$cpu_file"
  result=passed
  ((status == 0)) || { result=FAILED; failed=1; }
  times+=("$(printf '%-8s %5d s wall %6d s CPU  %s' "$stage" $(($(date +%s) - start)) "$cpu" \
    "$result")")
done
times+=("$(printf '%-8s %5d s wall' total $(($(date +%s) - all_start)))")
mkdir -p build
printf '%s\n' "CI wall time per stage:" "${times[@]}" | tee build/ci-times.txt
exit "$failed"
