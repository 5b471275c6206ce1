#!/usr/bin/env python3
"""Design check of td_bench's kernels, independent of topdown's collector.

Runs td_bench under Nsight Compute (ncu) with the raw counters of
docs/MODEL.md (CC >= 7.5), computes the TopDown tree of every kernel the
way the model does, and prints each kernel's tree, its bottleneck path and
whether that is the node the kernel was designed for (td_bench --list).
The counters, the stall reasons and the leaf each belongs to come from an
arch table (archs/gh100.json unless --arch); the order of the nodes from
`topdown list-nodes` when the topdown binary is found, else the table's.

    python3 benchmarks/model_check.py [--bench PATH] [--kernel NAMES | --all]
                                      [--reps N] [--save-csv FILE] [--arch NAME|FILE]
    python3 benchmarks/model_check.py --csv-in FILE   # re-analyse a saved run

Exit status: 0 when every designed kernel lands on its node, 1 when one
does not, 2 on bad usage or when ncu fails. Python 3 standard library only.
"""

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

IPC_MAX = 4.0  # SMSPs per SM x issue width, Turing through Hopper

# Filled from the arch table by load_table(): abstract counter -> metric,
# [(level-3 leaf path, [stall reasons])] in tree order, reason -> metric.
COUNTERS = {}
LEAVES = []
STALL_METRICS = {}
PASSES_METRIC = "profiler__replayer_passes"  # ncu's own, costs no pass
LEVEL1 = ["Retire", "Divergence", "Frontend", "Backend"]
# Default thresholds (MODEL.md section 7): fraction of all slots at
# level 1, of the parent below.
LEVEL1_THRESHOLD = {"Divergence": 0.10, "Frontend": 0.20, "Backend": 0.20}
CHILD_THRESHOLD = 0.10
THRESHOLDS = {}  # the table's overrides: node path or stall reason -> fraction


