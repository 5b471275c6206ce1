#!/usr/bin/env bash
# The collector's cost (issue 23): in-loop times natively and under topdown,
# read from the apps' own line
#
#   loop_s=<seconds> launches=<N> ...
#
# (host clock around the app's main loop and its final synchronisation),
# median of -n runs each, written to benchmarks/results/cost_<device>.csv with
# exactly the columns
#
#   case,device,launches,native_s,topdown_s,ratio,added_us_per_launch
#
# ratio = topdown_s / native_s, added_us_per_launch = (topdown_s - native_s)
# / launches * 1e6. The cases:
#
#   tiny-trace            td_tiny (100,000 launches of a 1-block kernel), topdown -k '^zzzz$'
#                         (every launch traced, none profiled)
#   tiny-default          td_tiny, topdown's defaults
#   pytorch-trace         pytorch_mlp.py STEPS (default 2000), -k '^zzzz$'
#   pytorch-default       pytorch_mlp.py STEPS, defaults
#   pytorch-overhead10    pytorch_mlp.py STEPS, --overhead 10
#   stencil-sample-every  td_stencil (10,104 launches), --sample-every 500
#   threads8-default      td_tiny --threads 8 (8 host threads, own streams), defaults
#   startup               td_tiny --launches 1, defaults: whole-process wall time
#   pytorch-pm            pytorch_mlp.py STEPS, --pm-interval 100 (PM sampling alone)
#   pytorch-time-sampled  pytorch_mlp.py STEPS, --time-sampled: the first run's loop
#                         (PM sampling), as the app sees it
#   pytorch-time-sampled-wall  the same, whole-process wall time against native's:
#                         both runs and the join, what the user waits for
#   tiny-time-sampled     td_tiny, --time-sampled (the first run's loop)
#
# The -k '^zzzz$' runs end with topdown's exit 3 ("nothing measured: no
# launch was profiled"), as expected: their times still count; any other
# failure leaves the run without a time (noted in the .txt).
#
# PyTorch does not count its launches: for its rows `launches` is the
# process's launch count from topdown's closing line ("(L launches, ...)")
# of the first topdown run of the case. Without torch the pytorch rows are
# written with empty times (and a note in the .txt).
#
#   benchmarks/cost.sh [-n RUNS] [-c "CASE ..."] [-s STEPS] [-t SECONDS] [-o OUT.csv] [-w DIR]
#
#   -n RUNS     runs of each command, natively and under topdown (default 3)
#   -c "CASE.." the cases (default all: the td_tiny ones, startup, stencil, then
#               the pytorch ones), run and written in the order given
#   -s STEPS    pytorch_mlp.py's steps (default 2000)
#   -t SECONDS  kill a run after SECONDS (default 150); a failed run has no time
#   -o OUT.csv  default benchmarks/results/cost_<device>.csv; each run's
#               numbers go next to it (.txt)
#   -w DIR      work folder for results and logs (default build/cost)
#
# Environment: TOPDOWN (default BUILD/topdown), BUILD (default build),
# PYTHON (default python3).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
python=${PYTHON:-python3}
runs=3
steps=2000
tlimit=150
out=""
work=$build/cost
# The cheap cases first: a run cut short keeps them (the CSV is rewritten
# after each case).
cases="tiny-trace tiny-default threads8-default startup stencil-sample-every pytorch-trace pytorch-default pytorch-overhead10"

die() { echo "cost.sh: $*" >&2; exit 2; }

while getopts "n:c:s:t:o:w:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        c) cases=$OPTARG ;;
        s) steps=$OPTARG ;;
        t) tlimit=$OPTARG ;;
        o) out=$OPTARG ;;
        w) work=$OPTARG ;;
        h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) die "unknown option; see cost.sh -h" ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "-s needs a positive number of steps, got '$steps'"
[[ $tlimit =~ ^[1-9][0-9]*$ ]] || die "-t needs a number of seconds, got '$tlimit'"
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"
command -v timeout > /dev/null || die "the timeout command (coreutils) is needed"

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' ' '_' || true)
device=${device:-unknown_device}
[ -n "$out" ] || out=benchmarks/results/cost_$device.csv
notes=${out%.csv}.txt
mkdir -p "$work" "$(dirname "$out")"
tiny=$build/benchmarks/td_tiny
stencil=$build/benchmarks/td_stencil
have_torch=0
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' > /dev/null 2>&1 && have_torch=1

# case_spec CASE: sets key (the native runs it shares), cmd, flags (topdown's
# options, one word each), metric (loop: the app's loop_s; wall: the process).
case_spec() {
    metric=loop
    flags=()
    case $1 in
        tiny-trace) key=tiny; cmd="$tiny"; flags=(-k '^zzzz$') ;;
        tiny-default) key=tiny; cmd="$tiny" ;;
        pytorch-trace) key=pytorch; cmd="$python benchmarks/pytorch_mlp.py $steps"; flags=(-k '^zzzz$') ;;
        pytorch-default) key=pytorch; cmd="$python benchmarks/pytorch_mlp.py $steps" ;;
        pytorch-overhead10) key=pytorch; cmd="$python benchmarks/pytorch_mlp.py $steps"; flags=(--overhead 10) ;;
        stencil-sample-every) key=stencil; cmd="$stencil"; flags=(--sample-every 500) ;;
        threads8-default) key=threads8; cmd="$tiny --threads 8" ;;
        startup) key=startup; cmd="$tiny --launches 1"; metric=wall ;;
        pytorch-pm) key=pytorch; cmd="$python benchmarks/pytorch_mlp.py $steps"; flags=(--pm-interval 100) ;;
        pytorch-time-sampled) key=pytorch; cmd="$python benchmarks/pytorch_mlp.py $steps"; flags=(--time-sampled) ;;
        pytorch-time-sampled-wall) key=pytorch-wall; cmd="$python benchmarks/pytorch_mlp.py $steps"; flags=(--time-sampled); metric=wall ;;
        tiny-time-sampled) key=tiny; cmd="$tiny"; flags=(--time-sampled) ;;
        *) return 1 ;;
    esac
}

