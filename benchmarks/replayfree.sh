#!/usr/bin/env bash
# What replay-free collection costs and what it yields: each workload runs N
# times natively and under `topdown -l 3` in the default mode (auto), with
# `--replay-mode none` and with `--replay-mode kernel` (skipped for workloads
# of more than LIMIT launches); prints median wall times, ratios to native,
# launches and profiled launches, result file size, and how many kernels
# holding >= 1% of GPU time got a full level-3 tree; writes the table with
# the GPU name and date to benchmarks/results/replayfree_<gpu>_<date>.md.
#
#   benchmarks/replayfree.sh [-n RUNS] [-k LIMIT] [-t SECONDS] [-o OUT.md] ["CMD ARGS" ...]
#
#   -n RUNS     runs per mode (default 3); the median is reported
#   -k LIMIT    skip kernel mode above LIMIT launches (default 20000)
#   -t SECONDS  kill a run after SECONDS (default 0: no limit)
#   -o OUT.md   the table's file (default benchmarks/results/replayfree_<gpu>_<date>.md)
#
# Without commands: td_bench, "td_bench --reps 50", "tests/gpu/td_smoke
# --repeat 20000", td_stencil, td_manykernels, and "python3
# benchmarks/pytorch_mlp.py" when python3 can import torch. A command is one
# argument, split at whitespace; a first word found as BUILD/benchmarks/WORD
# or BUILD/WORD runs from there. Commands run from the repository root.
# Environment: TOPDOWN (default BUILD/topdown), BUILD (default build);
# LD_LIBRARY_PATH and the rest of the environment pass through untouched.
# A run that fails is reported as failed and the script goes on.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
runs=3
limit=20000
tlimit=0
out_md=""

die() { echo "replayfree.sh: $*" >&2; exit 2; }

while getopts "n:k:t:o:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        k) limit=$OPTARG ;;
        t) tlimit=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see replayfree.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"
[[ $limit =~ ^[0-9]+$ ]] || die "-k needs a number of launches, got '$limit'"
[[ $tlimit =~ ^[0-9]+$ ]] || die "-t needs a number of seconds, got '$tlimit'"
command -v python3 > /dev/null || die "python3 is needed for the table"
if [ "$tlimit" -gt 0 ]; then
    command -v timeout > /dev/null || die "-t needs the timeout command (coreutils)"
fi

cd "$root" || die "cannot enter $root"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"

commands=("$@")
if [ ${#commands[@]} -eq 0 ]; then
    commands=("td_bench" "td_bench --reps 50" "tests/gpu/td_smoke --repeat 20000"
              "td_stencil" "td_manykernels")
    if python3 -c 'import torch' > /dev/null 2>&1; then
        commands+=("python3 benchmarks/pytorch_mlp.py")
    else
        echo "replayfree.sh: python3 cannot import torch: pytorch_mlp.py left out" >&2
    fi
fi

work=$(mktemp -d /tmp/td_replayfree.XXXXXX) || die "cannot make a temp folder"
trap 'rm -rf "$work"' EXIT
runs_tsv="$work/runs.tsv" # idx, mode, run, seconds, rc, launches, profiled, passes, bytes
: > "$runs_tsv"

now() { date +%s.%N; }

# resolve WORD: the executable a command's first word names.
resolve() {
    local w=$1
    if [[ $w != */* ]] && [ -x "$build/benchmarks/$w" ]; then
        echo "$build/benchmarks/$w"
    elif [[ $w == */* ]] && [ ! -e "$w" ] && [ -x "$build/$w" ]; then
        echo "$build/$w"
    else
        echo "$w"
    fi
}

# closing FILE: "launches profiled passes" from topdown's closing line in
# the stderr FILE ('topdown: result saved to F (L launches, P profiled, N
# replay passes)'), or "- - -".
closing() {
    local line
    line=$(grep -E '^topdown: result saved to .* \([0-9]+ launches, [0-9]+ profiled' "$1" | tail -n 1)
    if [[ $line =~ \(([0-9]+)\ launches,\ ([0-9]+)\ profiled,\ ([0-9]+)\ replay ]]; then
        echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
    elif [[ $line =~ \(([0-9]+)\ launches,\ ([0-9]+)\ profiled ]]; then
        echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} -"
    else
        echo "- - -"
    fi
}

# one_run IDX MODE R CMD...: one timed run; for topdown modes the result goes
# to $work/r<IDX>_<MODE>.json (the last run's is kept) and topdown's stderr
# to $work/r<IDX>_<MODE>.err.
one_run() {
    local idx=$1 mode=$2 r=$3; shift 3
    local err="$work/r${idx}_${mode}.err" json="$work/r${idx}_${mode}.json"
    local t0 t1 rc pre=()
    [ "$tlimit" -gt 0 ] && pre=(timeout -k 10 "$tlimit")
    rm -f "$json"
    t0=$(now)
    case $mode in
        native) "${pre[@]}" "$@" > /dev/null 2> "$err" ;;
        auto)   "${pre[@]}" "$topdown" -l 3 --no-progress -f -o "$json" -- "$@" > /dev/null 2> "$err" ;;
        *)      "${pre[@]}" "$topdown" -l 3 --no-progress --replay-mode "$mode" -f -o "$json" \
                    -- "$@" > /dev/null 2> "$err" ;;
    esac
    rc=$?
    t1=$(now)
    local counts="- - -" bytes="-"
    if [ "$mode" != native ]; then
        counts=$(closing "$err")
        [ -f "$json" ] && bytes=$(wc -c < "$json" | tr -d ' ')
    fi
    local secs
    secs=$(python3 -c "print('%.6f' % ($t1 - $t0))")
    read -r launches profiled passes <<< "$counts"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$idx" "$mode" "$r" "$secs" "$rc" \
        "$launches" "$profiled" "$passes" "$bytes" >> "$runs_tsv"
    if [ "$rc" -ne 0 ]; then
        echo "replayfree.sh: [$mode] exit $rc: $*" >&2
        tail -n 3 "$err" >&2
    fi
    return "$rc"
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
gpu=${gpu:-unknown GPU}
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2> /dev/null | head -n 1)
tdver=$("$topdown" --version 2> /dev/null | head -n 1)
commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null)
about="${tdver:-topdown ?} (commit ${commit:-?}), driver ${driver:-?}, $(nproc 2> /dev/null || echo ?) CPUs"
echo "device: $gpu; $runs runs per mode; ${#commands[@]} workloads; topdown $topdown" >&2

