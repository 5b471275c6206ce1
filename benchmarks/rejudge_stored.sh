#!/usr/bin/env bash
# Judges the default runs stored in the repository (and any given folder
# of arms.sh runs) by bar 21 against the stored application-replay truths,
# with a build's estimator: one line per set and app (worst node, verdict).
# Report-side changes are judged this way without a GPU (issue 39).
#
#   benchmarks/rejudge_stored.sh [-t TOPDOWN] [-o OUT.txt] [-k DIR] [RUNS_DIR ...]
#
# -k DIR keeps each set's truth_table.py summary and CSV there (LABEL.txt,
# LABEL.csv), to compare spreads and nodes between builds.
#
# The sets: heavy_NVIDIA_H200_2026-11-29's calls 1-3 (default runs),
# natural_coverage's call 3 (share), natural_ride's call 4 (ride),
# trace_NVIDIA_H200_2026-11-29_s13's calls 4 and 5 (s13c4, s13c5),
# natural_pacing_NVIDIA_H200_2026-11-30_s14's call 3 (s14c3, the default)
# and calls 4 and 5 (s14cN.idle, the default; s14cN.defer, the arm
# TOPDOWN_NATURAL_DEFER=8); each
# RUNS_DIR given adds its APP.default.REP.json.xz. Exit 0, 2 on bad use.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")" || exit 2
topdown=build/topdown out=/dev/stdout keep=""
while getopts "t:o:k:" opt; do
    case $opt in
        t) topdown=$OPTARG ;; o) out=$OPTARG ;; k) keep=$OPTARG ;;
        *) echo "usage: see the head of $0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ -x "$topdown" ] || { echo "rejudge_stored: no topdown at $topdown" >&2; exit 2; }
ts=benchmarks/results/time_sampled_h200_2026-11-29
r=benchmarks/results
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/all"
judge() { # LABEL DIR PATTERN (a run's file name, @ for its app)
    local label=$1 dir=$2 pat=$3 args=() a f
    for f in "$dir"/*; do
        a=$(basename "$f"); a=${a%%.*}
        [ "${pat//@/$a}" = "$(basename "$f")" ] && [ -f "$ts/$a.truth.json.xz" ] &&
            args+=("$a" "$f" "$ts/$a.truth.json.xz")
    done
    [ ${#args[@]} -gt 0 ] || return 0
    python3 benchmarks/truth_table.py --bar21 --topdown "$topdown" --device NVIDIA_H200 \
        --summary "$tmp/s.txt" --csv "$tmp/s.csv" "${args[@]}" > /dev/null 2>&1
    [ -n "$keep" ] && mkdir -p "$keep" && cp "$tmp/s.txt" "$keep/$label.txt" && cp "$tmp/s.csv" "$keep/$label.csv" 
    grep -o "^[a-z_0-9]*: \|max |sampled-truth| [0-9.]*\|: PASS$\|: FAIL" "$tmp/s.txt" |
        paste - - - | sed "s/^/$label /" | grep -v "^$label : " >> "$tmp/all"
}
for c in 1 2 3; do for k in 1 2 3; do
    judge heavy$c.$k "$r/heavy_NVIDIA_H200_2026-11-29/call$c/runs" "@.default.$k.json.xz"
done; done
for k in 1 2; do
    judge share.$k "$r/natural_coverage_NVIDIA_H200_2026-11-29/runs_call3" "@.share.$k.json.xz"
    judge ride.$k "$r/natural_ride_NVIDIA_H200_2026-11-29/runs_call4" "@.ride.$k.json.xz"
done
for c in 4 5; do for k in 1 2; do
    judge s13c$c.$k "$r/trace_NVIDIA_H200_2026-11-29_s13/call$c/runs" "@.default.$k.json.xz"
done; done
s14=$r/natural_pacing_NVIDIA_H200_2026-11-30_s14
for k in 1 2; do judge s14c3.$k "$s14/call3/final/runs" "@.default.$k.json.xz"; done
for c in 4 5; do for k in 1 2 3 4; do
    judge s14c$c.idle.$k "$s14/call$c/runs" "@.idle.$k.json.xz"
    judge s14c$c.defer.$k "$s14/call$c/runs" "@.default.$k.json.xz"
done; done
for d in "$@"; do for k in 1 2 3; do judge "$(basename "$d").$k" "$d" "@.default.$k.json.xz"; done; done
sed 's/max |sampled-truth| //; s/\t: /\t/' "$tmp/all" | column -t > "$out"
