#!/usr/bin/env python3
"""ncu's raw counters as a topdown spool, so topdown's own model builds the tree.

    ncu_to_spool.py --csv NCU.csv --result TOPDOWN.json -o OUT.spool
    topdown import-spool OUT.spool -o NCU.json
    topdown diff TOPDOWN.json NCU.json -l 3 --csv DIFF.csv

NCU.csv: `ncu --csv --print-units base --print-kernel-base mangled
--metrics <the result's metrics> APP` (one row per launch and metric).
TOPDOWN.json: a topdown result of the same app on the same GPU; its first
device section gives the metric order, the GPU and the arch table. Kernel
names are demangled with c++filt (binutils), as topdown's are
(__cxa_demangle), so `topdown diff` matches the kernels by name. Every ncu
launch becomes a profiled launch measuring every metric (the format of
docs/COLLECTION.md, "The spool"); a launch missing a metric is left out
and counted on stderr. Standard library only.
"""
import argparse
import csv
import io
import json
import re
import subprocess
import sys


def device_head(result_path):
    with open(result_path) as fh:
        result = json.load(fh)
    devices = result.get("devices") or []
    if not devices:
        sys.exit("ncu_to_spool: %s has no device section" % result_path)
    d = devices[0]
    major, minor = (d.get("compute_capability", "0.0").split(".") + ["0"])[:2]
    return {
        "name": d.get("name", "unknown"), "chip": d.get("chip", "unknown"),
        "cc": [int(major), int(minor)], "sm_count": d.get("sm_count", 0),
        "arch": d.get("arch", "none"), "metrics": d["metrics"],
    }


def dims(text):
    """ncu's "(256, 1, 1)" -> [256, 1, 1]."""
    nums = [int(x) for x in re.findall(r"\d+", text or "")]
    return (nums + [1, 1, 1])[:3] if nums else [1, 1, 1]


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def read_launches(csv_path, metrics):
    """{ncu launch id: {"mangled", "grid", "block", "values": {metric: v}}}."""
    with open(csv_path) as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.startswith('"')]
    wanted = set(metrics)
    launches = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        name = row.get("Metric Name", "")
        if name not in wanted:
            continue
        value = number(row.get("Metric Value"))
        if value is None:
            continue
        lid = int(row.get("ID", "0"))
        launch = launches.setdefault(lid, {
            "mangled": row.get("Kernel Name", "?").strip(),
            "grid": dims(row.get("Grid Size")), "block": dims(row.get("Block Size")),
            "values": {}})
        launch["values"][name] = value
    return launches


def demangle(names):
    """{mangled: demangled} through c++filt; C names stay as they are."""
    unique = sorted(set(names))
    try:
        out = subprocess.run(["c++filt"], input="\n".join(unique) + "\n", text=True,
                             capture_output=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        sys.exit("ncu_to_spool: c++filt (binutils) is needed to demangle ncu's kernel names")
    return dict(zip(unique, out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", required=True, help="ncu --csv output")
    ap.add_argument("--result", required=True, help="topdown result of the same app")
    ap.add_argument("-o", "--output", required=True, help="spool to write")
    ap.add_argument("--cache-control", choices=["all", "none"],
                    help="what ncu ran with, recorded in the result's conditions")
    args = ap.parse_args()
    head = device_head(args.result)
    metrics = head["metrics"]
    launches = read_launches(args.csv, metrics)
    names = demangle(l["mangled"] for l in launches.values())
    kernel_ids, records, skipped = {}, [], 0
    for order, lid in enumerate(sorted(launches)):
        l = launches[lid]
        if any(m not in l["values"] for m in metrics):
            skipped += 1
            continue
        if l["mangled"] not in kernel_ids:
            kernel_ids[l["mangled"]] = len(kernel_ids)
            records.append({"type": "kernel", "pid": 1, "k": kernel_ids[l["mangled"]],
                            "name": names[l["mangled"]], "mangled": l["mangled"]})
        counters = [l["values"][m] for m in metrics]
        duration = l["values"].get("gpu__time_duration.sum", 0.0)
        records.append({"type": "launch", "pid": 1, "context": 1, "id": order,
                        "corr": order + 1, "k": kernel_ids[l["mangled"]],
                        "grid": l["grid"], "block": l["block"], "stream": 0,
                        "start_ns": 0, "duration_ns": duration, "counters": counters})
    profiled = sum(1 for r in records if r["type"] == "launch")
    with open(args.output, "w") as out:
        def emit(rec):
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")
        start = {"type": "start", "pid": 1, "format": "topdown-spool/2",
                 "tool_version": "ncu (benchmarks/ncu_to_spool.py)", "replay_mode": "kernel"}
        if args.cache_control:
            start["cache_control"] = args.cache_control
        emit(start)
        emit({"type": "device", "pid": 1, "context": 1, "device": 0, "name": head["name"],
              "chip": head["chip"], "cc": head["cc"], "sm_count": head["sm_count"],
              "arch": head["arch"], "passes": 0, "batch": 1, "metrics": metrics})
        for rec in records:
            emit(rec)
        emit({"type": "end", "pid": 1, "launches": profiled, "profiled": profiled})
    print("ncu_to_spool: %d launches of %d kernels%s" % (
        profiled, len(kernel_ids), ", %d left out (a metric missing)" % skipped if skipped else ""),
        file=sys.stderr)


if __name__ == "__main__":
    main()
