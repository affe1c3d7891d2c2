#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan + libFuzzer coverage
# over the whole library) and runs each for a while on a copy of the seed corpus.
#   ./scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 10 s, all targets)
#   ESDIRK_FUZZ_OPT=-O1 ESDIRK_FUZZ_DEBUG=-g1 ./scripts/fuzz.sh 10
#       (the CI smoke: -O1 halves the compile time of -O2, line tables only save more)
# Long runs: ./scripts/fuzz.sh 3600; findings (crash-*, leak-*, timeout-*, oom-*) are
# written to build/fuzz/findings/, the grown corpus stays in build/fuzz/corpus/ (see
# doc/hardening.md). Exits non-zero on the first finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_model_text fuzz_capi_report fuzz_capi_sigma fuzz_capi_setup)
ESDIRK_WITH_CLANG=1 ./scripts/install-deps.sh
build=build/fuzz
opt=${ESDIRK_FUZZ_OPT:--O2}
debug=${ESDIRK_FUZZ_DEBUG:--g}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$opt $debug -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt $debug -DNDEBUG" \
  -DESDIRK_BUILD_FUZZ=ON -DESDIRK_SANITIZE=ON -DESDIRK_BUILD_TESTS=ON \
  -DESDIRK_BUILD_EXAMPLES=OFF -DESDIRK_BUILD_FORTRAN=OFF -DESDIRK_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
mkdir -p "$build/findings"
for target in "${targets[@]}"; do
  case $target in
    fuzz_capi_sigma) seeds=(tests/fuzz/corpus/sigma) dict=() ;;
    fuzz_capi_setup) seeds=(tests/fuzz/corpus/setup) dict=() ;;
    *) seeds=(tests/structural/models tests/fuzz/corpus/model) dict=(-dict=tests/fuzz/model.dict) ;;
  esac
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  # A time or memory limit hit by one input is a finding too (issue 17: linear-ish cost).
  log="$build/findings/$target.log"
  status=0
  "$build/tests/fuzz/$target" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=1024 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$target-" "$corpus" "${seeds[@]}" > "$log" 2>&1 || status=$?
  echo "$target: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') executions," \
       "peak RSS $(grep -E '^stat::peak_rss_mb' "$log" | awk '{print $2}') MB"
  if ((status != 0)) || compgen -G "$build/findings/$target-*" > /dev/null; then
    tail -40 "$log" >&2
    echo "fuzz: $target failed (status $status); see $build/findings/" >&2
    exit 1
  fi
done
