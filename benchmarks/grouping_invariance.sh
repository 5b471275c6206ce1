#!/usr/bin/env bash
# Grouping invariance (issue 11, item 2): does the tree depend on how the
# counters are split into passes? Each workload is measured with the arch
# table's own counter groups and with another valid grouping (the stall
# reasons shuffled by SEED, first fit into one-pass groups by
# `td_arch_groups --shuffle`, and the table's stall order shuffled too, so
# kernel replay schedules other passes), in both collection modes:
#   kernel: --replay-mode kernel --per-kernel P (every pass replayed)
#   none:   --replay-mode none --overhead unlimited (one group per launch)
# and once more with the table's grouping, to set the grouping effect
# against run-to-run noise. For each workload, mode and kernel: the largest
# node difference to level 3 (points of issue slots), from `topdown diff
# --csv`. Writes benchmarks/results/grouping_invariance_<gpu>_<date>.md.
#
#   benchmarks/grouping_invariance.sh [-s SEED] [-p PER_KERNEL] [-o OUT.md] ["CMD ARGS" ...]
#
#   -s SEED        the shuffle (default 7)
#   -p PER_KERNEL  launches profiled per kernel in kernel mode (default 5)
#   -o OUT.md      the table (default benchmarks/results/grouping_invariance_<gpu>_<date>.md)
#
# Without commands: "td_bench --reps 25" and "tests/gpu/td_smoke --repeat 30"
# (first word looked up as BUILD/benchmarks/WORD or BUILD/WORD). Every run
# uses --cache-control none --clock-control none unless TD_OPTS says
# otherwise (e.g. TD_OPTS="--cache-control all --clock-control base").
# Environment: TOPDOWN (default BUILD/topdown), BUILD (default build).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
seed=7
per_kernel=5
out_md=""

die() { echo "grouping_invariance.sh: $*" >&2; exit 2; }

while getopts "s:p:o:h" opt; do
    case $opt in
        s) seed=$OPTARG ;;
        p) per_kernel=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see grouping_invariance.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[[ $seed =~ ^[0-9]+$ ]] || die "-s needs a number, got '$seed'"
[[ $per_kernel =~ ^[1-9][0-9]*$ ]] || die "-p needs a positive number, got '$per_kernel'"
command -v python3 > /dev/null || die "python3 is needed for the table"
cd "$root" || die "cannot enter $root"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
groups_tool=$build/tests/td_arch_groups
td_opts=${TD_OPTS:---cache-control none --clock-control none}
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"
[ -x "$groups_tool" ] || die "$groups_tool not found; build it (cmake --build $build --target td_arch_groups)"
nvidia-smi -L > /dev/null 2>&1 || die "no GPU here (nvidia-smi -L failed)"

