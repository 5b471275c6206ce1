#!/usr/bin/env python3
"""Level 5 and speed of light against Nsight Compute (issue 42).

    benchmarks/memory_compare.py --result R.topdown.json[.xz] --ncu NCU.csv[.xz]
                                 [--topdown build/topdown] [--arch archs/gh100.json]
                                 [--csv OUT.csv]

R: a topdown result whose launches measured the arch table's memory
counters (kernel replay of every launch, or counter groups); NCU: the CSV
of benchmarks/ncu_memory.sh for the same app. Kernels are matched by
their demangled names without the parameter list (which ncu shortens),
spaces, a leading "void " and anonymous namespaces aside. Per
kernel, each side's:
  - sectors served by L1 (global loads' hits), by L2 (L1TEX reads' hits)
    and by DRAM (bytes read / 32), a launch's mean over the launches that
    measured them: the raw counters, ncu being the oracle;
  - the shares long_scoreboard is split by (sectors x latency of the arch
    table), the same formula on both sides' counters;
  - each unit's throughput, % of peak: topdown's report (JSON
    throughput_pct_of_peak) against ncu's own pct_of_peak metric
    (dram__throughput, lts__throughput, l1tex__throughput active,
    sm__throughput: ncu's are the busiest of several sub-units).
Prints a table and, with --csv, writes one row per kernel and figure.
"""
import argparse
import csv
import io
import json
import lzma
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ncu_memory  # noqa: E402

NCU_PCT = {"SM_Issue": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
           "L1": "l1tex__throughput.avg.pct_of_peak_sustained_active",
           "L2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
           "DRAM": "dram__throughput.avg.pct_of_peak_sustained_elapsed"}


def opener(path):
    return lzma.open(path, "rt") if path.endswith(".xz") else open(path)


def short(name):
    """The key a kernel is matched by: its whole name, spaces aside."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    name = "".join(name.split())
    # ncu names anonymous namespaces <unnamed> and drops at::native's
    # "native::" where the demangler of the result does not
    for part in ("(anonymousnamespace)::", "<unnamed>::", "native::"):
        name = name.replace(part, "")
    # and shortens parameter lists, "(T1,T2,T3...)": the name up to them
    depth = 0
    for i, ch in enumerate(name):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "(" and depth == 0:
            return name[:i]
    return name


def label(key):
    """The function's name, for the table."""
    for stop in "(<":
        key = key.split(stop)[0]
    return key.split("::")[-1]


def source_sectors(values, sources):
    """Sectors per source of a {metric: value} map; None where one lacks."""
    out = []
    for s in sources:
        v = values.get(s["metric"])
        if v is None:
            return None
        out.append(v / s.get("per_sector", 1))
    return out


def shares(sectors, sources):
    w = [n * s["latency_cycles"] for n, s in zip(sectors, sources)]
    total = sum(w)
    return [x / total for x in w] if total > 0 else None


def topdown_raw(path, metrics):
    """{kernel: {metric: mean over the launches that measured it}}."""
    with opener(path) as f:
        d = json.load(f)
    names = [k[0] for k in d["kernels"]]
    out = {}
    for dev in d["devices"]:
        full = dev.get("full_set", len(dev["metrics"]))
        groups = dev.get("groups", [])
        configs = dev["configs"]
        cfg = dev["launches"]["config"]
        prof = dev.get("profiled", {})
        gl = prof.get("group", [-1] * len(prof.get("launch", [])))
        for row, g, vals in zip(prof.get("launch", []), gl, prof.get("counters", [])):
            idx = list(range(full)) if g < 0 else groups[g]
            k = names[configs[cfg[row]][0]]
            acc = out.setdefault(short(k), {})
            for i, v in zip(idx, vals):
                m = dev["metrics"][i]
                if m in metrics:
                    acc[m] = acc.get(m, 0.0) + v
                    acc["n:" + m] = acc.get("n:" + m, 0) + 1
    return {k: {m: v / acc["n:" + m] for m, v in acc.items() if not m.startswith("n:")}
            for k, acc in out.items()}


def topdown_report(topdown, path):
    r = subprocess.run([topdown, "report", path, "--json", "-l", "5", "--kernels", "0"],
                       capture_output=True, text=True, check=True)
    out = {}
    for k in json.loads(r.stdout)["kernels"]:
        out[short(k["name"])] = k
    return out


def ncu_table(path):
    with opener(path) as f:
        text = f.read()
    tmp = io.StringIO(text)
    rows = [r for r in csv.reader(tmp) if r]
    rows = [r for r in rows if r[0] != "" and not r[0].startswith("==")]
    if rows and "Metric Name" in rows[0]:
        launches, metrics = ncu_memory.launches_long(rows)
    else:
        launches, metrics = ncu_memory.launches_wide(rows)
    table = ncu_memory.per_kernel(launches, metrics, ncu_memory.pct_columns(rows))
    out = {}
    for k, v in table.items():
        n = v["launches"]
        per_launch = {m: (x / n if x is not None and ncu_memory.kind(m, False) == "sum" else x)
                      for m, x in v.items() if m != "launches"}
        out.setdefault(short(k), per_launch)  # the first of a name (templates alike)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--result", required=True)
    ap.add_argument("--ncu", required=True)
    ap.add_argument("--topdown", default=os.path.join(HERE, "..", "build", "topdown"))
    ap.add_argument("--arch", default=os.path.join(HERE, "..", "archs", "gh100.json"))
    ap.add_argument("--csv")
    a = ap.parse_args()
    mem = json.load(open(a.arch))["memory"]
    sources = mem["sources"]
    metrics = {s["metric"] for s in sources}
    td_raw = topdown_raw(a.result, metrics)
    td_rep = topdown_report(a.topdown, a.result)
    ncu = ncu_table(a.ncu)
    rows = []
    for k in sorted(set(td_raw) & set(ncu)):
        t_sec, n_sec = source_sectors(td_raw[k], sources), source_sectors(ncu[k], sources)
        if t_sec is None or n_sec is None:
            continue
        t_sh, n_sh = shares(t_sec, sources), shares(n_sec, sources)
        for s, ts, ns in zip(sources, t_sec, n_sec):
            rows.append((k, "sectors " + s["name"], ts, ns))
        for i, s in enumerate(sources):
            if t_sh and n_sh:
                rows.append((k, "share % " + s["name"], 100 * t_sh[i], 100 * n_sh[i]))
        sol = td_rep.get(k, {}).get("throughput_pct_of_peak") or {}
        for unit, metric in NCU_PCT.items():
            if sol.get(unit) is not None and ncu[k].get(metric) is not None:
                rows.append((k, "% of peak " + unit, sol[unit], ncu[k][metric]))
    if not rows:
        sys.exit("memory_compare: no kernel with the memory counters on both sides")
    print("%-28s %-22s %14s %14s %9s" % ("kernel", "figure", "topdown", "ncu", "t/n"))
    for k, fig, t, n in rows:
        ratio = "%.3f" % (t / n) if n else "-"
        print("%-28s %-22s %14.6g %14.6g %9s" % (label(k)[:28], fig, t, n, ratio))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["kernel", "figure", "topdown", "ncu"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
