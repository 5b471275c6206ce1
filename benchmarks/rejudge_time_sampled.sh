#!/usr/bin/env bash
# Judges recorded --time-sampled runs against their truth with this build's
# attribution, no GPU: each APP.sampled.json.xz of DIR is attributed again
# (td_reattribute: the PM and PC samples it keeps, levels/attribute.h), then
# benchmarks/truth_table.py compares it and APP.default.json.xz (the default
# collector, as recorded) with APP.truth.json.xz, by bar 21 (--bar21: the
# truth is application replay). Writes OUT.csv/.txt (the time-sampled
# runs) and OUT_default.csv/.txt.
#
#   benchmarks/rejudge_time_sampled.sh DIR OUT [DEVICE]
#
# Environment: BUILD (default build), TOPDOWN (default BUILD/topdown).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")"
[ $# -ge 2 ] || { echo "usage: rejudge_time_sampled.sh DIR OUT [DEVICE]" >&2; exit 2; }
dir=$1 out=$2 device=${3:-NVIDIA_H200}
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
reattribute=$build/benchmarks/td_reattribute
[ -x "$reattribute" ] || { echo "rejudge_time_sampled.sh: $reattribute is not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ts=() def=()
for sampled in "$dir"/*.sampled.json.xz; do
    app=$(basename "$sampled" .sampled.json.xz)
    "$reattribute" "$sampled" "$tmp/$app.json" 2> "$tmp/$app.log" ||
        { cat "$tmp/$app.log" >&2; exit 1; }
    ts+=("$app" "$tmp/$app.json" "$dir/$app.truth.json.xz")
    [ -e "$dir/$app.default.json.xz" ] &&
        def+=("$app" "$dir/$app.default.json.xz" "$dir/$app.truth.json.xz")
done
python3 benchmarks/truth_table.py --bar21 --topdown "$topdown" --device "$device" \
    --csv "$out.csv" --summary "$out.txt" "${ts[@]}" 2> /dev/null
python3 benchmarks/truth_table.py --bar21 --topdown "$topdown" --device "$device" \
    --csv "${out}_default.csv" --summary "${out}_default.txt" "${def[@]}" 2> /dev/null
