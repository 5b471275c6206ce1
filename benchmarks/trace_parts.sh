#!/usr/bin/env bash
# What each part of tracing costs (issue 40: tiny-trace <= +2 us a launch,
# pytorch-trace <= 1.10x): the app's in-loop time natively, under CUPTI's
# floor (benchmarks/cupti_floor.c, callbacks + kernel activity), and under
# topdown -k '^zzzz$' (every launch traced, none profiled) with each
# optional part taken away in turn. Arms run interleaved, REPS rounds, so
# that drift of the machine hits each alike:
#
#   native     the app alone
#   act        CUPTI_FLOOR=act: launch callbacks and kernel activity records
#   trace      topdown -k '^zzzz$'
#   nocopies   the same, TOPDOWN_NO_COPIES=1 (no memcpy/memset records)
#   nonvtx     the same, NVTX_INJECTION64_PATH=/nonexistent (no NVTX tool)
#   notiming   the same, TOPDOWN_NO_TIMING=1 (no activity records at all)
#
#   benchmarks/trace_parts.sh [-n REPS (3)] [-a "APP ..."] [-m "ARM ..."] [-o OUT.csv] [-w DIR]
#
# APP: td_tiny (build/benchmarks/td_tiny) or pytorch (pytorch_mlp.py 500).
# Writes app,arm,rep,loop_s,exit and prints each arm's median and its
# added time a launch against native's median (launches: td_tiny's own
# count, PyTorch's from topdown's closing line). Exit 0, 2 on bad use.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")" || exit 2
reps=3 apps="td_tiny pytorch" out="" work=build/trace_parts
arms="native act trace nocopies nonvtx notiming"
while getopts "n:a:m:o:w:" opt; do
    case $opt in
        n) reps=$OPTARG ;; a) apps=$OPTARG ;; m) arms=$OPTARG ;; o) out=$OPTARG ;;
        w) work=$OPTARG ;;
        *) echo "usage: see the head of $0" >&2; exit 2 ;;
    esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "trace_parts: -n needs a positive number" >&2; exit 2; }
topdown=${TOPDOWN:-build/topdown}
floor=$PWD/build/benchmarks/libcupti_floor.so
mkdir -p "$work"
out=${out:-$work/trace_parts.csv}
echo "app,arm,rep,loop_s,exit" > "$out"

command_of() { # APP
    case $1 in
        td_tiny) echo "build/benchmarks/td_tiny" ;;
        pytorch) echo "python3 benchmarks/pytorch_mlp.py 500" ;;
        *) return 1 ;;
    esac
}

once() { # APP ARM REP
    local cmd log=$work/$1.$2.$3.log rc=0
    cmd=$(command_of "$1") || { echo "trace_parts: unknown app $1" >&2; exit 2; }
    local td=("$topdown" --no-progress -f -o "$work/$1.json" -k '^zzzz$' --)
    case $2 in
        native) $cmd > "$log" 2>&1 || rc=$? ;;
        act) CUDA_INJECTION64_PATH=$floor CUPTI_FLOOR=act $cmd > "$log" 2>&1 || rc=$? ;;
        trace) "${td[@]}" $cmd > "$log" 2>&1 || rc=$? ;;
        nocopies) TOPDOWN_NO_COPIES=1 "${td[@]}" $cmd > "$log" 2>&1 || rc=$? ;;
        nonvtx) NVTX_INJECTION64_PATH=/nonexistent "${td[@]}" $cmd > "$log" 2>&1 || rc=$? ;;
        notiming) TOPDOWN_NO_TIMING=1 "${td[@]}" $cmd > "$log" 2>&1 || rc=$? ;;
        *) echo "trace_parts: unknown arm $2" >&2; exit 2 ;;
    esac
    local s
    s=$(grep -o 'loop_s=[0-9.]*' "$log" | tail -n 1 | cut -d= -f2)
    echo "$1,$2,$3,${s:-},$rc" >> "$out"
}

for app in $apps; do
    for ((r = 1; r <= reps; r++)); do
        for arm in $arms; do once "$app" "$arm" "$r"; done
    done
done

python3 - "$out" "$work" <<'EOF'
import csv, glob, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for app in dict.fromkeys(r["app"] for r in rows):
    launches = 100000 if app == "td_tiny" else None
    for log in glob.glob(f"{sys.argv[2]}/{app}.trace.*.log"):
        m = re.findall(r"\(([0-9,]+) launches", open(log, errors="replace").read())
        if m and launches is None:
            launches = int(m[-1].replace(",", ""))
    med = {}
    for r in rows:
        if r["app"] == app and r["loop_s"]:
            med.setdefault(r["arm"], []).append(float(r["loop_s"]))
    base = statistics.median(med.get("native", [0])) or None
    for arm, v in med.items():
        m = statistics.median(v)
        added = f"{(m - base) / launches * 1e6:+.2f} us a launch" if base and launches else ""
        ratio = f"{m / base:.3f}x" if base else ""
        print(f"{app:8} {arm:9} median {m:.4f} s of {len(v)}  {ratio}  {added}")
EOF