def tree_order(topdown):
    """Node paths in tree order from `topdown list-nodes -l 3`; [] without it."""
    try:
        out = subprocess.run([topdown, "list-nodes", "-l", "3"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line.split()[2] for line in out.splitlines()[1:] if len(line.split()) > 2]


def load_table(path, topdown):
    """Counters, leaves and stall metrics of a range-profiler arch table."""
    global COUNTERS, LEAVES, STALL_METRICS, THRESHOLDS
    with open(path) as fh:
        table = json.load(fh)
    if table.get("source") != "range_profiler":
        sys.exit("model_check: %s is not a range-profiler table" % path)
    COUNTERS = dict(table["counters"])
    THRESHOLDS = dict(table.get("thresholds", {}))
    leaves = {}
    for s in table["stalls"]:
        leaves.setdefault(s["node"], []).append(s["reason"])
        STALL_METRICS[s["reason"]] = s["metric"]
    order = tree_order(topdown)
    rank = {path: i for i, path in enumerate(order)}
    LEAVES = sorted(leaves.items(), key=lambda kv: rank.get(kv[0], len(order)))


def all_metrics():
    names = list(COUNTERS.values()) + [PASSES_METRIC]
    for _, reasons in LEAVES:
        names += [STALL_METRICS[r] for r in reasons]
    return names


def children(node):
    """Direct children of a node path ("" is the root)."""
    if node == "":
        return list(LEVEL1)
    if node == "Divergence":
        return ["Divergence.Branch", "Divergence.Replay"]
    depth = node.count(".") + 1
    out = []
    for leaf, _ in LEAVES:
        parts = leaf.split(".")
        if ".".join(parts[:depth]) == node and len(parts) > depth:
            child = ".".join(parts[: depth + 1])
            if child not in out:
                out.append(child)
    return out


def parent(node):
    return node.rsplit(".", 1)[0] if "." in node else ""


def launch_tree(m):
    """Fractions of issue slots of one launch: {node path: fraction}."""
    cycles = m["cycles_active"]
    executed = m["inst_executed"]
    if cycles <= 0 or executed <= 0:
        return None
    ipc = executed / cycles
    ipc_issued = m["inst_issued"] / cycles
    warp_eff = m["thread_inst_executed"] / (32.0 * executed)
    f = {
        "Retire": ipc * warp_eff / IPC_MAX,
        "Divergence.Branch": ipc * (1.0 - warp_eff) / IPC_MAX,
        "Divergence.Replay": max(0.0, ipc_issued - ipc) / IPC_MAX,
    }
    f["Divergence"] = f["Divergence.Branch"] + f["Divergence.Replay"]
    stalled = 1.0 - f["Retire"] - f["Divergence"]
    total = sum(m.get(r, 0.0) for _, rs in LEAVES for r in rs)
    for leaf, reasons in LEAVES:
        share = sum(m.get(r, 0.0) for r in reasons) / total if total > 0 else 0.0
        parts = leaf.split(".")
        for depth in range(1, 4):
            node = ".".join(parts[:depth])
            f[node] = f.get(node, 0.0) + stalled * share
        for r in reasons:
            f["stall." + r] = stalled * (m.get(r, 0.0) / total if total > 0 else 0.0)
    f["_ipc"], f["_warp_eff"] = ipc, warp_eff
    return f


def over_threshold(f, node):
    if node == "Retire":
        return False  # not a loss
    if "." not in node:
        return f.get(node, 0.0) > THRESHOLDS.get(node, LEVEL1_THRESHOLD[node])
    return f.get(node, 0.0) > THRESHOLDS.get(node, CHILD_THRESHOLD) * f.get(parent(node), 0.0)


def bottleneck(f):
    """Deepest node reached from the root through the largest loss node over
    threshold at each level; "" when no loss node is over threshold."""
    node = ""
    while True:
        over = [c for c in children(node) if over_threshold(f, c)]
        if not over:
            return node
        node = max(over, key=lambda c: f.get(c, 0.0))


def parse_ncu_csv(text):
    """{launch id: (kernel, {abstract counter or stall reason: value})}."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return {}
    rows = csv.DictReader(io.StringIO("\n".join(lines)))
    by_metric = {v: k for k, v in COUNTERS.items()}
    by_metric[PASSES_METRIC] = "passes"
    for _, reasons in LEAVES:
        for r in reasons:
            by_metric[STALL_METRICS[r]] = r
    launches = {}
    for row in rows:
        name = row.get("Metric Name", "")
        if name not in by_metric:
            continue
        value = row.get("Metric Value", "").replace(",", "")
        try:
            v = float(value)
        except ValueError:
            continue
        kernel = re.sub(r"\(.*$", "", row.get("Kernel Name", "?")).strip()
        kernel = re.sub(r"^(void\s+)?bench_", "", kernel)
        lid = int(row.get("ID", "0"))
        launches.setdefault(lid, (kernel, {}))[1][by_metric[name]] = v
    return launches


def kernel_trees(launches):
    """Duration-weighted mean tree per kernel (MODEL.md section 6)."""
    acc = {}
    for lid in sorted(launches):
        kernel, m = launches[lid]
        f = launch_tree(m)
        if f is None:
            continue
        w = m.get("duration_ns", 1.0) or 1.0
        k = acc.setdefault(kernel, {"_w": 0.0, "_n": 0, "_passes": 0})
        k["_w"] += w
        k["_n"] += 1
        k["_passes"] = max(k["_passes"], int(m.get("passes", 0)))
        for node, v in f.items():
            k[node] = k.get(node, 0.0) + w * v
    for k in acc.values():
        for node in list(k):
            if node not in ("_w", "_n", "_passes"):
                k[node] /= k["_w"]
    return acc


def bench_list(bench):
    """{kernel: (intended node, "default"|"variant")} from td_bench --list."""
    try:
        out = subprocess.run([bench, "--list"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    table = {}
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) >= 3:
            table[cols[0]] = (cols[1], cols[2])
    return table


def run_ncu(args, metrics):
    """Runs ncu, dropping metrics it does not know for this chip (gmma
    before Hopper). Returns (csv text, passes per kernel, dropped)."""
    dropped = []
    while True:
        cmd = [args.ncu, "--csv", "--print-units", "base", "--clock-control", "none",
               "--metrics", ",".join(metrics), args.bench, "--reps", str(args.reps)]
        if args.all:
            cmd.append("--all")
        if args.kernel:
            cmd += ["--kernel", args.kernel]
        print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        text = proc.stdout + "\n" + proc.stderr
        unknown = re.findall(r"Failed to find metric[s]? ['\"]?([a-z0-9_.]+)", text)
        unknown = [u for u in unknown if u in metrics]
        if unknown:
            dropped += unknown
            metrics = [m for m in metrics if m not in unknown]
            continue
        if proc.returncode != 0:
            sys.stderr.write(text[-4000:])
            sys.exit("model_check: ncu failed (exit %d); see its output above" % proc.returncode)
        passes = {}
        for name, n in re.findall(r'Profiling "(?:void )?(?:bench_)?([A-Za-z0-9_]+)[^"]*".*?(\d+) pass', text):
            passes[name] = int(n)
        return proc.stdout, passes, dropped


def pct(x):
    return "%5.1f" % (100.0 * x)


def print_tree(f):
    print("    IPC %.2f  WarpEff %.3f" % (f["_ipc"], f["_warp_eff"]))
    for l1 in LEVEL1:
        print("    %-40s %s" % (l1, pct(f.get(l1, 0.0))))
        for l2 in children(l1):
            print("      %-38s %s" % (l2, pct(f.get(l2, 0.0))))
            for l3 in children(l2):
                reasons = next(rs for leaf, rs in LEAVES if leaf == l3)
                detail = " ".join("%s=%s" % (r, pct(f.get("stall." + r, 0.0)).strip())
                                  for r in reasons if f.get("stall." + r, 0.0) >= 0.0005)
                print("        %-36s %s   %s" % (l3, pct(f.get(l3, 0.0)), detail))


def verdict(expected, found, f):
    if expected in ("", "-"):
        return "info"
    if expected == "Retire":
        largest = max(LEVEL1, key=lambda n: f.get(n, 0.0))
        return "OK" if found == "" and largest == "Retire" else "MISS"
    return "OK" if found == expected else "MISS"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    default_bench = os.environ.get("TD_BENCH") or os.path.join(
        here, "..", "build-bench", "benchmarks", "td_bench")
    ap.add_argument("--bench", default=default_bench, help="td_bench binary")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--kernel", help="comma-separated kernels (default: td_bench's default set)")
    ap.add_argument("--all", action="store_true", help="designed kernels and variants")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--csv-in", help="analyse a saved ncu CSV instead of running ncu")
    ap.add_argument("--save-csv", help="keep ncu's CSV output here")
    ap.add_argument("--arch", default="gh100",
                    help="arch table: a name in archs/ or a path (default gh100)")
    ap.add_argument("--topdown", default=os.environ.get("TOPDOWN") or os.path.join(
        here, "..", "build", "topdown"), help="topdown binary, for the node order")
    args = ap.parse_args()
    table = args.arch if os.path.sep in args.arch or args.arch.endswith(".json") else \
        os.path.join(here, "..", "archs", args.arch + ".json")
    load_table(table, args.topdown)

    expected = bench_list(args.bench)
    passes, dropped = {}, []
    if args.csv_in:
        with open(args.csv_in) as fh:
            text = fh.read()
    else:
        if not os.access(args.bench, os.X_OK):
            sys.exit("model_check: td_bench not found at %s; build it "
                     "(cmake --build build-bench --target td_bench) or pass --bench" % args.bench)
        text, passes, dropped = run_ncu(args, all_metrics())
        if args.save_csv:
            with open(args.save_csv, "w") as fh:
                fh.write(text)
    if dropped:
        print("metrics this chip does not have (counted as 0): " + ", ".join(dropped))

    trees = kernel_trees(parse_ncu_csv(text))
    if not trees:
        sys.exit("model_check: no kernel counters in ncu's output")
    summary, misses = [], 0
    for kernel, f in trees.items():
        want = expected.get(kernel, ("-", "?"))[0]
        found = bottleneck(f)
        v = verdict(want, found, f)
        misses += v == "MISS"
        print("%s  (%d launch%s, %.3f ms each, ncu passes %s)" % (
            kernel, f["_n"], "" if f["_n"] == 1 else "es", f["_w"] / f["_n"] / 1e6,
            f["_passes"] or passes.get(kernel, "?")))
        print_tree(f)
        print("    bottleneck: %-40s expected: %-38s %s\n" % (found or "(none)", want, v))
        summary.append((kernel, found or "(none)", pct(f.get(found, 0.0)) if found else "",
                        want, v))
    print("%-14s %-40s %6s  %-38s %s" % ("kernel", "bottleneck", "%slots", "expected", "verdict"))
    for row in summary:
        print("%-14s %-40s %6s  %-38s %s" % row)
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
