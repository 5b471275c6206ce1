#!/usr/bin/env bash
# What the periodic timeline (--sample-every) costs over a long run: a
# 20,000-launch td_stencil (10,000 iterations: heat_stencil and
# heat_boundary 10,000 times each) runs natively and under topdown with
# each --sample-every setting, in replay modes none and auto; prints the
# median wall times, the ratio to native (target: at most 1.5x), launches
# and profiled launches, and the timeline of heat_stencil: its points, the
# first and last invocation they cover, and its phases; writes the table
# with the GPU name and date to benchmarks/results/sample_every_<gpu>_<date>.md.
#
#   benchmarks/sample_every.sh [-n RUNS] [-o OUT.md] [-s "SETTINGS"] ["CMD ARGS" ...]
#
#   -n RUNS       runs per mode (default 3); the median is reported
#   -s SETTINGS   the --sample-every values, space-separated
#                 (default "500 2000 5000 20ms")
#   -o OUT.md     the table's file (default benchmarks/results/sample_every_<gpu>_<date>.md)
#
# Without commands: "td_stencil --iters 10000" (20,204 launches) and
# "td_stencil --iters 10000 --n 4096" (the same launches, 4x the work
# each). A command's first word found as BUILD/benchmarks/WORD runs from
# there. Environment: TOPDOWN (default BUILD/topdown), BUILD (default build).
# Needs a GPU; a run that fails is reported as failed and the script goes on.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
runs=3
settings="500 2000 5000 20ms"
out_md=""

die() { echo "sample_every.sh: $*" >&2; exit 2; }

while getopts "n:s:o:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        s) settings=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see sample_every.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"
command -v python3 > /dev/null || die "python3 is needed for the table"
cd "$root" || die "cannot enter $root"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"

