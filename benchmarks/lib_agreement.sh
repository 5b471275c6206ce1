#!/usr/bin/env bash
# Agreement on kernels nobody here wrote (issue 11, item 4): the CUDA
# toolkit's library kernels of td_libs (cuBLAS, cuFFT, cuSPARSE, CUB,
# Thrust, cuRAND), measured by topdown and by ncu under the same conditions,
# both trees built by topdown's own model:
#   topdown --replay-mode kernel --overhead unlimited --cache-control C
#           --clock-control K -- td_libs --reps R          (every launch, full set)
#   ncu --cache-control C --clock-control K --metrics <the result's metrics>
#       --csv --print-units base --print-kernel-base mangled td_libs --reps R
#   benchmarks/ncu_to_spool.py + topdown import-spool: ncu's raw counters as
#       a topdown result
#   topdown diff TOPDOWN.json NCU.json -l 3 --csv: every node of every kernel
# and writes benchmarks/results/lib_agreement_<gpu>_<date>.md: per kernel,
# the largest node difference and the bottleneck of each side; per kernel
# and node (levels 1 to 3), the difference in points of issue slots; and,
# for the kernels beyond the target, the raw counters that differ most
# (sums over the kernel's launches), which explain the difference.
# Target: within 2 points on every node of every kernel.
#
#   benchmarks/lib_agreement.sh [-a APP] [-c all|none] [-k base|none] [-r REPS] [-t POINTS] [-o OUT.md]
#
#   -a  the app of build/benchmarks (default td_libs; td_bench: the designed
#       kernels, bar 08 of issue 39), run with --reps R only if td_libs
#   -c  cache control for both tools (default none)
#   -k  clock control for both tools (default none; base needs root)
#   -r  td_libs --reps (default 3)
#   -t  the target in points (default 2)
#   -o  the table (default benchmarks/results/lib_agreement_<gpu>_<date>.md)
#
# Environment: TOPDOWN (default BUILD/topdown), BUILD (default build), NCU
# (default ncu), KEEP (a folder for the raw files; default a temporary one).
# Needs a GPU, ncu, python3 and c++filt.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cache=none
clock=none
reps=3
target=2
app_name=td_libs
out_md=""

die() { echo "lib_agreement.sh: $*" >&2; exit 2; }

while getopts "a:c:k:r:t:o:h" opt; do
    case $opt in
        a) app_name=$OPTARG ;;
        c) cache=$OPTARG ;;
        k) clock=$OPTARG ;;
        r) reps=$OPTARG ;;
        t) target=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see lib_agreement.sh -h" ;;
    esac