commands=("$@")
if [ ${#commands[@]} -eq 0 ]; then
    commands=("td_bench --reps 25" "tests/gpu/td_smoke --repeat 30")
fi

work=$(mktemp -d /tmp/td_grouping.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

# The shuffled tables: every range-profiler table with groups gets the
# grouping td_arch_groups derives from the shuffled order (a table whose
# chip the host API does not know keeps its own).
mkdir -p "$work/archs"
for table in archs/*.json; do
    name=$(basename "$table")
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get('groups') else 1)" "$table" &&
       "$groups_tool" --shuffle "$seed" "$table" > "$work/$name.groups" 2> "$work/$name.err"; then
        python3 - "$table" "$work/$name.groups" "$seed" "$work/archs/$name" <<'PY'
import json, random, sys
table, groups, seed, out = sys.argv[1:5]
d = json.load(open(table))
d["groups"] = json.load(open(groups))
random.Random(int(seed)).shuffle(d["stalls"])   # other kernel-replay passes
d.pop("passes", None)                           # no longer the table's count
json.dump(d, open(out, "w"), indent=1)
PY
    else
        cp "$table" "$work/archs/$name"
    fi
done

resolve() {
    local word=$1
    for cand in "$build/benchmarks/$word" "$build/$word" "$word"; do
        [ -x "$cand" ] && { echo "$cand"; return; }
    done
    echo "$word"
}

# run LABEL ARCHS MODE CMD...: one result, LABEL.json in $work.
run() {
    local label=$1 archs=$2 mode=$3
    shift 3
    local mode_opts="--replay-mode kernel --per-kernel $per_kernel"
    [ "$mode" = none ] && mode_opts="--replay-mode none --overhead unlimited"
    # shellcheck disable=SC2086
    TOPDOWN_ARCHS=$archs "$topdown" $td_opts $mode_opts --no-progress -f \
        -o "$work/$label.json" -- "$@" > "$work/$label.out" 2> "$work/$label.err"
}

rows=()
for cmd in "${commands[@]}"; do
    read -r -a words <<< "$cmd"
    words[0]=$(resolve "${words[0]}")
    tag=$(basename "${words[0]}")
    for mode in kernel none; do
        base="$tag.$mode"
        ok=1
        run "$base.table" "$root/archs" "$mode" "${words[@]}" || ok=0
        run "$base.table2" "$root/archs" "$mode" "${words[@]}" || ok=0
        run "$base.shuffled" "$work/archs" "$mode" "${words[@]}" || ok=0
        if [ $ok = 0 ]; then
            rows+=("$cmd|$mode|FAILED (see stderr of the runs)")
            continue
        fi
        if grep -q "cannot be collected without replay" "$work/$base.shuffled.err" "$work/$base.shuffled.out"; then
            rows+=("$cmd|$mode|the shuffled grouping needed replay on this GPU: try another -s")
            continue
        fi
        "$topdown" diff "$work/$base.table.json" "$work/$base.shuffled.json" -l 3 \
            --csv "$work/$base.grouping.csv" -f > /dev/null 2>&1
        "$topdown" diff "$work/$base.table.json" "$work/$base.table2.json" -l 3 \
            --csv "$work/$base.noise.csv" -f > /dev/null 2>&1
        rows+=("$cmd|$mode|$work/$base.grouping.csv|$work/$base.noise.csv")
    done
done

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
date=$(date -u +%Y-%m-%d)
[ -n "$out_md" ] || out_md="benchmarks/results/grouping_invariance_${gpu}_${date}.md"

python3 - "$out_md" "$seed" "$td_opts" "$gpu" "$date" "${rows[@]}" <<'PY'
import csv, math, sys
out, seed, opts, gpu, date = sys.argv[1:6]
rows = sys.argv[6:]

def largest(path):
    """Per kernel (both sides): the largest |B-A| over the node columns."""
    worst = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["in"] != "both":
                continue
            best, node = 0.0, "-"
            for k, v in r.items():
                if not k.startswith("diff:") or v in ("", None):
                    continue
                x = abs(float(v))
                if math.isfinite(x) and x > best:
                    best, node = x, k[5:]
            worst[r["kernel"]] = (best, node)
    return worst

lines = [f"# Grouping invariance on {gpu.replace('_', ' ')}, {date}", "",
         "`benchmarks/grouping_invariance.sh` (issue 11, item 2): each workload measured with "
         "the arch table's counter groups (A), again with them (run-to-run noise), and with "
         f"another valid grouping (stall reasons shuffled with seed {seed}, first fit into "
         "one-pass groups; the table's stall order shuffled too, so kernel replay schedules "
         "other passes). Largest node difference to level 3, in points of issue slots "
         f"(`topdown diff --csv`). Options: `{opts}`.", "",
         "| workload | mode | kernel | grouping: largest difference (node) | run to run: largest difference (node) |",
         "|---|---|---|---|---|"]
summary = {}
for row in rows:
    parts = row.split("|")
    if len(parts) != 4:
        lines.append(f"| `{parts[0]}` | {parts[1]} | - | {parts[2]} | - |")
        continue
    cmd, mode, grouping, noise = parts
    g, n = largest(grouping), largest(noise)
    for kernel in sorted(g, key=lambda k: -g[k][0]):
        gv, gn = g[kernel]
        nv, nn = n.get(kernel, (float("nan"), "-"))
        lines.append(f"| `{cmd}` | {mode} | `{kernel[:60]}` | {gv:.2f} ({gn}) | {nv:.2f} ({nn}) |")
        s = summary.setdefault(mode, [0.0, 0.0])
        s[0] = max(s[0], gv)
        if math.isfinite(nv):
            s[1] = max(s[1], nv)
lines += ["", "| mode | largest grouping difference | largest run-to-run difference |", "|---|---|---|"]
for mode, (gv, nv) in sorted(summary.items()):
    lines.append(f"| {mode} | {gv:.2f} points | {nv:.2f} points |")
lines += ["", "Target (issue 11): trees within 1 point whatever the grouping."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"\nwritten: {out}")
PY