commands=("$@")
[ ${#commands[@]} -gt 0 ] || commands=("td_stencil --iters 10000" "td_stencil --iters 10000 --n 4096")

work=$(mktemp -d /tmp/td_sample_every.XXXXXX) || die "cannot make a temp folder"
trap 'rm -rf "$work"' EXIT
runs_tsv="$work/runs.tsv" # idx, mode, setting, run, seconds, rc, launches, profiled
: > "$runs_tsv"

resolve() {
    if [[ $1 != */* ]] && [ -x "$build/benchmarks/$1" ]; then echo "$build/benchmarks/$1"; else echo "$1"; fi
}

# "launches profiled" from topdown's closing line in the stderr file.
closing() {
    local line
    line=$(grep -E '^topdown: result saved to .* \([0-9]+ launches, [0-9]+ profiled' "$1" | tail -n 1)
    if [[ $line =~ \(([0-9]+)\ launches,\ ([0-9]+)\ profiled ]]; then
        echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
    else
        echo "- -"
    fi
}

# one_run IDX MODE SETTING R CMD...: native, or topdown --replay-mode MODE
# --sample-every SETTING (the last run's result kept as r<IDX>_<MODE>_<SETTING>.json).
one_run() {
    local idx=$1 mode=$2 setting=$3 r=$4; shift 4
    local tag="r${idx}_${mode}_${setting}"
    local err="$work/$tag.err" json="$work/$tag.json" t0 t1 rc
    t0=$(date +%s.%N)
    if [ "$mode" = native ]; then
        "$@" > /dev/null 2> "$err"
    else
        "$topdown" --no-progress --replay-mode "$mode" --sample-every "$setting" -f -o "$json" \
            -- "$@" > /dev/null 2> "$err"
    fi
    rc=$?
    t1=$(date +%s.%N)
    local counts="- -"
    [ "$mode" = native ] || counts=$(closing "$err")
    read -r launches profiled <<< "$counts"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$idx" "$mode" "$setting" "$r" \
        "$(python3 -c "print('%.6f' % ($t1 - $t0))")" "$rc" "$launches" "$profiled" >> "$runs_tsv"
    if [ "$rc" -ne 0 ]; then
        echo "sample_every.sh: [$mode $setting] exit $rc: $*" >&2
        tail -n 3 "$err" >&2
    fi
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
gpu=${gpu:-unknown GPU}
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2> /dev/null | head -n 1)
commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null)
about="$("$topdown" --version 2> /dev/null | head -n 1) (commit ${commit:-?}), driver ${driver:-?}"
echo "device: $gpu; $runs runs per mode; settings: $settings" >&2

for i in "${!commands[@]}"; do
    read -r -a cmd <<< "${commands[$i]}"
    cmd[0]=$(resolve "${cmd[0]}")
    echo "[$((i + 1))/${#commands[@]}] ${commands[$i]}" >&2
    for ((r = 0; r < runs; r++)); do one_run "$i" native - "$r" "${cmd[@]}"; done
    for mode in none auto; do
        for setting in $settings; do
            echo "  $mode --sample-every $setting" >&2
            for ((r = 0; r < runs; r++)); do one_run "$i" "$mode" "$setting" "$r" "${cmd[@]}"; done
            json="$work/r${i}_${mode}_${setting}.json"
            if [ -f "$json" ]; then
                "$topdown" report "$json" --timeline heat_stencil > "$work/r${i}_${mode}_${setting}.timeline" \
                    2>&1 || echo "sample_every.sh: report --timeline failed ($mode $setting)" >&2
            fi
        done
    done
done

date_utc=$(date -u +%Y-%m-%d)
slug=$(echo "$gpu" | tr -c 'A-Za-z0-9\n' '_' | sed 's/__*/_/g; s/_$//')
[ -n "$out_md" ] || out_md="$here/results/sample_every_${slug}_${date_utc}.md"
mkdir -p "$(dirname "$out_md")"

python3 - "$work" "$gpu" "$date_utc" "$about" "$settings" "${commands[@]}" > "$out_md" <<'EOF'
import csv, os, re, statistics, sys

work, gpu, day, about, settings = sys.argv[1:6]
commands = sys.argv[6:]
rows = {}
with open(os.path.join(work, "runs.tsv")) as fh:
    for idx, mode, setting, r, secs, rc, launches, profiled in csv.reader(fh, delimiter="\t"):
        rows.setdefault((int(idx), mode, setting), []).append(
            dict(secs=float(secs), rc=int(rc), launches=launches, profiled=profiled))

def timeline(idx, mode, setting):
    """points, first..last invocation of the points, phases."""
    path = os.path.join(work, "r%d_%s_%s.timeline" % (idx, mode, setting))
    if not os.path.exists(path):
        return "-", "-", "-"
    text = open(path).read()
    invs = [int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+\d+\s+[\d.]+\s", text, re.M)]
    m = re.search(r"^Phases: (\d+)", text, re.M)
    inv = re.search(r"(\d+) invocations?,", text)
    span = "%d..%d of %s" % (invs[0], invs[-1], inv.group(1) if inv else "?") if invs else "-"
    return str(len(invs)), span, m.group(1) if m else "-"

print("# --sample-every over a 20,000-launch run on %s (%s)\n" % (gpu, day))
print("%s. `benchmarks/sample_every.sh`: median wall time of the runs, whole process "
      "(CUDA start-up included); `x native`: ratio to the native median (target <= 1.5x); "
      "timeline: `topdown report RESULT --timeline heat_stencil`, its points (each "
      "combining consecutive invocations that measured every counter group), the "
      "invocations they span, its phases.\n" % about)
print("| workload | mode | --sample-every | wall s | x native | launches | profiled | points | span | phases |")
print("|---|---|---|---:|---:|---:|---:|---:|---|---:|")
for idx, command in enumerate(commands):
    native = rows.get((idx, "native", "-"), [])
    ok = [r["secs"] for r in native if r["rc"] == 0]
    base = statistics.median(ok) if ok else None
    print("| `%s` | native | | %s | 1.00x | | | | | |" % (command, "%.3f" % base if base else "failed"))
    for mode in ("none", "auto"):
        for setting in settings.split():
            runs = rows.get((idx, mode, setting), [])
            good = [r["secs"] for r in runs if r["rc"] == 0]
            if not good:
                print("| | %s | %s | failed | | | | | | |" % (mode, setting))
                continue
            med = statistics.median(good)
            last = runs[-1]
            points, span, phases = timeline(idx, mode, setting)
            print("| | %s | %s | %.3f | %s | %s | %s | %s | %s | %s |" % (
                mode, setting, med, "%.2fx" % (med / base) if base else "-",
                last["launches"], last["profiled"], points, span, phases))
print("\n<details><summary>all runs (s)</summary>\n")
for (idx, mode, setting), runs in sorted(rows.items()):
    print("- `%s` %s %s: %s" % (commands[idx], mode, setting,
                                ", ".join("%.3f%s" % (r["secs"], "" if r["rc"] == 0 else " (exit %d)" % r["rc"]) for r in runs)))
print("\n</details>")
EOF
echo "sample_every.sh: wrote $out_md" >&2
cat "$out_md"