for i in "${!commands[@]}"; do
    read -r -a cmd <<< "${commands[$i]}"
    [ ${#cmd[@]} -gt 0 ] || continue
    cmd[0]=$(resolve "${cmd[0]}")
    echo "[$((i + 1))/${#commands[@]}] ${commands[$i]}" >&2
    max_launches=""
    for mode in native auto none kernel; do
        if [ "$mode" = kernel ]; then
            if [ -z "$max_launches" ]; then
                echo "replayfree.sh: kernel mode skipped: the launch count is unknown" >&2
                printf '%s\tkernel\tskip\tunknown launches\n' "$i" >> "$work/skipped.tsv"
                continue
            fi
            if [ "$max_launches" -gt "$limit" ]; then
                echo "replayfree.sh: kernel mode skipped: $max_launches launches > $limit" >&2
                printf '%s\tkernel\tskip\t%s launches > %s\n' "$i" "$max_launches" "$limit" >> "$work/skipped.tsv"
                continue
            fi
        fi
        echo "  $mode" >&2
        for ((r = 0; r < runs; r++)); do
            one_run "$i" "$mode" "$r" "${cmd[@]}"
            if [ "$mode" != native ]; then
                read -r l _ _ <<< "$(closing "$work/r${i}_${mode}.err")"
                if [[ $l =~ ^[0-9]+$ ]] && { [ -z "$max_launches" ] || [ "$l" -gt "$max_launches" ]; }; then
                    max_launches=$l
                fi
            fi
        done
        if [ "$mode" != native ] && [ -f "$work/r${i}_${mode}.json" ]; then
            "$topdown" report "$work/r${i}_${mode}.json" -l 3 --kernels 0 --no-desc \
                > "$work/r${i}_${mode}.report" 2> "$work/r${i}_${mode}.report.err" ||
                echo "replayfree.sh: topdown report failed on the $mode result of ${commands[$i]}" >&2
        fi
    done
done

date_utc=$(date -u +%Y-%m-%d)
slug=$(echo "$gpu" | tr -c 'A-Za-z0-9\n' '_' | sed 's/__*/_/g; s/_$//')
[ -n "$out_md" ] || out_md="$here/results/replayfree_${slug}_${date_utc}.md"
mkdir -p "$(dirname "$out_md")"

python3 - "$work" "$runs" "$gpu" "$date_utc" "$limit" "$about" "${commands[@]}" > "$out_md" <<'EOF'
import csv, os, re, statistics, sys

work, runs, gpu, day, limit, about = sys.argv[1:7]
commands = sys.argv[7:]
MODES = ("auto", "none", "kernel")
rows = {}
with open(os.path.join(work, "runs.tsv")) as fh:
    for idx, mode, r, secs, rc, launches, profiled, passes, size in csv.reader(fh, delimiter="\t"):
        rows.setdefault((int(idx), mode), []).append(
            dict(secs=float(secs), rc=int(rc), launches=launches, profiled=profiled,
                 passes=passes, size=size))
skipped = {}
try:
    with open(os.path.join(work, "skipped.tsv")) as fh:
        for idx, mode, _, why in csv.reader(fh, delimiter="\t"):
            skipped[(int(idx), mode)] = why
except OSError:
    pass

KERNEL = re.compile(r"^Kernel \d+/\d+: (.*)$")
SHARE = re.compile(r"([0-9.]+)% of GPU time")

def trees(i, mode):
    """(full, heavy): kernels holding >= 1% of GPU time, and those of them
    with a full level-3 tree: data ('time counted only' absent), no
    'incomplete rotation' note, at least one '% Slots' line."""
    try:
        with open(os.path.join(work, "r%d_%s.report" % (i, mode))) as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    sections, cur = [], None
    for ln in lines:
        if KERNEL.match(ln):
            cur = []
            sections.append(cur)
        elif cur is not None:
            cur.append(ln)
    heavy = full = 0
    for sec in sections:
        m = SHARE.search(sec[0]) if sec else None
        if not m or float(m.group(1)) < 1.0:
            continue
        heavy += 1
        text = "\n".join(sec)
        if "time counted only" in text or "incomplete rotation" in text:
            continue
        if any("% Slots" in ln for ln in sec):
            full += 1
    return full, heavy

def med(v):
    return statistics.median(v) if v else None

def fmt_size(b):
    if not b or b == "-":
        return "-"
    b = int(b)
    if b >= 1e6:
        return "%.1f MB" % (b / 1e6)
    return "%.0f kB" % (b / 1e3) if b >= 1e3 else "%d B" % b

def last(vals):
    vals = [v for v in vals if v not in ("-", "")]
    return vals[-1] if vals else "-"

def num(s):
    return "{:,}".format(int(s)) if s not in ("-", "") else "-"

print("# Replay-free collection on %s (%s)\n" % (gpu, day))
print("%s.\n" % about)
print("Median wall time of %s runs per mode, in seconds, whole process (CUDA start-up "
      "included); `x native`: ratio to the native median. Modes: `auto` is topdown's "
      "default (`topdown -l 3`), `none` and `kernel` are `--replay-mode none|kernel`; "
      "kernel mode is skipped above %s launches. Launches, profiled launches and replay "
      "passes from topdown's closing line (last run); size of the last run's result file. "
      "`full L3 / >=1%%`: kernels holding at least 1%% of GPU time, and how many of them "
      "have a full level-3 tree in `topdown report -l 3 --kernels 0` (counters, no "
      "'incomplete rotation' note). A mode with a failed run is marked `failed`.\n"
      % (runs, limit))
print("| workload | mode | wall s | x native | launches | profiled | passes | result | full L3 / >=1% |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for i, cmd in enumerate(commands):
    short = " ".join(os.path.basename(w) if "/" in w and k == 0 else w
                     for k, w in enumerate(cmd.split()))
    nat_runs = rows.get((i, "native"), [])
    nat = med([r["secs"] for r in nat_runs])
    nat_bad = sorted({r["rc"] for r in nat_runs if r["rc"] != 0})
    cell = "n/a" if nat is None else "%.3f%s" % (
        nat, " (failed: exit %s)" % ",".join(map(str, nat_bad)) if nat_bad else "")
    print("| `%s` | native | %s | 1.00x | | | | | |" % (short, cell))
    for mode in MODES:
        if (i, mode) in skipped:
            print("| | %s | skipped (%s) | | | | | | |" % (mode, skipped[(i, mode)]))
            continue
        rr = rows.get((i, mode), [])
        if not rr:
            continue
        t = med([r["secs"] for r in rr])
        bad = [r["rc"] for r in rr if r["rc"] != 0]
        wall = "%.3f" % t + (" (failed: exit %s)" % ",".join(map(str, sorted(set(bad)))) if bad else "")
        ratio = "%.2fx" % (t / nat) if nat else "n/a"
        tr = trees(i, mode)
        trc = "%d / %d" % tr if tr else "-"
        print("| | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            mode, wall, ratio, num(last([r["launches"] for r in rr])),
            num(last([r["profiled"] for r in rr])), last([r["passes"] for r in rr]),
            fmt_size(last([r["size"] for r in rr])), trc))
print("\n<details><summary>all runs (s)</summary>\n")
for (i, mode), rr in sorted(rows.items()):
    print("- `%s` %s: %s" % (commands[i], mode,
                             ", ".join("%.3f%s" % (r["secs"], "" if r["rc"] == 0 else " (exit %d)" % r["rc"])
                                       for r in rr)))
print("\n</details>")
EOF
cat "$out_md"
echo "written: $out_md" >&2
