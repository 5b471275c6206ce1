#!/bin/sh
# Compares topdown's raw counters with Nsight Compute's, kernel by kernel.
#
#   benchmarks/ncu_compare.sh APP [ARGS...]
#
# Runs APP under topdown and under `ncu --metrics <the same names> --csv`,
# matches the launches by order, and prints one row per kernel and metric:
# topdown's value, ncu's, the relative difference and OK/FAIL. Exits 1 if
# any counter differs by more than TOL (durations are not compared: they
# differ from run to run). Needs a GPU, ncu and python3 (stdlib only).
#
# Environment: TOPDOWN (the binary; default build/topdown), NCU (default
# ncu), TOL (default 0.01), NCU_FLAGS (default "--clock-control none
# --cache-control all": topdown leaves the clocks alone, and so must ncu
# for cycle counts to be comparable), KEEP (a folder to keep the raw files).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
TOPDOWN=${TOPDOWN:-$here/../build/topdown}
NCU=${NCU:-ncu}
TOL=${TOL:-0.01}
NCU_FLAGS=${NCU_FLAGS:---clock-control none --cache-control all}
if [ $# -lt 1 ]; then
    echo "usage: $0 APP [ARGS...]" >&2
    exit 2
fi
for tool in "$TOPDOWN" "$NCU" python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "ncu_compare: '$tool' not found (set TOPDOWN or NCU)" >&2
        exit 2
    fi
done
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"

"$TOPDOWN" -f -o "$work/topdown.json" -- "$@" >"$work/app_topdown.out" 2>"$work/topdown.err" || {
    echo "ncu_compare: topdown failed:" >&2
    cat "$work/topdown.err" >&2
    exit 2
}
metrics=$(python3 -c '
import json, sys
res = json.load(open(sys.argv[1]))
names = []
for dev in res["devices"]:
    for m in dev["metrics"]:
        if m not in names:
            names.append(m)
print(",".join(names))
' "$work/topdown.json")
if [ -z "$metrics" ]; then
    echo "ncu_compare: topdown collected no counters (see $work/topdown.err)" >&2
    exit 2
fi
# ncu writes its CSV to stdout among the app's own output; the parser
# keeps the quoted lines.
# shellcheck disable=SC2086
"$NCU" $NCU_FLAGS --metrics "$metrics" --csv --print-units base \
    "$@" >"$work/ncu.csv" 2>"$work/ncu.err" || {
    echo "ncu_compare: ncu failed:" >&2
    cat "$work/ncu.err" >&2
    exit 2
}

python3 - "$work/topdown.json" "$work/ncu.csv" "$TOL" "$("$NCU" --version | tail -n 1)" <<'PY'
import csv, json, re, sys

result_path, csv_path, tol, ncu_version = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]

def base_name(name):
    """fma_chain(float *, int) and void fma_chain(float*, int) -> fma_chain"""
    name = re.sub(r"^void\s+", "", name.strip())
    depth, out = 0, []
    for ch in name:
        if ch == "(" and depth == 0:
            break
        depth += ch == "<"
        depth -= ch == ">"
        out.append(ch)
    return "".join(out).replace(" ", "")

def number(text):
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None

res = json.load(open(result_path))
launches, devices = [], []
for dev in res["devices"]:
    devices.append("%s (%s, CC %s, %s SMs), arch table %s, %s replay passes"
                   % (dev["name"], dev["chip"], dev["compute_capability"], dev["sm_count"],
                      dev["arch"], dev["passes"]))
    for l in dev["launches"]:
        if l.get("profiled"):
            counters = l["counters"]
            if isinstance(counters, dict):
                counters = [(m, counters[m]) for m in dev["metrics"]]
            else:
                counters = list(zip(dev["metrics"], counters))
            launches.append((l["id"], l["kernel"], counters))
launches.sort(key=lambda x: x[0])

rows = [line for line in open(csv_path, newline="") if line.startswith('"')]
header_at = next((i for i, line in enumerate(rows) if line.startswith('"ID"')), None)
if header_at is None:
    sys.exit("ncu_compare: no CSV table in ncu's output (%s)" % csv_path)
ncu = {}
order = []
for row in csv.DictReader(rows[header_at:]):
    key = int(row["ID"])
    if key not in ncu:
        ncu[key] = {"kernel": row["Kernel Name"], "values": {}}
        order.append(key)
    ncu[key]["values"][row["Metric Name"]] = number(row["Metric Value"])

print("topdown vs ncu, raw counters per kernel launch")
for d in devices:
    print("device:", d)
print("ncu:", ncu_version)
print("tolerance: %.2f%% relative; durations (gpu__time_duration) not compared" % (100 * tol))
print()
failures, compared, worst = 0, 0, 0.0
if len(order) != len(launches):
    print("FAIL: ncu profiled %d launches, topdown %d" % (len(order), len(launches)))
    failures += 1
fmt = "%-4s %-28s %-52s %16s %16s %9s  %s"
print(fmt % ("#", "kernel", "metric", "topdown", "ncu", "rel.diff", ""))
for (lid, kernel, counters), key in zip(launches, order):
    theirs = ncu[key]
    if base_name(kernel) != base_name(theirs["kernel"]):
        print("FAIL: launch %d is %s in topdown but %s in ncu" % (lid, kernel, theirs["kernel"]))
        failures += 1
        continue
    for name, mine in counters:
        other = theirs["values"].get(name)
        if "time_duration" in name:
            continue
        if other is None:
            print(fmt % (lid, base_name(kernel)[:28], name, "%.0f" % mine, "missing", "", "FAIL"))
            failures += 1
            continue
        scale = max(abs(mine), abs(other))
        diff = abs(mine - other) / scale if scale else 0.0
        ok = diff <= tol
        worst = max(worst, diff)
        compared += 1
        failures += not ok
        print(fmt % (lid, base_name(kernel)[:28], name, "%.0f" % mine, "%.0f" % other,
                     "%.3f%%" % (100 * diff), "OK" if ok else "FAIL"))
print()
print("%d counters compared over %d launches; largest difference %.3f%%; %d failure(s)"
      % (compared, min(len(order), len(launches)), 100 * worst, failures))
sys.exit(1 if failures else 0)
PY
