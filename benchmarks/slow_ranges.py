#!/usr/bin/env python3
"""Which level-1 ranges ran slowed, told by their own kernel record (issue 39).

    slow_ranges.py [--truths DIR] RUN.json.xz ...

For every group range that measured level 1 in the default runs given: its
IPC over the same launch's in the application-replay truth of its app
(DIR/APP.truth.json.xz, the app being the run file's name up to its first
dot; default benchmarks/results/time_sampled_h200_2026-11-29), and its
kernel record's duration over the median of its nearest like launches
that were not profiled (the same configuration: kernel, grid, block; up to
2 before and 2 after it, at least 3). Prints the IPC ratio by duration
ratio, then how well each rule that flags a range finds those below 0.9
of the truth: levels/cold_ranges.h's rule (cold after a replay) and rules
on the duration ratio.
"""
import argparse
import bisect
import collections
import os
import statistics

from cold_ranges import load, truth_ipc

INST, CYCLES = "smsp__inst_executed.sum", "sm__cycles_active.sum"  # as cold_ranges.py
COLD_AFTER_REPLAY = 8  # levels/cold_ranges.h


def near_like_ns(unprofiled, durations, launch):
    """Median duration of the nearest like launches not profiled; 0: too few."""
    at = bisect.bisect_left(unprofiled, launch)
    near = unprofiled[max(0, at - 2):at + 2]
    return statistics.median(durations[x] for x in near) if len(near) >= 3 else 0


def ranges_of(path, truth):
    """(duration ratio, IPC ratio, cold by cold_ranges.h, opens a session) per level-1 range."""
    dev = load(path)["devices"][0]
    if "groups" not in dev:
        return []
    launches, prof, metrics = dev["launches"], dev["profiled"], dev["metrics"]
    durations, configs = launches["duration_ns"], launches["config"]
    profiled = set(prof["launch"])
    unprofiled = collections.defaultdict(list)
    for l, cfg in enumerate(configs):
        if l not in profiled and durations[l]:
            unprofiled[cfg].append(l)
    out, seen, since, last = [], collections.Counter(), None, None
    for l, g, c in zip(prof["launch"], prof["group"], prof["counters"]):
        opens = g not in (-1, last)
        last = g
        if g == -1:
            since = 0
            continue
        since = None if since is None else since + 1
        kernel = dev["configs"][configs[l]][0]
        first = seen[kernel] == 0
        seen[kernel] += 1
        cold = since is not None and (since == 1 or (first and since <= COLD_AFTER_REPLAY))
        names = [metrics[x] for x in dev["groups"][g]]
        if INST not in names or l not in truth or not c[names.index(CYCLES)]:
            continue
        like = near_like_ns(unprofiled[configs[l]], durations, l)
        if like > 0:
            ipc = c[names.index(INST)] / c[names.index(CYCLES)] / truth[l]
            out.append((durations[l] / like, ipc, cold, opens))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--truths", default="benchmarks/results/time_sampled_h200_2026-11-29")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    truths, rows = {}, []
    for path in args.runs:
        app = os.path.basename(path).split(".")[0]
        tpath = os.path.join(args.truths, app + ".truth.json.xz")
        if os.path.exists(tpath):
            rows += ranges_of(path, truths.setdefault(app, truth_ipc(tpath)))
    bad = sum(r[1] < 0.9 for r in rows)
    print("%d level-1 ranges with like launches near, %d below 0.9 of the truth's IPC" % (len(rows), bad))
    for lo, hi in [(0, 0.9), (0.9, 1.1), (1.1, 1.25), (1.25, 1.5), (1.5, 2), (2, 3), (3, 1e9)]:
        v = [r[1] for r in rows if lo <= r[0] < hi]
        if v:
            print("duration ratio [%g, %g): %5d ranges, IPC ratio median %.3f, below 0.9: %d" %
                  (lo, hi, len(v), statistics.median(v), sum(x < 0.9 for x in v)))
    rules = {
        "cold (cold_ranges.h)": lambda r: r[2],
        "duration ratio 1.1-2": lambda r: 1.1 <= r[0] < 2,
        "duration ratio 1.1-1.5": lambda r: 1.1 <= r[0] < 1.5,
        "duration ratio >= 1.1, no session opener": lambda r: r[0] >= 1.1 and not r[3],
    }
    for name, flags in rules.items():
        v = [r[1] for r in rows if flags(r)]
        hit = sum(x < 0.9 for x in v)
        if v and bad:
            print("%-42s flags %4d: %4d below 0.9 (%.0f%% of those flagged, %.0f%% of all below)" %
                  (name, len(v), hit, 100.0 * hit / len(v), 100.0 * hit / bad))


if __name__ == "__main__":
    main()
