#!/usr/bin/env python3
"""PC sampling of an unprofiled run against a truth table (issue 22).

A `topdown --source-only` result samples warps without replay, ranges or
drains: the natural run. For each kernel of APP with >= 1% of the GPU time
in TABLE (truth.sh's CSV), each level-3 leaf's share of the kernel's PC
samples (from `topdown source RESULT '#N' -n 0 --csv -`) is set against
the sampled and the truth columns; rows where either differs from the PC
share by more than 8 points are printed, then a summary.

    benchmarks/pc_against_truth.py [--topdown BIN] RESULT TABLE APP

Read with care: a PC sample's share is of warp samples, the tree's node
of issue slots; the model maps both to the same leaves, so they are close,
not equal (Retire differs most: selected warps against issued slots).
"""
import argparse
import collections
import csv
import io
import statistics
import subprocess

LEAVES = {
    "Instruction_Fetch": "Frontend.Fetch.Instruction_Fetch",
    "Branch_Resolving": "Frontend.Fetch.Branch_Resolving",
    "Synchronization": "Frontend.Fetch.Synchronization",
    "Dispatch": "Frontend.Decode.Dispatch",
    "Misc": "Frontend.Decode.Misc",
    "MIO_Bound": "Backend.Memory_Bound.MIO_Bound",
    "Drain": "Backend.Memory_Bound.Drain",
    "Constant_Memory": "Backend.Memory_Bound.Constant_Memory",
    "L1_Bound": "Backend.Memory_Bound.L1_Bound",
    "Dependency_Wait": "Backend.Core_Bound.Dependency_Wait",
    "Math_Pipe": "Backend.Core_Bound.Math_Pipe",
    "Tensor": "Backend.Core_Bound.Tensor",
    "Retire": "Retire",
}
MIN_SAMPLES = 500


def table_rows(path, app):
    rows = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if (r["app"] == app and r["sampled"] and r["truth"] and r["gpu_time_share"]
                and float(r["gpu_time_share"]) >= 1):
            rows[r["kernel"]][r["node"]] = (float(r["sampled"]), float(r["truth"]))
    return rows


def pc_shares(topdown, result, n):
    """(kernel name, {leaf: share %}, samples) of kernel #n, None past the last."""
    rows = subprocess.run([topdown, "source", result, "#%d" % n, "-n", "0", "--csv", "-"],
                          capture_output=True, text=True)
    if rows.returncode != 0:
        return None
    head = subprocess.run([topdown, "source", result, "#%d" % n, "-n", "1"],
                          capture_output=True, text=True).stdout.splitlines()
    name = head[0].split(": ", 1)[1] if head else ""
    counts, total = collections.Counter(), 0
    for r in csv.DictReader(io.StringIO(rows.stdout)):
        total += int(r["samples"])
        for leaf in LEAVES:
            counts[leaf] += int(r.get(leaf) or 0)
    return name, {leaf: 100.0 * counts[leaf] / total if total else 0 for leaf in LEAVES}, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topdown", default="build/topdown")
    ap.add_argument("result")
    ap.add_argument("table")
    ap.add_argument("app")
    a = ap.parse_args()
    rows = table_rows(a.table, a.app)
    off_sampled, off_truth = [], []
    for n in range(1, 10000):
        got = pc_shares(a.topdown, a.result, n)
        if got is None:
            break
        name, shares, total = got
        if name not in rows or total < MIN_SAMPLES:
            continue
        for leaf, path in LEAVES.items():
            if path not in rows[name]:
                continue
            sampled, truth = rows[name][path]
            pc = shares[leaf]
            off_sampled.append(abs(sampled - pc))
            off_truth.append(abs(truth - pc))
            if max(abs(sampled - pc), abs(truth - pc)) > 8:
                print("%-48s %-38s PC %5.1f  sampled %5.1f  truth %5.1f" % (
                    name[:48], path, pc, sampled, truth))
    if not off_sampled:
        print("%s: no kernel of the table in the result" % a.app)
        return 1
    closer = sum(s < t for s, t in zip(off_sampled, off_truth))
    print("%s: %d leaves; |sampled - PC| median %.2f, mean %.2f; |truth - PC| median %.2f, "
          "mean %.2f; the sampled tree closer on %d" % (
              a.app, len(off_sampled), statistics.median(off_sampled),
              statistics.mean(off_sampled), statistics.median(off_truth),
              statistics.mean(off_truth), closer))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
