#!/usr/bin/env bash
# What profiling costs: each command runs N times natively, under
# `topdown -l 1`, under `topdown -l 3`, and under `ncu --metrics <topdown's
# exact counter set>`; prints the median wall times, the ratios to native
# and to ncu, and the replay passes per kernel, and writes the table with
# the device name and date to benchmarks/results/overhead_<gpu>_<date>.md.
#
#   benchmarks/overhead.sh [-n RUNS] [-b BUILD_DIR] [-o OUT.md] ["CMD ARGS" ...]
#
# Without commands: the whole td_bench, then each of its designed kernels.
# A command is one argument, split into words at whitespace ("./app -x 3").
# Environment: TOPDOWN (default BUILD_DIR/topdown), TD_BENCH (default
# BUILD_DIR/benchmarks/td_bench), NCU (default ncu), NCU_ARGS (default
# "--clock-control none": topdown leaves the clocks alone, so ncu does too).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
runs=5
build="$root/build"
out_md=""

die() { echo "overhead.sh: $*" >&2; exit 2; }

while getopts "n:b:o:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        b) build=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see overhead.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"

topdown=${TOPDOWN:-$build/topdown}
bench=${TD_BENCH:-$build/benchmarks/td_bench}
ncu=${NCU:-ncu}
ncu_args=${NCU_ARGS:---clock-control none}
command -v python3 > /dev/null || die "python3 is needed for the table"

