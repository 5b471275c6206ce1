#!/usr/bin/env bash
# The result format on this machine (no GPU needed): size of synthetic
# results of 100,000 and 1,000,000 launches (td_gen_result: 50 kernels with
# ~300-character C++ names, 1 launch in 20 profiled, counters from the H100
# recording), and `topdown report -l 3` on them: wall time and peak memory
# (/usr/bin/time -v), best of 3 runs. Also the recorded H100 results of the
# tree (topdown-result/1) saved again as /2.
#
#   benchmarks/result_size.sh [OUT.txt]     (after scripts/setup.sh)
#
# Not a test: the figures depend on the machine. The last run is kept in
# benchmarks/results/result_format_cpu.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TOPDOWN_BUILD:-build}
gen=$build/benchmarks/td_gen_result
topdown=$build/topdown
template=benchmarks/results/h100_td_bench.topdown.json
for tool in "$gen" "$topdown" /usr/bin/time; do
  [ -x "$tool" ] || { echo "result_size: $tool is missing (run scripts/setup.sh; apt-get install time)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${1:-/dev/stdout}

# File sizes in MB (10^6 bytes), or kB when small; memory in MiB.
size_mb() {
  awk -v b="$(stat -c %s "$1")" 'BEGIN { if (b < 1e6) printf "%.1f kB", b / 1e3; else printf "%.2f MB", b / 1e6 }'
}

# Best wall time and its peak RSS over 3 runs of `topdown report FILE -l 3`.
report_cost() {
  local best="" rss=""
  for _ in 1 2 3; do
    /usr/bin/time -v "$topdown" report "$1" -l 3 >/dev/null 2>"$tmp/time.txt"
    local wall kb
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
                        for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp/time.txt")
    kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$wall rss=$kb
    fi
  done
  awk -v s="$best" -v k="$rss" 'BEGIN { printf "report %.2f s, peak %.0f MiB", s, k / 1024 }'
}

{
  echo "# topdown-result/2 on a CPU machine ($(date -u +%Y-%m-%d))"
  echo "machine: $(lscpu | awk -F': +' '/Model name/ { print $2; exit }'), $(nproc) CPUs," \
       "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM," \
       "$(uname -sr)"
  echo "build: $(gcc --version | head -1), libcjson $(dpkg-query -W -f='${Version}' libcjson-dev 2>/dev/null || echo '?')," \
       "$(awk -F= '/CMAKE_BUILD_TYPE:/ { print $2 }' "$build/CMakeCache.txt")"
  echo
  for spec in "100000 --profile-every 20" "100000 --profile-every 20 --groups" \
              "1000000 --profile-every 20" "1000000 --profile-every 20 --groups"; do
    set -- $spec
    n=$1; shift
    file=$tmp/r$n.json
    "$gen" "$template" "$n" "$file" "$@"
    printf '%-8s launches, 50 kernels, 1 in 20 profiled%-9s: %s, %s\n' "$n" \
      "$( [ "${*: -1}" = --groups ] && echo ', groups' )" "$(size_mb "$file")" "$(report_cost "$file")"
    rm -f "$file"
  done
  echo
  for f in tests/fixtures/h100/td_smoke.topdown.json benchmarks/results/h100_td_bench.topdown.json \
           benchmarks/results/h100_pytorch_mlp.topdown.json.xz; do
    in=$f
    case $f in *.xz) in=$tmp/$(basename "${f%.xz}"); xz -dc "$f" >"$in" ;; esac
    "$gen" --resave "$in" "$tmp/v2.json"
    echo "$(basename "$in"): /1 $(size_mb "$in") -> /2 $(size_mb "$tmp/v2.json")"
  done
} | tee "$out"
