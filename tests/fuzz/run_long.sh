#!/usr/bin/env bash
# The long fuzz run, beside the short one CI makes (run.sh):
#   tests/fuzz/run_long.sh [SECONDS_PER_TARGET (default 600)] [TARGET...]
# Every target runs on all cores (libFuzzer -fork) and goes on past crashes;
# the corpus grows in build-fuzz/corpus/<name> from one run to the next.
# Each crash found is copied into tests/fuzz/<name>/crashes/, where CTest
# replays it (fuzz_replay_<name>): fix the bug, commit the input with the
# fix. Exits 1 when something was found.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(result spool arch nvprof cli collect)

bash tests/fuzz/run.sh 1 "${targets[@]}" # builds, and checks the known inputs
export TOPDOWN_ARCHS=$PWD/archs
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/fuzz/ubsan_known.supp
found=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  artifacts=build-fuzz/long-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  inputs=("$corpus" "tests/fuzz/$t/seeds")
  [ -d "tests/fuzz/$t/crashes" ] && inputs+=("tests/fuzz/$t/crashes")
  log=build-fuzz/$t.long.log
  build-fuzz/tests/fuzz/fuzz_"$t" -fork="$(nproc)" -ignore_crashes=1 -ignore_ooms=1 \
    -ignore_timeouts=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$artifacts/" "${inputs[@]}" > "$log" 2>&1 || true
  runs=$({ grep -o '^#[0-9]*' "$log" || true; } | tail -n 1 | tr -d '#')
  new=0
  for a in "$artifacts"/*; do
    [ -e "$a" ] || continue
    mkdir -p "tests/fuzz/$t/crashes"
    cp -n "$a" "tests/fuzz/$t/crashes/"
    new=$((new + 1))
  done
  where=""
  [ "$new" -eq 0 ] || where=", copied into tests/fuzz/$t/crashes/ (log $log)"
  echo "fuzz (long): $t: ${runs:-?} executions in ${seconds}s, $new finding(s)$where" >&2
  found=$((found + new))
done
[ "$found" -eq 0 ]
