#!/usr/bin/env bash
# The end of a run on this machine (no GPU needed; issue 23's "end of run
# <= 1 us per launch"): the time from the app's exit to topdown's exit,
# report printed, for a run of N launches (default 200,000). The app is a
# stand-in that appends a spool made by td_gen_spool (the injection
# library's own writer; the kernels, configurations, counter groups and
# counters of the H200 PyTorch recording, one launch in 100 profiled) to
# the spool topdown gives it and writes the time it exits; topdown then
# reads the spool, saves the result (.json, and .json.xz), and prints the
# report. Median and best of R runs (default 5).
#
#   benchmarks/end_of_run.sh [OUT.txt]      (after scripts/setup.sh)
#   BEFORE=/path/to/old/topdown benchmarks/end_of_run.sh   also times another build
#   LAUNCHES=N RUNS=R benchmarks/end_of_run.sh
#
# Not a test: the figures depend on the machine. The last run is kept in
# benchmarks/results/end_of_run_cpu.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TOPDOWN_BUILD:-build}
gen=$build/benchmarks/td_gen_spool
topdown=$PWD/$build/topdown
template=tests/fixtures/h200/h200_pytorch_mlp.topdown.json
launches=${LAUNCHES:-200000}
runs=${RUNS:-5}
for tool in "$gen" "$topdown"; do
  [ -x "$tool" ] || { echo "end_of_run: $tool is missing (run scripts/setup.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${1:-/dev/stdout}

"$gen" "$template" "$launches" "$tmp/run.spool"
# The spool: TOPDOWN_COLLECT's spool line (docs/COLLECTION.md), its '='
# and '%' unescaped (%25 last), or TOPDOWN_SPOOL from a topdown older than
# it (BEFORE=).
cat > "$tmp/app.sh" <<EOF
#!/bin/sh
spool=\${TOPDOWN_SPOOL:-\$(printf '%s\\n' "\$TOPDOWN_COLLECT" |
  sed -n -e 's/%3D/=/g' -e 's/%25/%/g' -e 's/^spool=//p')}
cat '$tmp/run.spool' >> "\$spool"
date +%s.%N > '$tmp/exit_time'
EOF
chmod +x "$tmp/app.sh"

# Seconds from the app's exit to topdown's, one run of binary $1 writing $2.
end_of_run() {
  (cd "$tmp" && "$1" -o "$2" -f -- ./app.sh > report.txt 2> err.txt)
  local done_at
  done_at=$(date +%s.%N)
  awk -v a="$(cat "$tmp/exit_time")" -v b="$done_at" 'BEGIN { printf "%.3f\n", b - a }'
}

# "median M s, best B s (us per launch)" over the runs.
measure() {
  for _ in $(seq "$runs"); do end_of_run "$1" "$2"; done | sort -n |
    awk -v n="$launches" '{ t[NR] = $1 } END {
      m = t[int((NR + 1) / 2)]
      printf "median %.3f s, best %.3f s (%.2f us per launch)", m, t[1], m / n * 1e6 }'
}

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "+changes" || true)
{
  echo "# end of run: app exit -> report printed, $launches launches ($(date -u +%Y-%m-%d))"
  echo "machine: $(lscpu | awk -F': +' '/Model name/ { print $2; exit }'), $(nproc) vCPUs," \
       "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)"
  echo "build: $("${CC:-cc}" --version | head -1), $(awk -F= '/^CMAKE_BUILD_TYPE:/ { print $2 }' "$build/CMakeCache.txt"), commit $commit$dirty"
  echo "spool: $(stat -c %s "$tmp/run.spool" | awk '{ printf "%.1f MB", $1 / 1e6 }')," \
       "$(grep -c '"counters"' "$tmp/run.spool") profiled launches, template $template"
  echo "runs: $runs each; the report is topdown's default (-l 1)"
  echo
  if [ -n "${BEFORE:-}" ]; then
    echo "before ($BEFORE):"
    echo "  result .json    : $(measure "$BEFORE" r.json)"
    echo "  result .json.xz : $(measure "$BEFORE" r.json.xz)"
  fi
  echo "this build:"
  echo "  result .json    : $(measure "$topdown" r.json)"
  echo "  result .json.xz : $(measure "$topdown" r.json.xz)"
} > "$out"
