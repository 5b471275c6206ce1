#!/usr/bin/env bash
# The truth harness of issue 22: each app runs twice under topdown, with the
# default flags and budget (the sampled run) and with `--replay-mode kernel
# --overhead unlimited` (every launch profiled for the full counter set, the
# whole run: the truth); benchmarks/truth_table.py joins the two level-3
# trees (`topdown report FILE -l 3 --json`) into
# benchmarks/results/truth_<device>.csv, columns
#
#   app,device,kernel,gpu_time_share,node,sampled,truth,spread,lo,hi
#
# and writes its verdict per app (the bar: every node of every kernel with
# >= 1% of GPU time within 2 points of the truth, its 95% interval holding
# the truth on >= 95% of the nodes, median spread <= max(3 x median error,
# 1 point), the bottleneck the truth's where the truth names one; with -m
# application, bar 21 of issue 39: every node within 3 points and 95%
# within max(2 points, their interval)) with each run's exit code and time
# to benchmarks/results/truth_<device>.txt.
#
#   benchmarks/truth.sh [-o DIR] [-a "APP ..."] [-t SECONDS] [-c OUT.csv] [-m MODE]
#                       [-s "FLAGS"] [-d]
#
#   -o DIR      work folder for the results, trees and logs (default build/truth)
#   -a "APP .." the apps (default all): td_bench td_bfs td_phases2 td_few td_tiny
#               td_devheap td_stencil td_manykernels td_libs pytorch td_sort
#               td_frames; also
#               td_phases2_two (td_phases2 --two-kernels), not by default
#   -t SECONDS  kill a run after SECONDS (default 150); a failed or killed run
#               is reported and the script goes on
#   -c OUT.csv  the table (default benchmarks/results/truth_<device>.csv; the
#               summary goes next to it, .txt)
#   -m MODE     the truth run's --replay-mode: kernel (default: every launch
#               replayed for the full set, as ncu measures) or none (every
#               launch measured once without replay, one counter group each:
#               the caches as the app leaves them; on the H100 kernel replay's
#               later passes ran short kernels with a warm instruction cache,
#               19.2 against 2.9 points of Instruction_Fetch for
#               td_manykernels' map1<double>, so the two references differ)
#               or application (the app run once per counter group, every
#               launch measured without replay: the full set of each launch
#               with the caches as the app leaves them). td_devheap's truth
#               under -m kernel is application replay: kernel replay
#               refuses the device heap (its result had no profiled
#               launch), and application replay is the every-launch
#               measurement issue 22 names for such kernels
#   -s "FLAGS"  the sampled run's flags (default none: the default collector),
#               e.g. -s --time-sampled (issue 38)
#   -d          with -s: also run the default collector on each app and judge
#               it against the same truth, in OUT_default.csv/.txt (one truth
#               run for both)
#
# The apps run with sizes that keep kernel replay of every launch near a
# minute or less (~20 ms a launch; at most ~2,000 launches): see the commands
# below (app_cmd). The table and summary are rewritten after each app, so a run cut
# short keeps what it finished. Environment: TOPDOWN (default
# BUILD/topdown), BUILD (default build), PYTHON (default python3).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
python=${PYTHON:-python3}
work=$build/truth
apps="td_bench td_bfs td_phases2 td_few td_tiny td_devheap td_stencil td_manykernels td_libs pytorch td_sort td_frames"
tlimit=150
csv=""

die() { echo "truth.sh: $*" >&2; exit 2; }

truth_mode=kernel
sampled_flags=""
with_default=0
while getopts "o:a:t:c:m:s:dh" opt; do
    case $opt in
        o) work=$OPTARG ;;
        a) apps=$OPTARG ;;
        t) tlimit=$OPTARG ;;
        c) csv=$OPTARG ;;
        m) truth_mode=$OPTARG ;;
        s) sampled_flags=$OPTARG ;;
        d) with_default=1 ;;
        h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) die "unknown option; see truth.sh -h" ;;
    esac
done
[[ $tlimit =~ ^[1-9][0-9]*$ ]] || die "-t needs a number of seconds, got '$tlimit'"
[[ $truth_mode == kernel || $truth_mode == none || $truth_mode == application ]] ||
    die "-m is kernel, none or application, not '$truth_mode'"
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"
# Against application replay (the natural truth of issue 39) the verdict
# is bar 21's (truth_table.py --bar21); against kernel replay issue 22's.
bar=
[ "$truth_mode" = application ] && bar=--bar21
command -v "$python" > /dev/null || die "$python is needed for the table (truth_table.py)"
command -v timeout > /dev/null || die "the timeout command (coreutils) is needed"

# The truth run's --replay-mode for APP.
truth_mode_of() {
    if [ "$1" = td_devheap ] && [ "$truth_mode" = kernel ]; then echo application; else echo "$truth_mode"; fi
}