done
[[ $cache =~ ^(all|none)$ ]] || die "-c takes all or none, not '$cache'"
[[ $clock =~ ^(base|none)$ ]] || die "-k takes base or none, not '$clock'"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-r needs a positive number, got '$reps'"
[[ $target =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "-t needs a number of points, got '$target'"

cd "$root" || die "cannot enter $root"
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
ncu=${NCU:-ncu}
app=$build/benchmarks/$app_name
app_args=()
[ "$app_name" = td_libs ] && app_args=(--reps "$reps")
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"
[ -x "$app" ] || die "$app not built (needs nvcc and the toolkit's libraries: cmake --build $build --target td_libs)"
for tool in "$ncu" python3 c++filt; do
    command -v "$tool" > /dev/null || die "'$tool' not found (ncu: set NCU; c++filt: binutils)"
done
nvidia-smi -L > /dev/null 2>&1 || die "no GPU here (nvidia-smi -L failed)"

work=${KEEP:-$(mktemp -d /tmp/td_libagree.XXXXXX)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

echo "lib_agreement: topdown, kernel replay of every launch..." >&2
TOPDOWN_KEEP_SPOOL=1 "$topdown" --replay-mode kernel --overhead unlimited \
    --cache-control "$cache" --clock-control "$clock" --no-progress -f -l 1 \
    -o "$work/topdown.json" -- "$app" "${app_args[@]}" > "$work/topdown.out" 2> "$work/topdown.err" ||
    { cat "$work/topdown.err" >&2; die "topdown failed (its stderr above)"; }
td_spool=$(find "$work" -maxdepth 1 -name "topdown.json.*.spool" | head -1)
[ -n "$td_spool" ] || die "topdown kept no spool next to $work/topdown.json"

metrics=$(python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["devices"][0]["metrics"]))' \
    "$work/topdown.json") || die "cannot read the metrics of $work/topdown.json"

echo "lib_agreement: ncu, the same metrics..." >&2
"$ncu" --cache-control "$cache" --clock-control "$clock" --metrics "$metrics" --csv \
    --print-units base --print-kernel-base mangled "$app" "${app_args[@]}" \
    > "$work/ncu.csv" 2> "$work/ncu.err" ||
    { tail -20 "$work/ncu.err" >&2; die "ncu failed (the end of its stderr above)"; }

python3 "$here/ncu_to_spool.py" --csv "$work/ncu.csv" --result "$work/topdown.json" \
    --cache-control "$cache" -o "$work/ncu.spool" || die "ncu_to_spool.py failed"
"$topdown" import-spool "$work/ncu.spool" -f -o "$work/ncu.json" > /dev/null 2>&1 ||
    die "topdown import-spool of ncu's counters failed"
"$topdown" diff "$work/topdown.json" "$work/ncu.json" -l 3 -f --csv "$work/diff.csv" \
    > "$work/diff.txt" 2>&1 || die "topdown diff failed"

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
date=$(date -u +%Y-%m-%d)
[ -n "$out_md" ] || out_md="benchmarks/results/lib_agreement_${gpu}_${date}.md"
ncu_version=$("$ncu" --version 2> /dev/null | tail -1)

python3 - "$out_md" "$work/diff.csv" "$td_spool" "$work/ncu.spool" "$target" "$gpu" "$date" \
    "cache-control $cache, clock-control $clock, $app_name ${app_args[*]}" "$ncu_version" <<'PY'
import csv, json, math, sys
out, diff_csv, td_spool, ncu_spool, target, gpu, date, conditions, ncu_version = sys.argv[1:10]
target = float(target)

def counter_sums(path):
    """{kernel name: ({metric: sum over launches}, launches)} from a spool."""
    names, metrics, sums = {}, [], {}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        t = r.get("type")
        if t == "device" and r.get("metrics"):
            metrics = r["metrics"]
        elif t == "kernel":
            names[(r["pid"], r["k"])] = r["name"]
        elif t == "launch" and r.get("counters") and "group" not in r:
            name = names.get((r["pid"], r.get("k")), r.get("kernel", "?"))
            acc, n = sums.setdefault(name, ({}, [0]))
            n[0] += 1
            for m, v in zip(metrics, r["counters"]):
                acc[m] = acc.get(m, 0.0) + v
    return sums

every = [r for r in csv.DictReader(open(diff_csv)) if r["in"] == "both"]
rows = [r for r in every if r["kernel"] != "<application>"]  # kernels only
nodes = [k[5:] for k in every[0].keys() if k.startswith("diff:")] if every else []
def val(r, key):
    try:
        x = float(r[key])
        return x if math.isfinite(x) else None
    except (TypeError, ValueError):
        return None

lines = [f"# Library kernels: topdown against ncu's raw counters, {gpu.replace('_', ' ')}, {date}",
         "",
         f"`benchmarks/lib_agreement.sh`: the kernels of `{conditions.split(', ')[-1].split()[0]}` "
         "measured by topdown (kernel replay of every launch) and by ncu "
         f"({ncu_version}) with the same metrics under the same conditions ({conditions}); "
         "both trees built by topdown's model (ncu's counters through "
         "`benchmarks/ncu_to_spool.py` and `topdown import-spool`), compared by "
         "`topdown diff -l 3`. Differences are B-A (ncu - topdown) in points of issue slots. "
         f"Target: within {target:g} points on every node of every kernel.", ""]
within, beyond = 0, []
summary = ["| kernel | launches (topdown / ncu) | largest difference | node | bottleneck topdown | bottleneck ncu |",
           "|---|---|---|---|---|---|"]
for r in rows:
    worst, node = 0.0, "-"
    for n in nodes:
        v = val(r, "diff:" + n)
        if v is not None and abs(v) > worst:
            worst, node = abs(v), n
    ok = worst <= target
    within += ok
    if not ok:
        beyond.append(r["kernel"])
    summary.append(f"| `{r['kernel'][:70]}` | {r['a_launches']} / {r['b_launches']} | "
                   f"{worst:.2f}{'' if ok else ' **over**'} | {node} | {r['a_bottleneck']} | {r['b_bottleneck']} |")
lines += [f"**{within} of {len(rows)} kernels within {target:g} points on every node.**", ""]
lines += summary + ["", "## Every node (B-A, points)", ""]
short = [n.replace("Backend.", "BE.").replace("Frontend.", "FE.").replace("Divergence.", "DIV.")
         for n in nodes]
lines.append("| kernel | " + " | ".join(short) + " |")
lines.append("|---" * (len(nodes) + 1) + "|")
for r in every:  # the kernels, then the whole application
    cells = []
    for n in nodes:
        v = val(r, "diff:" + n)
        cells.append("-" if v is None else f"{v:+.2f}")
    lines.append(f"| `{r['kernel'][:50]}` | " + " | ".join(cells) + " |")
if beyond:
    td, nc = counter_sums(td_spool), counter_sums(ncu_spool)
    lines += ["", f"## Kernels over {target:g} points: the raw counters that differ most",
              "", "Means per launch over the kernel's launches; relative difference (ncu - topdown) / topdown.", "",
              "| kernel | metric | topdown | ncu | difference |", "|---|---|---|---|---|"]
    for kernel in beyond:
        a, b = td.get(kernel), nc.get(kernel)
        if not a or not b:
            lines.append(f"| `{kernel[:50]}` | (no counters on one side) | | | |")
            continue
        rel = []
        for m, x in a[0].items():
            y = b[0].get(m)
            if y is None:
                continue
            ax, bx = x / a[1][0], y / b[1][0]   # per launch: the launch counts may differ
            rel.append((abs(bx - ax) / ax if ax else (0.0 if bx == 0 else math.inf), m, ax, bx))
        for d, m, ax, bx in sorted(rel, reverse=True)[:4]:
            lines.append(f"| `{kernel[:50]}` | {m} | {ax:.4g} | {bx:.4g} | {100 * d:.1f}% |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:len(summary) + 10]))
print(f"\nwritten: {out}")
PY
