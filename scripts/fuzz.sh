#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan + libFuzzer coverage
# over the whole library) and runs each on a copy of its seed corpus.
#   ./scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 10 s, all targets)
#   ESDIRK_FUZZ_OPT=-O1 ESDIRK_FUZZ_DEBUG=-g1 ./scripts/fuzz.sh 10
#       (the CI smoke: -O1 halves the compile time of -O2, line tables only save more)
# The long run (doc/hardening.md, "Long runs"): run every target, one after the other on one
# core, until its executions summed over all runs reach EXECUTIONS; stop it at any time and
# run the same command again to continue where it stopped:
#   ESDIRK_FUZZ_BUILD=build/fuzz-long nice -n 19 ./scripts/fuzz.sh --until 10000000 [TARGET...]
# (a folder of its own: CI's clang stage starts build/fuzz afresh). The targets take turns in
# runs of ESDIRK_FUZZ_CHUNK seconds (default 600). Each run's executions are added to
# <build>/totals.tsv (target, executions, seconds, coverage, corpus size, date); the grown corpus stays in <build>/corpus/<target>/, findings
# (crash-*, leak-*, timeout-*, oom-*, slow-unit-*) and logs go to <build>/findings/. Exits
# non-zero on the first finding.
set -euo pipefail
cd "$(dirname "$0")/.."
until=0
if [[ ${1:-} == --until ]]; then
  until=$2
  shift 2
  seconds=${ESDIRK_FUZZ_CHUNK:-600}  # one chunk of a long run
else
  seconds=${1:-10}
  shift || true
fi
targets=("$@")
all_targets=(fuzz_model_text fuzz_capi_report fuzz_capi_sigma fuzz_capi_setup fuzz_capi_hybrid
             fuzz_capi_multishoot fuzz_capi_options fuzz_measurements fuzz_sbml_import)
