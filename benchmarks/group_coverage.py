#!/usr/bin/env python3
"""Which launches of each kernel measured which counter group, from a
topdown result (issue 39: a kernel whose group came only from replays).

    benchmarks/group_coverage.py RESULT.json[.xz] [KERNEL_SUBSTRING]

Without KERNEL_SUBSTRING: one line per kernel of >= 0.5% of the GPU time,
its share, launches and samples per group (-1: replayed, the full set).
With it: that kernel's launch ids in order, each measured one followed by
[group]."""
import collections
import json
import lzma
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def launches(result):
    dev = result["devices"][0]
    table, configs = dev["launches"], dev["configs"]
    ids = [i for start, n in table["id_runs"] for i in range(start, start + n)]
    group = dict(zip(dev["profiled"]["launch"], dev["profiled"]["group"]))
    for i, lid in enumerate(ids):
        kernel = result["kernels"][configs[table["config"][i]][0]][0]
        yield lid, kernel, table["duration_ns"][i], group.get(lid)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    result = load(argv[1])
    rows = list(launches(result))
    if len(argv) == 3:
        picked = [f"{lid}[{g}]" if g is not None else str(lid)
                  for lid, k, _, g in rows if argv[2] in k]
        print(len(picked), " ".join(picked))
        return 0
    groups = len(result["devices"][0]["groups"])
    total = sum(d for _, _, d, _ in rows) or 1
    time, count = collections.Counter(), collections.Counter()
    samples = collections.defaultdict(collections.Counter)
    for _, k, d, g in rows:
        time[k] += d
        count[k] += 1
        if g is not None:
            samples[k][g] += 1
    for k, t in time.most_common():
        if t / total < 0.005:
            break
        per = " ".join(f"{g}:{samples[k][g]}" for g in [-1] + list(range(groups)))
        print(f"{100 * t / total:5.1f}% {count[k]:6d} launches  {per}  {k[:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
