#!/usr/bin/env bash
# Makes the example outputs shown in docs/OUTPUTS.md, into docs/examples/:
# the text tree, the per-kernel and per-launch CSV, the stacked-bar plot,
# the timeline of one kernel (table and plot) and, given a second result,
# the diff of the two (text, CSV, plot). Each plot comes with its .gp
# script and .dat data.
#
#   docs/make_examples.sh RESULT [RESULT_B [KERNEL]]
#
# KERNEL (for the timeline): a name or unique part of one; default: the
# kernel with the most profiled launches. The topdown binary is $TOPDOWN,
# else build/topdown. Needs gnuplot (apt-get install gnuplot-nox).
set -euo pipefail

usage="usage: docs/make_examples.sh RESULT [RESULT_B [KERNEL]]"
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
topdown=${TOPDOWN:-$here/../build/topdown}
[ -x "$topdown" ] || { echo "make_examples: no topdown binary at $topdown; build it (scripts/setup.sh) or set TOPDOWN" >&2; exit 1; }
result=$1
second=${2:-}
kernel=${3:-}
out=$here/examples
mkdir -p "$out"

# The kernel with the most profiled launches, from the per-launch CSV
# (first field; RFC 4180 quotes undone).
busiest_kernel() {
  tail -n +2 "$1" | sed -E 's/^"(([^"]|"")*)",.*/\1/; t done; s/,.*//; :done; s/""/"/g' |
    sort | uniq -c | sort -k1,1nr | head -n 1 | sed -E 's/^ *[0-9]+ //'
}

"$topdown" report "$result" -l 3 --no-desc --kernels 0 -f \
  --csv "$out/kernels.csv" --csv-launches "$out/launches.csv" > "$out/report.txt"
"$topdown" plot "$result" -l 2 -f -o "$out/bars.png"
[ -n "$kernel" ] || kernel=$(busiest_kernel "$out/launches.csv")
"$topdown" report "$result" -l 3 --timeline "$kernel" > "$out/timeline.txt"
"$topdown" plot "$result" -l 3 --timeline "$kernel" -f -o "$out/timeline.png"
if [ -n "$second" ]; then
  "$topdown" diff "$result" "$second" -l 2 --kernels 3 -f --csv "$out/diff.csv" > "$out/diff.txt"
  "$topdown" plot --diff "$result" "$second" -l 2 --top 6 -f -o "$out/diff.png"
fi
echo "make_examples: wrote $(ls "$out" | wc -l) files to $out" >&2
