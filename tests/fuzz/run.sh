#!/usr/bin/env bash
# Runs every fuzz target for a bounded time: tests/run.sh calls it with the
# default (a short run on every CI run); run_long.sh beside it runs longer.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
# Builds build-fuzz with clang (libFuzzer, ASan, UBSan). Each target starts
# from its seeds and its crashes found before (tests/fuzz/<name>/), and
# grows a scratch corpus in build-fuzz/corpus/<name>. A crash fails the run
# and leaves the input in build-fuzz/artifacts/<name>/: fix the bug, then
# keep the input in tests/fuzz/<name>/crashes/ so CTest replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-12}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(result spool arch nvprof cli collect)

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: clang is missing; scripts/setup.sh installs it" >&2
  exit 1
fi
mkdir -p build-fuzz
if ! { cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
         -DTOPDOWN_FUZZ=ON -DBUILD_TESTING=OFF -DTOPDOWN_BUILD_BENCHMARKS=OFF &&
       cmake --build build-fuzz -j"$(nproc)"; } > build-fuzz/build.log 2>&1; then
  tail -n 40 build-fuzz/build.log >&2
  echo "fuzz: the fuzz build failed (build-fuzz/build.log)" >&2
  exit 1
fi

export TOPDOWN_ARCHS=$PWD/archs
# Any UBSan finding stops the run, but those listed in ubsan_known.supp.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/fuzz/ubsan_known.supp
total=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  artifacts=build-fuzz/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  inputs=("$corpus" "tests/fuzz/$t/seeds")
  [ -d "tests/fuzz/$t/crashes" ] && inputs+=("tests/fuzz/$t/crashes")
  log=build-fuzz/$t.log
  if ! build-fuzz/tests/fuzz/fuzz_"$t" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
       -artifact_prefix="$artifacts/" "${inputs[@]}" > "$log" 2>&1; then
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -n 20 >&2
    echo "fuzz: $t found a crash (input in $artifacts/, log $log); fix it and keep the input in tests/fuzz/$t/crashes/" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "fuzz: $t: ${runs:-0} executions in ${seconds}s, no crash" >&2
  total=$((total + ${runs:-0}))
done
echo "fuzz: $total executions in all" >&2