commands=("$@")
if [ ${#commands[@]} -eq 0 ]; then
    [ -x "$bench" ] || die "no command given and td_bench not found at $bench; build it (cmake --build $build --target td_bench) or set TD_BENCH"
    commands=("$bench")
    while IFS=$'\t' read -r name _node kind _; do
        [ "$kind" = default ] && commands+=("$bench --kernel $name")
    done < <("$bench" --list)
fi

have_topdown=1
[ -x "$topdown" ] || { echo "overhead.sh: topdown not found at $topdown: its columns stay empty" >&2; have_topdown=0; }
have_ncu=1
command -v "$ncu" > /dev/null || { echo "overhead.sh: $ncu not found: its columns stay empty" >&2; have_ncu=0; }

work=$(mktemp -d /tmp/td_overhead.XXXXXX) || die "cannot make a temp folder"
trap 'rm -rf "$work"' EXIT
times="$work/times.tsv"   # command index, mode, start, end, exit code
: > "$times"

now() { date +%s.%N; }

# time_run INDEX MODE CMD...: one timed run, output discarded.
time_run() {
    local idx=$1 mode=$2; shift 2
    local t0 t1 rc
    t0=$(now)
    "$@" > /dev/null 2> "$work/last.err"
    rc=$?
    t1=$(now)
    printf '%s\t%s\t%s\t%s\t%s\n' "$idx" "$mode" "$t0" "$t1" "$rc" >> "$times"
    if [ $rc -ne 0 ]; then
        echo "overhead.sh: [$mode] exit $rc: $*" >&2
        tail -n 3 "$work/last.err" >&2
    fi
}

# The counter set topdown collects: from its -l 3 result, else the arch
# table of the GPU (gh100 when it cannot be told).
metrics_of() {
    python3 - "$1" "$root/archs" <<'EOF'
import json, os, re, sys
names = []
try:
    with open(sys.argv[1]) as fh:
        for dev in json.load(fh).get("devices", []):
            names += [m for m in dev.get("metrics", []) if m not in names]
except (OSError, ValueError):
    pass
if not names:
    def walk(x):
        if isinstance(x, dict):
            for v in x.values(): yield from walk(v)
        elif isinstance(x, list):
            for v in x: yield from walk(v)
        elif isinstance(x, str) and re.fullmatch(r"[a-z0-9]+__[a-z0-9_]+\.[a-z_]+", x):
            yield x
    with open(os.path.join(sys.argv[2], "gh100.json")) as fh:
        for m in walk(json.load(fh)):
            if m not in names:
                names.append(m)
print(",".join(names))
EOF
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
gpu=${gpu:-unknown GPU}
echo "device: $gpu; $runs runs per mode; ${#commands[@]} commands" >&2

metric_list=""
for i in "${!commands[@]}"; do
    read -r -a cmd <<< "${commands[$i]}"
    echo "[$((i + 1))/${#commands[@]}] ${commands[$i]}" >&2
    for ((r = 0; r < runs; r++)); do
        time_run "$i" native "${cmd[@]}"
    done
    if [ $have_topdown -eq 1 ]; then
        for level in 1 3; do
            for ((r = 0; r < runs; r++)); do
                time_run "$i" "l$level" "$topdown" -l "$level" --no-progress -f \
                    -o "$work/r${i}_l$level.json" -- "${cmd[@]}"
            done
        done
    fi
    if [ $have_ncu -eq 1 ]; then
        [ -n "$metric_list" ] || metric_list=$(metrics_of "$work/r${i}_l3.json")
        for ((r = 0; r < runs; r++)); do
            # shellcheck disable=SC2086 # NCU_ARGS is a list of words
            time_run "$i" ncu "$ncu" $ncu_args --metrics "$metric_list" "${cmd[@]}"
        done
        # One untimed run for ncu's pass count (its own metric, no extra pass).
        # shellcheck disable=SC2086
        "$ncu" $ncu_args --csv --metrics "$metric_list,profiler__replayer_passes" \
            "${cmd[@]}" > "$work/ncu_passes_$i.csv" 2> /dev/null
    fi
done

date_utc=$(date -u +%Y-%m-%d)
slug=$(echo "$gpu" | tr -c 'A-Za-z0-9\n' '_' | sed 's/__*/_/g; s/_$//')
[ -n "$out_md" ] || out_md="$here/results/overhead_${slug}_${date_utc}.md"
mkdir -p "$(dirname "$out_md")"

python3 - "$work" "$runs" "$gpu" "$date_utc" "$metric_list" "${commands[@]}" > "$out_md" <<'EOF'
import csv, glob, io, json, os, statistics, sys

work, runs, gpu, day, metric_list = sys.argv[1:6]
commands = sys.argv[6:]
times = {}
failed = set()
with open(os.path.join(work, "times.tsv")) as fh:
    for idx, mode, t0, t1, rc in csv.reader(fh, delimiter="\t"):
        times.setdefault((int(idx), mode), []).append(float(t1) - float(t0))
        if rc != "0":
            failed.add((int(idx), mode))

def med(i, mode):
    v = times.get((i, mode))
    return statistics.median(v) if v else None

def td_passes(i, level):
    try:
        with open(os.path.join(work, "r%d_l%d.json" % (i, level))) as fh:
            devs = json.load(fh).get("devices", [])
        return "/".join(sorted({str(d.get("passes", "?")) for d in devs})) or "-"
    except (OSError, ValueError):
        return "-"

def ncu_passes(i):
    try:
        with open(os.path.join(work, "ncu_passes_%d.csv" % i)) as fh:
            lines = [ln for ln in fh if ln.startswith('"')]
    except OSError:
        return "-"
    found = set()
    for row in csv.DictReader(io.StringIO("".join(lines))):
        if row.get("Metric Name") == "profiler__replayer_passes":
            found.add(row.get("Metric Value", "?").replace(",", ""))
    return "/".join(sorted(found, key=lambda s: (len(s), s))) or "-"

def cell(v, i, mode):
    if v is None:
        return "n/a"
    return ("%.3f" % v) + (" (failed)" if (i, mode) in failed else "")

def ratio(a, b):
    return "%.2fx" % (a / b) if a is not None and b else "n/a"

print("# Profiling overhead on %s (%s)\n" % (gpu, day))
print("Median wall time of %s runs per mode, in seconds, whole process (CUDA start-up "
      "included). `x nat`: ratio to native; `x ncu`: ratio to `ncu --metrics` with "
      "topdown's counter set. Passes: replay passes per kernel (topdown -l 1 / -l 3 / "
      "ncu). Targets (issue 4): topdown -l 3 at most 5x native and at most 0.5x ncu.\n" % runs)
print("| command | native | topdown -l 1 | x nat | topdown -l 3 | x nat | x ncu | ncu | x nat | passes l1/l3/ncu |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for i, cmd in enumerate(commands):
    nat, l1, l3, nc = (med(i, m) for m in ("native", "l1", "l3", "ncu"))
    short = " ".join(os.path.basename(w) if "/" in w else w for w in cmd.split())
    print("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s |" % (
        short, cell(nat, i, "native"), cell(l1, i, "l1"), ratio(l1, nat),
        cell(l3, i, "l3"), ratio(l3, nat), ratio(l3, nc), cell(nc, i, "ncu"),
        ratio(nc, nat), td_passes(i, 1), td_passes(i, 3), ncu_passes(i)))
print("\nncu counter set (%d metrics): `%s`\n" % (len(metric_list.split(",")) if metric_list else 0,
                                              metric_list or "n/a"))
print("<details><summary>all runs (s)</summary>\n")
for (i, mode), v in sorted(times.items()):
    print("- `%s` %s: %s" % (commands[i], mode, ", ".join("%.3f" % x for x in v)))
print("\n</details>")
EOF
cat "$out_md"
echo "written: $out_md" >&2
