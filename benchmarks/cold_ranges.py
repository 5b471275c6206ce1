#!/usr/bin/env python3
"""Which counter-group ranges ran cold (levels/cold_ranges.h, issue 39).

    cold_ranges.py [--truths DIR] RUN.json.xz ...

For every group range that measured level 1 in the default runs given,
its IPC (inst_executed / cycles_active) over the same launch's in the
application-replay truth of its app (DIR/APP.truth.json.xz, the app being
the run file's name up to its first dot; default
benchmarks/results/time_sampled_h200_2026-11-29), grouped by: whether it
was its kernel's first group range, and how many group ranges after the
context's last replay it came (1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, more;
"none" before any replay). Prints per group: ranges, median ratio, and
how many fell below 0.9.
"""
import argparse
import collections
import json
import lzma
import os
import statistics

BINS = [1, 2, 4, 8, 16, 32, 64]


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def truth_ipc(path):
    dev = load(path)["devices"][0]
    m = dev["metrics"]
    inst, cyc = m.index("smsp__inst_executed.sum"), m.index("sm__cycles_active.sum")
    return {l: c[inst] / c[cyc] for l, c in zip(dev["profiled"]["launch"], dev["profiled"]["counters"])
            if c[cyc] > 0}


def bin_of(since):
    if since is None:
        return "none"
    for b in BINS:
        if since <= b:
            return "<=%d" % b
    return ">64"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--truths", default="benchmarks/results/time_sampled_h200_2026-11-29")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    truths, groups = {}, collections.defaultdict(list)
    for path in args.runs:
        app = os.path.basename(path).split(".")[0]
        tpath = os.path.join(args.truths, app + ".truth.json.xz")
        if not os.path.exists(tpath):
            continue
        truth = truths.setdefault(app, truth_ipc(tpath))
        dev = load(path)["devices"][0]
        if "groups" not in dev:
            continue
        m, cfg, launches, prof = dev["metrics"], dev["configs"], dev["launches"], dev["profiled"]
        inst, cyc = m.index("smsp__inst_executed.sum"), m.index("sm__cycles_active.sum")
        seen, since = collections.Counter(), None
        for l, g, c in zip(prof["launch"], prof["group"], prof["counters"]):
            kernel = cfg[launches["config"][l]][0]
            if g == -1:
                since = 0
                continue
            since = None if since is None else since + 1
            first = seen[kernel] == 0
            seen[kernel] += 1
            values = dict(zip(dev["groups"][g], c))
            if l not in truth or inst not in values or not values.get(cyc):
                continue
            groups[("first" if first else "later", bin_of(since))].append(
                values[inst] / values[cyc] / truth[l])
    order = ["<=%d" % b for b in BINS] + [">64", "none"]
    for key in sorted(groups, key=lambda k: (k[0], order.index(k[1]))):
        v = groups[key]
        print("%-5s %-5s ranges %4d  median %.3f  below 0.9: %d" %
              (key[0], key[1], len(v), statistics.median(v), sum(x < 0.9 for x in v)))


if __name__ == "__main__":
    main()