# The command of each app (benchmarks/truth_apps.sh).
# shellcheck source=benchmarks/truth_apps.sh
. benchmarks/truth_apps.sh
app_cmd() { truth_app_cmd "$1"; }

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' ' '_' || true)
device=${device:-unknown_device}
[ -n "$csv" ] || csv=benchmarks/results/truth_$device.csv
summary=${csv%.csv}.txt
mkdir -p "$work" "$(dirname "$csv")"
status="$work/status.txt"
: > "$status"
triples=()
default_triples=()

note() { echo "$*" | tee -a "$status"; }

# run APP KIND ARGS...: one topdown run; its result, log, exit code and time.
run() {
    local app=$1 kind=$2; shift 2
    local res="$work/$app.$kind.json" log="$work/$app.$kind.log" rc=0 t0 t1
    rm -f "$res"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # the app's command is split at whitespace
    timeout -k 5 "$tlimit" "$topdown" --no-progress "$@" -o "$res" -f -- $cmd > "$log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    local secs; secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        note "$app $kind: killed after ${tlimit} s (timeout); see $log"
    elif [ "$rc" -ne 0 ]; then
        note "$app $kind: exit $rc after $secs s; see $log: $(grep -v '^loop_s=' "$log" | tail -n 2 | tr '\n' ' ')"
    else
        note "$app $kind: ok, $secs s, $(grep -o '([0-9]* launches[^)]*)' "$log" | tail -n 1)"
    fi
    # A result written despite a failing exit is still compared (noted above).
    [ -s "$res" ] || return 1
    "$topdown" report "$res" -l 3 --json > "$work/$app.$kind.tree.json" 2> "$work/$app.$kind.report.log" || {
        note "$app $kind: topdown report -l 3 --json failed: $(tail -n 1 "$work/$app.$kind.report.log")"
        return 1
    }
}

# table_of CSV SUMMARY TRIPLES...: the table and summary of these triples.
table_of() {
    local out=$1 sum=$2; shift 2
    if [ $# -gt 0 ]; then
        # shellcheck disable=SC2086 # bar: one flag or none
        "$python" benchmarks/truth_table.py $bar --topdown "$topdown" --device "$device" \
            --csv "$out" --summary "$work/summary.txt" "$@" 2> /dev/null || true
    else
        echo "app,device,kernel,gpu_time_share,node,sampled,truth,spread,lo,hi" > "$out"
        echo "no app compared yet" > "$work/summary.txt"
    fi
    { echo "# truth.sh on $device, $(date -u +%Y-%m-%dT%H:%MZ), $("$topdown" --version 2>/dev/null | head -n 1)"
      echo "# sampled run: ${sampled_flags:-the default}; truth: --replay-mode $truth_mode"
      echo "# runs:"; sed 's/^/#   /' "$status"
      echo "# verdicts (truth_table.py):"; cat "$work/summary.txt" 2>/dev/null || true; } > "$sum"
}

table() {
    table_of "$csv" "$summary" ${triples[@]+"${triples[@]}"}
    if [ "$with_default" -eq 1 ]; then
        local flags=$sampled_flags
        sampled_flags=""
        table_of "${csv%.csv}_default.csv" "${summary%.txt}_default.txt" \
            ${default_triples[@]+"${default_triples[@]}"}
        sampled_flags=$flags
    fi
}

for app in $apps; do
    cmd=$(app_cmd "$app") || { note "$app: unknown app (see truth.sh -h)"; continue; }
    first=${cmd%% *}
    if [ "$app" = pytorch ]; then
        if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' > /dev/null 2>&1; then
            note "pytorch: skipped: $python cannot import torch or sees no GPU"
            table
            continue
        fi
    elif [ ! -x "$first" ]; then
        note "$app: skipped: $first not built"
        table
        continue
    fi
    echo "== $app: $cmd"
    ok=1
    # shellcheck disable=SC2086 # the flags are split at whitespace
    run "$app" sampled $sampled_flags || ok=0
    default_ok=0
    if [ "$with_default" -eq 1 ] && run "$app" default; then default_ok=1; fi
    mode=$(truth_mode_of "$app")
    [ "$mode" = "$truth_mode" ] || note "$app truth: --replay-mode $mode (kernel replay refuses the device heap)"
    if [ "$mode" = application ]; then
        run "$app" truth --replay-mode application || ok=0
    else
        run "$app" truth --replay-mode "$mode" --overhead unlimited || ok=0
    fi
    if [ "$ok" -eq 1 ] && [ "$default_ok" -eq 1 ]; then
        default_triples+=("$app" "$work/$app.default.tree.json" "$work/$app.truth.tree.json")
    fi
    if [ "$ok" -eq 1 ]; then
        triples+=("$app" "$work/$app.sampled.tree.json" "$work/$app.truth.tree.json")
    else
        note "$app: not in the table (a run gave no result)"
    fi
    table
done
table
echo "truth.sh: $csv, $summary"
cat "$summary"