now() { date +%s.%N; }

# once LOG [topdown options...]: one run of $cmd, natively without options
# (none given and $native), else under topdown; prints "SECONDS LAUNCHES"
# (empty fields when the run failed or printed no loop line).
once() {
    local log=$1; shift
    local rc=0 t0 t1
    t0=$(now)
    # shellcheck disable=SC2086 # the command is split at whitespace
    if [ "$native" -eq 1 ]; then
        timeout -k 5 "$tlimit" $cmd > "$log" 2>&1 || rc=$?
    else
        timeout -k 5 "$tlimit" "$topdown" --no-progress -o "$work/cost.json" -f "$@" -- $cmd > "$log" 2>&1 || rc=$?
    fi
    t1=$(now)
    local secs="" launches=""
    if [ "$metric" = wall ]; then
        [ "$rc" -eq 0 ] && secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
        launches=1
    else
        local line
        line=$(grep -o 'loop_s=[0-9.]*\( launches=[0-9]*\)\{0,1\}' "$log" | tail -n 1 || true)
        secs=$(echo "$line" | sed -n 's/^loop_s=\([0-9.]*\).*/\1/p')
        launches=$(echo "$line" | sed -n 's/.*launches=\([0-9]*\).*/\1/p')
        if [ -z "$launches" ]; then # pytorch: topdown's count of the process's launches
            launches=$(grep -o '(\([0-9]*\) launches' "$log" | tail -n 1 | tr -dc '0-9' || true)
        fi
    fi
    [ "$rc" -eq 0 ] || echo "    exit $rc: $log" >> "$notes"
    echo "$secs $launches"
}

# shellcheck source=median.sh
. "$here/median.sh"

# measure NAME [topdown options...]: $runs runs; prints "MEDIAN_SECONDS LAUNCHES".
measure() {
    local name=$1; shift
    local i times="" launches="" r
    for ((i = 1; i <= runs; i++)); do
        r=$(once "$work/$name.$i.log" "$@")
        echo "  $name run $i: ${r% *} s (launches ${r#* })" >> "$notes"
        [ -n "${r% *}" ] && times+="${r% *}"$'\n'
        [ -z "$launches" ] && [ -n "${r#* }" ] && launches=${r#* }
    done
    echo "$(printf '%s' "$times" | median) $launches"
}

{ echo "# cost.sh on $device, $(date -u +%Y-%m-%dT%H:%MZ), $("$topdown" --version 2>/dev/null | head -n 1), $runs run(s) each, median"; } > "$notes"
declare -A native_s native_n
rows=()
for c in $cases; do
    case_spec "$c" || { echo "cost.sh: unknown case $c (see cost.sh -h)" | tee -a "$notes" >&2; continue; }
    if [ "$key" = pytorch ] && [ "$have_torch" -eq 0 ]; then
        echo "$c: skipped: $python cannot import torch or sees no GPU" | tee -a "$notes"
        rows+=("$c,$device,,,,,")
        continue
    fi
    echo "== $c: $cmd${flags[*]:+ (topdown ${flags[*]})}" | tee -a "$notes"
    if [ -z "${native_s[$key]+set}" ]; then
        native=1
        r=$(measure "$key.native")
        native_s[$key]=${r% *}
        native_n[$key]=${r#* }
    fi
    native=0
    r=$(measure "$c.topdown" "${flags[@]}")
    td=${r% *}
    n=${native_n[$key]}
    [ -n "$n" ] || n=${r#* }
    ns=${native_s[$key]}
    row=$(awk -v c="$c" -v d="$device" -v n="$n" -v a="$ns" -v b="$td" 'BEGIN {
        ratio = ""; added = "";
        if (a != "" && b != "" && a > 0) ratio = sprintf("%.3f", b / a);
        if (a != "" && b != "" && n > 0) added = sprintf("%.3f", (b - a) / n * 1e6);
        printf "%s,%s,%s,%s,%s,%s,%s", c, d, n, a, b, ratio, added }')
    echo "  $row" | tee -a "$notes"
    rows+=("$row")
    { echo "case,device,launches,native_s,topdown_s,ratio,added_us_per_launch"; printf '%s\n' "${rows[@]}"; } > "$out"
done
{ echo "case,device,launches,native_s,topdown_s,ratio,added_us_per_launch"; printf '%s\n' "${rows[@]}"; } > "$out"
echo "cost.sh: $out (runs: $notes)"
column -s, -t "$out" 2>/dev/null || cat "$out"