((${#targets[@]})) || targets=("${all_targets[@]}")
ESDIRK_WITH_CLANG=1 ./scripts/install-deps.sh
build=${ESDIRK_FUZZ_BUILD:-build/fuzz}
opt=${ESDIRK_FUZZ_OPT:--O2}
debug=${ESDIRK_FUZZ_DEBUG:--g}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$opt $debug -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt $debug -DNDEBUG" \
  -DESDIRK_BUILD_FUZZ=ON -DESDIRK_SANITIZE=ON -DESDIRK_BUILD_TESTS=ON \
  -DESDIRK_BUILD_EXAMPLES=OFF -DESDIRK_BUILD_FORTRAN=OFF -DESDIRK_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" -j "${ESDIRK_FUZZ_JOBS:-$(nproc)}" --target "${targets[@]}"
mkdir -p "$build/findings"
totals="$build/totals.tsv"
[[ -f $totals ]] || printf 'target\texecutions\tseconds\tcoverage\tcorpus\tdate\n' > "$totals"

# Executions of a target summed over the runs recorded in totals.tsv.
executed() { awk -F'\t' -v t="$1" '$1 == t { s += $2 } END { printf "%d", s }' "$totals"; }

# The SBML importer's seeds beyond its own: small models of the SBML Test Suite (test data beside
# the source tree, $ESDIRK_SBML_TEST_SUITE or ../shared/sbml-test-suite), one per feature the
# importer maps (events with and without delay, priorities, rules, function definitions, initial
# assignments, csymbols, stoichiometry math, submodels, conversion factors, fast reactions);
# copied to <build>/seeds/sbml, which stays empty when the suite is absent.
sbml_suite_seeds() {
  local suite=${ESDIRK_SBML_TEST_SUITE:-../shared/sbml-test-suite}/cases dir="$build/seeds/sbml" c
  mkdir -p "$dir"
  for c in 00001 00950 00962 01117 01168 01198 01220 01235 01236 01239 01242 01244 01248 01271 \
           01273 01416 01572 01600 01661 01665 01667 01697 01747 01760; do
    if [[ -d $suite/$c ]]; then cp "$suite/$c/"$c-sbml-l*.xml "$dir/" 2> /dev/null || true; fi
  done
  echo "$dir"
}

# run TARGET SECONDS: one libFuzzer run, recorded in totals.tsv; fails on a finding.
run() {
  # The C API call sequences run without libFuzzer's entropic schedule: with the whole library
  # instrumented, its feature-frequency update took 38 % of fuzz_capi_hybrid's time (measured
  # with perf, issue 27), and those targets need the inputs per second more.
  local target=$1 time=$2 seeds dict=() max_len=4096 flags=() environment=()
  case $target in
    fuzz_capi_sigma) seeds=(tests/fuzz/corpus/sigma) ;;
    fuzz_capi_setup) seeds=(tests/fuzz/corpus/setup) flags=(-entropic=0) ;;
    fuzz_capi_hybrid) seeds=(tests/fuzz/corpus/hybrid) max_len=1024 flags=(-entropic=0) ;;
    fuzz_capi_multishoot) seeds=(tests/fuzz/corpus/multishoot) max_len=1024 flags=(-entropic=0) ;;
    fuzz_capi_options) seeds=(tests/fuzz/corpus/options) max_len=1024 flags=(-entropic=0) ;;
    fuzz_capi_report) seeds=(tests/structural/models tests/fuzz/corpus/model) dict=(-dict=tests/fuzz/model.dict)
                      flags=(-entropic=0) ;;
    fuzz_measurements) seeds=(tests/fuzz/corpus/measurements) ;;
    fuzz_sbml_import) seeds=(tests/fuzz/corpus/sbml "$(sbml_suite_seeds)") dict=(-dict=tests/fuzz/sbml.dict)
                      max_len=16384
                      environment=("LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/libsbml-leaks.supp:print_suppressions=0") ;;
    *) seeds=(tests/structural/models tests/fuzz/corpus/model) dict=(-dict=tests/fuzz/model.dict) ;;
  esac
  local corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  # A time or memory limit hit by one input is a finding too (issue 17: linear-ish cost).
  # One log per process: two long-run lanes may fuzz the same target on one corpus at once.
  local log="$build/findings/$target.$$.log" status=0 start=$SECONDS
  env "${environment[@]}" "$build/tests/fuzz/$target" "${dict[@]}" "${flags[@]}" -max_total_time="$time" -timeout=10 \
    -rss_limit_mb=1024 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$build/findings/$target-" "$corpus" "${seeds[@]}" > "$log" 2>&1 || status=$?
  local runs cov units
  runs=$(awk '/^stat::number_of_executed_units/ {print $2}' "$log")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  units=$(find "$corpus" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "${runs:-0}" "$((SECONDS - start))" "${cov:-0}" "$units" \
    "$(date -u +%FT%TZ)" >> "$totals"
  echo "$target: ${runs:-0} executions in $((SECONDS - start)) s ($(( ${runs:-0} / (SECONDS - start + 1) ))/s)," \
       "coverage ${cov:-?}, corpus $units, peak RSS $(awk '/^stat::peak_rss_mb/ {print $2}' "$log") MB," \
       "total $(executed "$target")"
  if ((status != 0)) || compgen -G "$build/findings/$target-*" > /dev/null; then
    tail -40 "$log" >&2
    echo "fuzz: $target failed (status $status); see $build/findings/" >&2
    exit 1
  fi
}

if ((until == 0)); then
  for target in "${targets[@]}"; do run "$target" "$seconds"; done
  exit 0
fi
# Round robin over the targets still short of the goal.
while :; do
  short=0
  for target in "${targets[@]}"; do
    if (($(executed "$target") < until)); then
      short=1
      run "$target" "$seconds"
    fi
  done
  ((short)) || break
done
echo "every target has run $until executions or more (summed in $totals)"
