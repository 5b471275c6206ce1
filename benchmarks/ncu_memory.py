#!/usr/bin/env python3
"""Per-kernel totals of an Nsight Compute CSV (benchmarks/ncu_memory.sh).

    benchmarks/ncu_memory.py NCU.csv [--json] [--metrics M1,M2,...|all]

NCU.csv: `ncu --csv --page raw --metrics ...`: a header row, ncu's units
row, then a row per launch. Lines that do not start with a quote (the
app's output, ==PROF== lines) are skipped, so ncu's whole stdout will do;
the long format of --page details (a row per launch and metric: "Metric
Name", "Metric Unit", "Metric Value", as ncu_compare.sh reads) is read too.

The metrics: those of --metrics, else those of ncu_memory.sh's METRICS
that the CSV has (read from the script beside this one: the raw page also
has the .avg, .min and .max of every .sum asked for and the device's
attributes), else every counter column; --metrics all: every counter
column (device__, launch__, numa__, nvlink__, c2clink__, profiler__ left
out). Prints per kernel (its name as ncu gives it, demangled by default)
the number of launches and, per metric:
  - percentages (".pct" in the name, or unit "%") and rates (".per_second",
    ".per_cycle_...", ".ratio"): the mean over launches weighted by each
    launch's gpu__time_duration.sum (unweighted where a launch lacks it);
  - peaks (".peak_sustained"): the per-launch value, a property of the chip
    (the mean, should launches differ);
  - everything else (counts: .sum, and the .avg of cycles_elapsed): the sum
    over launches, so that a sum over peak x cycles is the kernel's capacity.
as CSV on stdout (kernel,launches,metric...), or with --json as JSON
{kernel: {"launches": n, metric: value}}. Values are in base units (a
scaled unit in the units row, Kbyte or usecond, is converted); thousands
separators are dropped; "n/a" and empty cells are left out, and a metric
with no value in any launch of a kernel is empty (null). Standard library
only.
"""
import argparse
import csv
import json
import os
import re
import sys

# Metric names all have "__"; the raw page also has these families, which
# describe the device and the launch rather than count anything.
METRIC_RE = re.compile(r"^[a-z0-9_]+__[A-Za-z0-9_.]+$")
NOT_COUNTERS = ("device__", "launch__", "numa__", "nvlink__", "c2clink__", "profiler__")
PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
TIME_NS = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9,
           "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
DURATION = "gpu__time_duration.sum"


def unit_scale(unit):
    """The factor to ncu's base unit: 'Kbyte' -> 1e3, 'usecond' -> 1e3 (ns)."""
    unit = (unit or "").strip()
    head = unit.split("/")[0]
    if head in TIME_NS:
        return TIME_NS[head]
    if len(head) > 1 and head[0] in PREFIX and head[1].islower():
        return PREFIX[head[0]]
    return 1.0


def number(text):
    """'1,234.5' -> 1234.5; 'n/a', '' and other text -> None."""
    text = (text or "").strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def quoted_rows(path):
    with open(path, newline="") as fh:
        lines = [ln for ln in fh if ln.startswith('"')]
    return list(csv.reader(lines))


def launches_wide(rows):
    """[(kernel, {metric: value})] from --page raw: header, units, launches.
    A header row met again (one table per process) starts a new table."""
    out, col, metrics, scale = [], {}, [], {}
    for r in rows:
        if r and r[0] == "ID":
            col = {name: i for i, name in enumerate(r)}
            metrics = [(i, name) for i, name in enumerate(r) if METRIC_RE.match(name)]
            scale = {}
            continue
        if not col or not r or number(r[0]) is None:
            # the units row: an empty ID, a unit per metric column
            if col and not scale:
                scale = {i: unit_scale(r[i]) for i, _ in metrics if i < len(r)}
            continue
        k = col.get("Kernel Name", len(r))
        kernel = r[k] if k < len(r) else "?"
        values = {}
        for i, name in metrics:
            v = number(r[i]) if i < len(r) else None
            if v is not None:
                values[name] = v * scale.get(i, 1.0)
        out.append((kernel, values))
    return out, [name for _, name in metrics]


def launches_long(rows):
    """[(kernel, {metric: value})] from a row per launch and metric."""
    head = {name: i for i, name in enumerate(rows[0])}
    need = ("ID", "Kernel Name", "Metric Name", "Metric Value")
    if any(n not in head for n in need):
        sys.exit("ncu_memory: no ncu table (no ID, Kernel Name and Metric columns)")
    found, names = {}, []
    for r in rows[1:]:
        if len(r) < len(head) or r[head["ID"]] == "ID":
            continue
        key = (r[head["Process ID"]] if "Process ID" in head else "", r[head["ID"]])
        entry = found.setdefault(key, (r[head["Kernel Name"]], {}))
        name = r[head["Metric Name"]]
        if name not in names:
            names.append(name)
        v = number(r[head["Metric Value"]])
        if v is not None:
            unit = r[head["Metric Unit"]] if "Metric Unit" in head else ""
            entry[1][name] = v * unit_scale(unit)
    return list(found.values()), names


