#!/usr/bin/env bash
# What the PM-sampling timeline costs: each command runs N times natively
# and under `topdown --pm-interval USEC` for each interval; prints the
# median wall times, the ratio to native and the samples recorded, and
# writes the table with the device name and date to
# benchmarks/results/pm_overhead_<gpu>_<date>.md.
#
#   benchmarks/pm_overhead.sh [-n RUNS] [-b BUILD_DIR] [-i "USEC ..."] [-o OUT.md] ["CMD ARGS" ...]
#
# Without commands: tests/gpu/td_phases (two 500 ms phases) and td_bench.
# Intervals default to "100 1000 10000" (10 kHz, 1 kHz, 100 Hz).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
runs=5
build="$root/build"
intervals="100 1000 10000"
out_md=""

die() { echo "pm_overhead.sh: $*" >&2; exit 2; }

while getopts "n:b:i:o:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        b) build=$OPTARG ;;
        i) intervals=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see pm_overhead.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"
for i in $intervals; do
    [[ $i =~ ^[1-9][0-9]*$ ]] || die "-i needs intervals in microseconds, got '$i'"
done
topdown=${TOPDOWN:-$build/topdown}
[ -x "$topdown" ] || die "topdown not found at $topdown; build it first (scripts/setup.sh)"
command -v python3 > /dev/null || die "python3 is needed for the table"

commands=("$@")
if [ ${#commands[@]} -eq 0 ]; then
    [ -x "$build/tests/gpu/td_phases" ] && commands+=("$build/tests/gpu/td_phases --ms 500")
    [ -x "$build/benchmarks/td_bench" ] && commands+=("$build/benchmarks/td_bench")
    [ ${#commands[@]} -gt 0 ] || die "no command given and neither td_phases nor td_bench is built"
fi

work=$(mktemp -d /tmp/td_pm_overhead.XXXXXX) || die "cannot make a temp folder"
trap 'rm -rf "$work"' EXIT
times="$work/times.tsv" # command index, mode, seconds, exit code, samples
: > "$times"

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }

for ci in "${!commands[@]}"; do
    read -r -a words <<< "${commands[$ci]}"
    for ((r = 0; r < runs; r++)); do
        t0=$(now); "${words[@]}" > /dev/null 2>&1; rc=$?; t1=$(now)
        printf "%s\tnative\t%s\t%s\t0\n" "$ci" "$(elapsed "$t0" "$t1")" "$rc" >> "$times"
        for us in $intervals; do
            res="$work/r_${ci}_${r}_${us}.json"
            t0=$(now); "$topdown" -f --no-progress --pm-interval "$us" -o "$res" -- "${words[@]}" \
                > /dev/null 2> "$work/err"; rc=$?; t1=$(now)
            samples=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(sum((x.get("pm_samples") or {}).get("samples",0) for x in d["devices"]))' "$res" 2>/dev/null || echo 0)
            printf "%s\tpm%s\t%s\t%s\t%s\n" "$ci" "$us" "$(elapsed "$t0" "$t1")" "$rc" \
                "$samples" >> "$times"
            [ "$rc" -eq 0 ] || { echo "pm_overhead.sh: topdown --pm-interval $us failed:" >&2; cat "$work/err" >&2; }
        done
    done
done

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
gpu=${gpu:-unknown GPU}
day=$(date +%Y-%m-%d)
[ -n "$out_md" ] || out_md="$here/results/pm_overhead_${gpu// /_}_${day}.md"

python3 - "$times" "$gpu" "$day" "$runs" "$intervals" "${commands[@]}" > "$out_md" <<'PY'
import statistics, sys
times, gpu, day, runs, intervals = sys.argv[1:6]
commands = sys.argv[6:]
rows = {}
for line in open(times):
    ci, mode, sec, rc, samples = line.rstrip("\n").split("\t")
    rows.setdefault((int(ci), mode), []).append((float(sec), int(rc), int(float(samples))))
modes = ["native"] + ["pm" + i for i in intervals.split()]
print(f"# PM-sampling overhead on {gpu}, {day}\n")
print(f"Median wall time of {runs} runs; `topdown --pm-interval USEC` against native "
      "(launches timed, no per-launch counters). Made by benchmarks/pm_overhead.sh.\n")
print("| command | " + " | ".join(m if m == "native" else f"--pm-interval {m[2:]}" for m in modes) + " |")
print("|---|" + "---|" * len(modes))
for ci, cmd in enumerate(commands):
    native = statistics.median(s for s, _, _ in rows.get((ci, "native"), [(float("nan"), 0, 0)]))
    cells = []
    for m in modes:
        got = rows.get((ci, m), [])
        if not got:
            cells.append("-")
            continue
        med = statistics.median(s for s, _, _ in got)
        failed = sum(1 for _, rc, _ in got if rc != 0)
        if m == "native":
            cells.append(f"{med:.3f} s")
        else:
            samples = statistics.median(n for _, _, n in got)
            cells.append(f"{med:.3f} s ({med / native:.2f}x, {samples:.0f} samples"
                         + (f", {failed} failed" if failed else "") + ")")
    print(f"| `{cmd}` | " + " | ".join(cells) + " |")
PY
cat "$out_md"
echo "pm_overhead.sh: written to $out_md" >&2
