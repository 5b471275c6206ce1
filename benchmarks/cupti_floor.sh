#!/usr/bin/env bash
# CUPTI's own floor against topdown (issue 23): the same td_tiny loops as
# cost.sh, natively, under libcupti_floor.so (an injection library that does
# only what CUPTI must: benchmarks/cupti_floor.c) and under topdown, median
# of -n runs each, written to benchmarks/results/cupti_floor_<device>.csv:
#
#   case,device,mode,launches,seconds,ratio,added_us_per_launch
#
# ratio and added_us_per_launch against the case's native run. Cases:
#
#   tiny      td_tiny (100,000 launches of a 1-block kernel, one thread)
#   threads8  td_tiny --threads 8 (8 host threads, own streams)
#   startup   td_tiny --launches 1: whole-process wall time
#   pytorch   python3 benchmarks/pytorch_mlp.py STEPS: its own in-loop time
#             (launches: the trace run's count, from its result)
#
# Modes: native; load, cb, act, lock, rp, init (CUPTI_FLOOR, see cupti_floor.c:
# being injected, + empty launch callbacks, + kernel activity records, + one
# lock held across each launch, + the Range Profiler enabled on the
# context, no session started, + cuptiProfilerInitialize alone, +
# cuptiProfilerDeviceSupported alone at the first launch, or in the
# context-created callback (devctx), or rp for the first CUPTI_FLOOR_WINDOW
# launches then the profiler disabled and deinitialised (window)); trace (topdown -k '^zzzz$': every launch
# traced, none profiled; its exit 3 is expected) and default (topdown).
#
#   benchmarks/cupti_floor.sh [-n RUNS] [-c "CASE ..."] [-m "MODE ..."] [-s STEPS] [-o OUT.csv] [-w DIR]
#
# Environment: TOPDOWN (default BUILD/topdown), BUILD (default build).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
floor=$build/benchmarks/libcupti_floor.so
tiny=$build/benchmarks/td_tiny
runs=3
cases="tiny threads8 startup"
modes="native load cb act lock rp trace default"
out=""
work=$build/floor
steps=500

die() { echo "cupti_floor.sh: $*" >&2; exit 2; }

while getopts "n:c:m:s:o:w:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        c) cases=$OPTARG ;;
        m) modes=$OPTARG ;;
        s) steps=$OPTARG ;;
        o) out=$OPTARG ;;
        w) work=$OPTARG ;;
        h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) die "unknown option; see cupti_floor.sh -h" ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "-s needs a positive number of steps, got '$steps'"
[ -x "$tiny" ] || die "td_tiny not found at $tiny; build the benchmarks (nvcc)"
[ -f "$floor" ] || die "libcupti_floor.so not found at $floor; build the benchmarks"
[ -x "$topdown" ] || die "topdown not found at $topdown; build it or set TOPDOWN"
floor=$(cd "$(dirname "$floor")" && pwd)/$(basename "$floor")

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' ' '_' || true)
device=${device:-unknown_device}
[ -n "$out" ] || out=benchmarks/results/cupti_floor_$device.csv
notes=${out%.csv}.txt
mkdir -p "$work" "$(dirname "$out")"

now() { date +%s.%N; }

# once CASE MODE LOG: one run; prints "SECONDS LAUNCHES" (empty if it failed).
once() {
    local c=$1 m=$2 log=$3 rc=0 t0 t1
    local -a cmd=("$tiny")
    [ "$c" = threads8 ] && cmd+=(--threads 8)
    [ "$c" = startup ] && cmd+=(--launches 1)
    [ "$c" = pytorch ] && cmd=(python3 benchmarks/pytorch_mlp.py "$steps")
    t0=$(now)
    case $m in
        native) "${cmd[@]}" > "$log" 2>&1 || rc=$? ;;
        trace) "$topdown" --no-progress -f -o "$work/floor.json" -k '^zzzz$' -- "${cmd[@]}" > "$log" 2>&1 || rc=$?
               [ "$rc" -eq 3 ] && rc=0 ;;
        default) "$topdown" --no-progress -f -o "$work/floor.json" -- "${cmd[@]}" > "$log" 2>&1 || rc=$? ;;
        *) CUDA_INJECTION64_PATH=$floor CUPTI_FLOOR=$m "${cmd[@]}" > "$log" 2>&1 || rc=$? ;;
    esac
    t1=$(now)
    [ "$rc" -eq 0 ] || { echo "    exit $rc: $log" >> "$notes"; echo " "; return; }
    if [ "$c" = startup ]; then
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f 1", b - a }'
        return
    fi
    local line
    if [ "$c" = pytorch ]; then # it does not count its launches; topdown's closing line does
        line=$(grep -o 'loop_s=[0-9.]*' "$log" | tail -n 1 || true)
        echo "${line#loop_s=} $(grep -o '(\([0-9]*\) launches' "$log" | tail -n 1 | tr -dc '0-9' || true)"
        return
    fi
    line=$(grep -o 'loop_s=[0-9.]* launches=[0-9]*' "$log" | tail -n 1 || true)
    echo "$(echo "$line" | sed -n 's/^loop_s=\([0-9.]*\).*/\1/p') $(echo "$line" | sed -n 's/.*launches=//p')"
}

# shellcheck source=median.sh
. "$here/median.sh"

echo "# cupti_floor.sh on $device, $(date -u +%Y-%m-%dT%H:%MZ), $("$topdown" --version 2>/dev/null | head -n 1), $runs run(s) each, median" > "$notes"
header="case,device,mode,launches,seconds,ratio,added_us_per_launch"
rows=()
for c in $cases; do
    native_s="" case_launches=""
    for m in $modes; do
        times="" launches=""
        for ((i = 1; i <= runs; i++)); do
            r=$(once "$c" "$m" "$work/$c.$m.$i.log")
            echo "  $c $m run $i: ${r% *} s (launches ${r#* })" >> "$notes"
            [ -n "${r% *}" ] && [ "${r% *}" != " " ] && times+="${r% *}"$'\n'
            [ -z "$launches" ] && [ -n "${r#* }" ] && launches=${r#* }
            grep -h '^cupti_floor:' "$work/$c.$m.$i.log" >> "$notes" 2>/dev/null || true
        done
        s=$(printf '%s' "$times" | median)
        [ -n "$launches" ] && case_launches=$launches
        launches=${launches:-$case_launches} # pytorch: counted by its traced runs only
        [ "$m" = native ] && native_s=$s
        row=$(awk -v c="$c" -v d="$device" -v m="$m" -v n="$launches" -v a="$native_s" -v b="$s" 'BEGIN {
            ratio = ""; added = "";
            if (a != "" && b != "" && a > 0) ratio = sprintf("%.3f", b / a);
            if (a != "" && b != "" && n > 0) added = sprintf("%.3f", (b - a) / n * 1e6);
            printf "%s,%s,%s,%s,%s,%s,%s", c, d, m, n, b, ratio, added }')
        echo "  $row" | tee -a "$notes"
        rows+=("$row")
        { echo "$header"; printf '%s\n' "${rows[@]}"; } > "$out"
    done
done
echo "cupti_floor.sh: $out (runs: $notes)"
column -s, -t "$out" 2>/dev/null || cat "$out"