def script_metrics():
    """METRICS of ncu_memory.sh beside this file (the one list of them)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ncu_memory.sh")
    try:
        with open(path) as fh:
            m = re.search(r'^METRICS="([^"]*)"', fh.read(), re.M)
    except OSError:
        return []
    return m.group(1).split() if m else []


def choose(columns, wanted):
    """The metrics to print: `wanted` (a list, or "all"), else ncu_memory.sh's
    METRICS; in ncu's raw page each .sum comes with .avg, .min and .max
    columns and the device's attributes, which only a list leaves out."""
    counters = [c for c in columns if not c.startswith(NOT_COUNTERS)]
    if wanted == "all":
        return counters
    names = wanted or script_metrics()
    missing = [n for n in names if n not in columns]
    if wanted and missing:
        sys.exit("ncu_memory: not in the CSV: %s" % ", ".join(missing))
    chosen = [n for n in names if n in columns]
    return chosen or counters


def kind(name, unit_is_pct):
    if ".pct" in name or unit_is_pct or ".per_second" in name or ".per_cycle" in name \
            or name.endswith(".ratio"):
        return "mean"
    if ".peak_sustained" in name:
        return "peak"
    return "sum"


def per_kernel(launches, metrics, pct_units):
    """{kernel: {"launches": n, metric: value}}, kernels in order of first launch."""
    by_kernel = {}
    for kernel, values in launches:
        by_kernel.setdefault(kernel, []).append(values)
    table = {}
    for kernel, runs in by_kernel.items():
        row = {"launches": len(runs)}
        for m in metrics:
            have = [v for v in runs if m in v]
            if not have:
                row[m] = None
                continue
            k = kind(m, m in pct_units)
            if k == "sum":
                row[m] = sum(v[m] for v in have)
            elif k == "peak":
                row[m] = sum(v[m] for v in have) / len(have)
            else:
                weights = [v.get(DURATION) for v in have]
                if all(w is not None for w in weights) and sum(weights) > 0:
                    row[m] = sum(w * v[m] for w, v in zip(weights, have)) / sum(weights)
                else:
                    row[m] = sum(v[m] for v in have) / len(have)
        table[kernel] = row
    return table


def pct_columns(rows):
    """Metrics whose unit is '%' (ncu's units row, or Metric Unit)."""
    out = set()
    for i, r in enumerate(rows):
        if r and r[0] == "ID" and i + 1 < len(rows):
            units = rows[i + 1]
            out |= {name for name, u in zip(r, units) if u.strip() == "%"}
    if rows and "Metric Unit" in rows[0]:
        h = {name: i for i, name in enumerate(rows[0])}
        out |= {r[h["Metric Name"]] for r in rows[1:]
                if len(r) == len(rows[0]) and r[h["Metric Unit"]].strip() == "%"}
    return out


def fmt(v):
    if v is None:
        return ""
    if float(v).is_integer() and abs(v) < 1e18:
        return str(int(v))
    return "%.6g" % v if abs(v) < 1e-3 else repr(round(v, 6))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="ncu --csv --page raw output (ncu_memory.sh's .csv or .log)")
    ap.add_argument("--json", action="store_true", help="JSON {kernel: {metric: value}}")
    ap.add_argument("--metrics", help="comma-separated metrics to print, or 'all' "
                    "(default: METRICS of ncu_memory.sh, those the CSV has)")
    a = ap.parse_args()
    rows = quoted_rows(a.csv)
    if not rows:
        sys.exit("ncu_memory: no CSV lines in %s" % a.csv)
    if "Metric Name" in rows[0]:
        launches, metrics = launches_long(rows)
    else:
        launches, metrics = launches_wide(rows)
    if not launches:
        sys.exit("ncu_memory: no launches in %s" % a.csv)
    wanted = a.metrics if a.metrics == "all" else \
        [m for m in (a.metrics or "").split(",") if m]
    metrics = choose(metrics, wanted)
    table = per_kernel(launches, metrics, pct_columns(rows))
    if a.json:
        json.dump(table, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["kernel", "launches"] + metrics)
    for kernel, row in table.items():
        w.writerow([kernel, row["launches"]] + [fmt(row[m]) for m in metrics])
    return 0


if __name__ == "__main__":
    sys.exit(main())
