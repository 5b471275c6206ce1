#!/usr/bin/env python3
"""Each measured launch of a kernel against the same launch in an
application-replay truth (same app, same launch ids): its recorded
duration, IPC and the stall reasons it measured (of the warps' time), as
`sampled/truth` (issue 39: replays and cold ranges under other conditions).

    benchmarks/launch_vs_truth.py RESULT.json[.xz] TRUTH.json[.xz] KERNEL_SUBSTRING

One line per measured launch: id, group (-1: replayed), duration in ns,
then `ipc` (level 1) and each reason over 0.02 either way."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in benchmarks/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from group_coverage import launches, load  # noqa: E402

WARPS, CYCLES, ISSUED = "sm__warps_active.sum", "sm__cycles_active.sum", "smsp__inst_issued.sum"


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sampled, truth = load(argv[1]), load(argv[2])
    sdev, tdev = sampled["devices"][0], truth["devices"][0]
    kernels = {lid: k for lid, k, _, _ in launches(sampled)}
    sdur = {lid: d for lid, _, d, _ in launches(sampled)}
    tdur = {lid: d for lid, _, d, _ in launches(truth)}
    tindex = {m: i for i, m in enumerate(tdev["metrics"])}
    tvalues = dict(zip(tdev["profiled"]["launch"], tdev["profiled"]["counters"]))
    for lid, group, counters in zip(sdev["profiled"]["launch"], sdev["profiled"]["group"],
                                    sdev["profiled"]["counters"]):
        if argv[3] not in kernels.get(lid, "") or lid not in tvalues:
            continue
        names = sdev["metrics"] if group == -1 else [sdev["metrics"][m] for m in sdev["groups"][group]]
        mine, theirs = dict(zip(names, counters)), tvalues[lid]
        line = [f"{lid} g{group} dur {sdur[lid]:.0f}/{tdur[lid]:.0f}"]
        if ISSUED in mine and mine.get(CYCLES):
            line.append(f"ipc {mine[ISSUED] / mine[CYCLES]:.2f}/"
                        f"{theirs[tindex[ISSUED]] / theirs[tindex[CYCLES]]:.2f}")
        for name in names:
            if "stalled" not in name or not mine.get(WARPS):
                continue
            a, b = mine[name] / mine[WARPS], theirs[tindex[name]] / theirs[tindex[WARPS]]
            if a > 0.02 or b > 0.02:
                line.append(f"{name.split('stalled_')[1].split('.')[0]} {a:.3f}/{b:.3f}")
        print("  ".join(line))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
