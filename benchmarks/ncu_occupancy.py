#!/usr/bin/env python3
"""Launch statistics and occupancy, topdown against ncu (issue 42 item 3).

    ncu --section LaunchStats --section Occupancy --csv --page details APP > NCU.csv
    topdown -o RUN.json -- APP
    benchmarks/ncu_occupancy.py NCU.csv RUN.json [--topdown build/topdown]

Prints a Markdown table per kernel: registers per thread, theoretical and
achieved occupancy (%) from each tool (ncu: the mean over its launches;
topdown: `topdown report RUN.json --json`), and exits 1 when registers or
theoretical occupancy differ (achieved occupancy is measured, so it is
shown, not judged)."""
import argparse, csv, json, subprocess, sys
from collections import defaultdict


def canonical(name):
    """ncu writes `const float *`, topdown `float const*`: compare without either."""
    return name.replace("const", "").replace(" ", "")


def ncu_values(path):
    """{kernel name: {metric: [values]}} from ncu's details CSV."""
    out = defaultdict(lambda: defaultdict(list))
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if len(r) >= 15]
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    for r in rows[1:]:
        try:
            value = float(r[col["Metric Value"]].replace(",", ""))
        except ValueError:
            continue
        out[canonical(r[col["Kernel Name"]])][r[col["Metric Name"]]].append(value)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ncu_csv")
    ap.add_argument("result")
    ap.add_argument("--topdown", default="build/topdown")
    a = ap.parse_args()
    ncu = ncu_values(a.ncu_csv)
    tree = json.loads(subprocess.run([a.topdown, "report", a.result, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    print("| kernel | registers topdown / ncu | theoretical % topdown / ncu | "
          "achieved % topdown / ncu |")
    print("|---|---|---|---|")
    bad = 0
    for k in tree["kernels"]:
        n = ncu.get(canonical(k["name"]))
        if not n:
            continue
        mean = lambda m: sum(n[m]) / len(n[m]) if n.get(m) else float("nan")
        regs = (k.get("launch") or {}).get("registers_per_thread")
        occ = k.get("occupancy") or {}
        theo, ach = occ.get("theoretical_pct"), occ.get("achieved_pct")
        n_regs, n_theo = mean("Registers Per Thread"), mean("Theoretical Occupancy")
        n_ach = mean("Achieved Occupancy")
        same = regs == n_regs and theo is not None and abs(theo - n_theo) < 0.5
        bad += not same
        fmt = lambda x: "-" if x is None else "%.1f" % x
        print("| `%s` | %s / %.0f | %s / %.1f | %s / %.1f |%s" % (
            k["name"][:60], regs, n_regs, fmt(theo), n_theo, fmt(ach), n_ach,
            "" if same else " **differs**"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
