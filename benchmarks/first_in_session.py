#!/usr/bin/env python3
"""A rotation session's first sample against the later ones (issue 22).

For each kernel of a result (.json or .json.xz) with counter-group samples
of the issue counters' group, the median share of its warps' time stalled
on instruction fetch (smsp__warps_issue_stalled_no_instruction.sum over
sm__warps_active.sum) in samples that opened a session of their group
(the profiled launch before it measured another group, or was a replay)
and in the others; one line per result, and with -v one per kernel:

    benchmarks/first_in_session.py [-v] RESULT...

On the bundled runs (benchmarks/results/truth_*/) the first sample of a
session stalls more: warmup_tried_NVIDIA_H100_2026-11-26.md.
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


def shares_by_kernel(result):
    """{kernel index: {"first": [share...], "rest": [share...]}} over the devices."""
    out = {}
    for dev in result.get("devices", []):
        metrics, groups = dev.get("metrics", []), dev.get("groups", [])
        profiled, launches = dev.get("profiled", {}), dev.get("launches", {})
        if STALL not in metrics or WARPS not in metrics or "group" not in profiled:
            continue
        stall, warps = metrics.index(STALL), metrics.index(WARPS)
        kernel_of_config = [c[0] for c in dev["configs"]]
        kernel_of_launch = [kernel_of_config[c] for c in launches["config"]]
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
            cell = out.setdefault(kernel_of_launch[launch], {"first": [], "rest": []})
            cell["first" if first else "rest"].append(values[stall] / values[warps])
    return out


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"]
    if not paths:
        print(__doc__.strip().splitlines()[7].strip(), file=sys.stderr)
        return 2
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
