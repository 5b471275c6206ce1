#!/usr/bin/env python3
"""A rotation session's first sample against the later ones (issue 22).

For each kernel of a result (.json or .json.xz) with counter-group samples
of the issue counters' group, the median share of its warps' time stalled
on instruction fetch (smsp__warps_issue_stalled_no_instruction.sum over
sm__warps_active.sum) in samples that opened a session of their group
(the profiled launch before it measured another group, or was a replay)
and in the others; one line per result, and with -v one per kernel:

    benchmarks/first_in_session.py [-v] RESULT...
    benchmarks/first_in_session.py --context RESULT...

On the bundled runs (benchmarks/results/truth_*/) the first sample of a
session stalls more: warmup_tried_NVIDIA_H100_2026-11-26.md.

--context: the context's first launch, where it was replayed (the full
set) and its kernel was replayed again: each stall reason's share of its
warps' time minus the median of the kernel's later replays, printed where
they differ by more than 0.02. On the bundled runs the first launch
stalled more on imc_miss (constant cache) in all 16 runs where it differed
(td_tiny +0.25, td_bfs +0.05 to +0.22, td_manykernels' init_uniform +0.04
to +0.09; td_bench's and td_libs' first kernels: no reason over 0.02), the
only reason that moved the same way in all three kernels, where a
kernel's first launch later in a run showed no such difference;
levels/estimate.c sets it aside.
"""
import json
import lzma
import statistics
import sys

STALL = "smsp__warps_issue_stalled_no_instruction.sum"
WARPS = "sm__warps_active.sum"


def load(path):
    with (lzma.open(path) if path.endswith(".xz") else open(path, "rb")) as f:
        return json.load(f)


def kernel_name(kernel):
    return kernel[0] if isinstance(kernel, list) else str(kernel)


def kernel_of_launch(dev):
    """Each launch's kernel index, in the device section's launch order."""
    kernel_of_config = [c[0] for c in dev["configs"]]
    return [kernel_of_config[c] for c in dev["launches"]["config"]]


def shares_by_kernel(result):
    """{kernel index: {"first": [share...], "rest": [share...]}} over the devices."""
    out = {}
    for dev in result.get("devices", []):
        metrics, groups = dev.get("metrics", []), dev.get("groups", [])
        profiled = dev.get("profiled", {})
        if STALL not in metrics or WARPS not in metrics or "group" not in profiled:
            continue
        stall, warps = metrics.index(STALL), metrics.index(WARPS)
        kernels = kernel_of_launch(dev)
        previous = None
        for launch, group, counters in zip(profiled["launch"], profiled["group"],
                                           profiled["counters"]):
            first = previous != group
            previous = group
            if group < 0:
                continue
            values = dict(zip(groups[group], counters))
            if not values.get(warps) or stall not in values:
                continue
            cell = out.setdefault(kernels[launch], {"first": [], "rest": []})
            cell["first" if first else "rest"].append(values[stall] / values[warps])
    return out


def context_first(result):
    """[(kernel index, {reason: first minus later replays' median})] per device."""
    out = []
    for dev in result.get("devices", []):
        metrics, profiled = dev.get("metrics", []), dev.get("profiled", {})
        if WARPS not in metrics or "group" not in profiled:
            continue
        warps = metrics.index(WARPS)
        kernels = kernel_of_launch(dev)
        replays = {}
        for launch, group, counters in zip(profiled["launch"], profiled["group"],
                                           profiled["counters"]):
            if group != -1 or kernels[launch] != kernels[0] \
                    or not counters[warps]:
                continue
            replays[launch] = {m.replace("smsp__warps_issue_stalled_", "").replace(".sum", ""):
                               counters[i] / counters[warps]
                               for i, m in enumerate(metrics) if "stalled" in m}
        first = replays.pop(0, None)
        if first and replays:
            out.append((kernels[0], {
                r: first[r] - statistics.median(v[r] for v in replays.values()) for r in first}))
    return out


def main_context(paths):
    for path in paths:
        result = load(path)
        kernels = result.get("kernels", [])
        for k, diffs in context_first(result):
            moved = ", ".join("%s %+.3f" % (r, d) for r, d in sorted(diffs.items())
                              if abs(d) > 0.02)
            print("%s: %s: %s" % (path, kernel_name(kernels[k])[:40], moved or "none over 0.02"))
    return 0


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a not in ("-v", "--context")]
    if not paths:
        print(__doc__.strip().splitlines()[7].strip(), file=sys.stderr)
        return 2
    if "--context" in argv:
        return main_context(paths)
    for path in paths:
        result = load(path)
        kernels = result.get("kernels", [])
        diffs = []
        for k, cell in sorted(shares_by_kernel(result).items()):
            if not cell["first"] or not cell["rest"]:
                continue
            first, rest = statistics.median(cell["first"]), statistics.median(cell["rest"])
            diffs.append(first - rest)
            if verbose:
                print("  %-48s first %2d: %.3f  later %3d: %.3f" % (
                    kernel_name(kernels[k])[:48], len(cell["first"]), first,
                    len(cell["rest"]), rest))
        if diffs:
            print("%s: %d kernels, first minus later (median) %.4f, first higher in %d" % (
                path, len(diffs), statistics.median(diffs), sum(d > 0 for d in diffs)))
        else:
            print("%s: no kernel with both kinds of sample" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
