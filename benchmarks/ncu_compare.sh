#!/bin/sh
# Compares topdown's raw counters with Nsight Compute's, kernel by kernel.
#
#   benchmarks/ncu_compare.sh APP [ARGS...]
#
# Runs APP under topdown and under `ncu --metrics <the same names> --csv`,
# REPEAT times each, matches the launches by order, and prints one row per
# kernel and metric: topdown's value, ncu's, their relative difference, and
# the run-to-run noise (how much each tool differs from itself between its
# first two runs, added). Verdicts: OK (within TOL), NOISE (beyond TOL but
# within TOL + noise: the counter is not reproducible to TOL even by the
# same tool), FAIL (beyond both). Durations are not compared. Exits 1 if
# any counter differs by more than TOL. Needs a GPU, ncu and python3
# (standard library only).
#
# PASSES=one compares under equal conditions: timing-dependent counters
# (cycles, stall cycles) depend on which replay pass they fall in, and
# topdown (CUPTI) and ncu schedule the set into passes differently. In this
# mode each stall reason is measured with the five base counters alone, in a
# single pass, by both tools (one probe arch table per reason, written next
# to the raw files); REPEAT is then 1.
#
# Environment: TOPDOWN (the binary; default build/topdown), NCU (default
# ncu), TOL (default 0.01), REPEAT (default 2), NCU_FLAGS (default
# "--clock-control none --cache-control none": topdown leaves clocks and
# caches alone, and so must ncu for cycle counts to be comparable), KEEP (a
# folder for the raw files; default a temporary one).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
TOPDOWN=${TOPDOWN:-$here/../build/topdown}
NCU=${NCU:-ncu}
TOL=${TOL:-0.01}
REPEAT=${REPEAT:-2}
PASSES=${PASSES:-all}
[ "$PASSES" = one ] && REPEAT=1
NCU_FLAGS=${NCU_FLAGS:---clock-control none --cache-control none}
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

i=1
while [ "$i" -le "$REPEAT" ]; do
    "$TOPDOWN" -f -o "$work/topdown$i.json" -- "$@" >"$work/app_topdown$i.out" \
        2>"$work/topdown$i.err" || {
        echo "ncu_compare: topdown failed:" >&2
        cat "$work/topdown$i.err" >&2
        exit 2
    }
    i=$((i + 1))
done
metrics=$(python3 -c '
import json, sys
names = []
for dev in json.load(open(sys.argv[1]))["devices"]:
    names += [m for m in dev["metrics"] if m not in names]
print(",".join(names))
' "$work/topdown1.json")
if [ -z "$metrics" ]; then
    echo "ncu_compare: topdown collected no counters (see $work/topdown1.err)" >&2
    exit 2
fi
manifest=$work/manifest.txt
: >"$manifest"
if [ "$PASSES" = one ]; then
    probes=$work/probes
    mkdir -p "$probes"
    python3 - "$work/topdown1.json" "${TOPDOWN_ARCHS:-$here/../archs}" "$probes" <<'PY' >"$work/probes.txt"
import json, os, sys
res = json.load(open(sys.argv[1]))
table = json.load(open(os.path.join(sys.argv[2], res["devices"][0]["arch"] + ".json")))
for i, stall in enumerate(table["stalls"]):
    probe = dict(table, name="probe%d" % i, stalls=[stall])
    json.dump(probe, open(os.path.join(sys.argv[3], "probe%d.json" % i), "w"))
    print("probe%d %s" % (i, ",".join(list(table["counters"].values()) + [stall["metric"]])))
PY
    while read -r probe names; do
        TOPDOWN_ARCHS=$probes "$TOPDOWN" --arch "$probe" -f -o "$work/$probe.json" -- "$@" \
            </dev/null >/dev/null 2>"$work/$probe.err" || {
            echo "ncu_compare: topdown --arch $probe failed:" >&2
            cat "$work/$probe.err" >&2
            exit 2
        }
        printf '1\t%s\t%s\t%s\n' "$work/$probe.json" "$work/$probe.csv" "$names" >>"$manifest"
        # ncu prints its CSV on stdout among the app's output; the parser
        # keeps the quoted lines.
        # shellcheck disable=SC2086
        "$NCU" $NCU_FLAGS --metrics "$names" --csv --print-units base "$@" \
            </dev/null >"$work/$probe.csv" 2>"$work/$probe.csv.err" || {
            echo "ncu_compare: ncu failed:" >&2
            cat "$work/$probe.csv.err" >&2
            exit 2
        }
    done <"$work/probes.txt"
else
    i=1
    while [ "$i" -le "$REPEAT" ]; do
        # shellcheck disable=SC2086
        "$NCU" $NCU_FLAGS --metrics "$metrics" --csv --print-units base "$@" \
            >"$work/ncu$i.csv" 2>"$work/ncu$i.err" || {
            echo "ncu_compare: ncu failed:" >&2
            cat "$work/ncu$i.err" >&2
            exit 2
        }
        printf '%s\t%s\t%s\t%s\n' "$i" "$work/topdown$i.json" "$work/ncu$i.csv" "$metrics" \
            >>"$manifest"
        i=$((i + 1))
    done
fi

python3 - "$TOL" "$PASSES" "$work" "$("$NCU" --version | tail -n 1)" "$NCU_FLAGS" <<'PY'
import csv, json, re, sys

tol, passes, work, ncu_version, ncu_flags = (float(sys.argv[1]), sys.argv[2], sys.argv[3],
                                             sys.argv[4], sys.argv[5])

def base_name(name):
    """'void scale<float>(T1 *, T1)' and 'scale<float>(float*, float)' -> scale<float>"""
    name = re.sub(r"^void\s+", "", name.strip())
    depth, out = 0, []
    for ch in name:
        if ch == "(" and depth == 0:
            break
        depth += ch == "<"
        depth -= ch == ">"
        out.append(ch)
    return "".join(out).replace(" ", "")

def profiled_v1(res):
    for dev in res["devices"]:
        for l in dev["launches"]:
            if l.get("profiled"):
                c = l["counters"]
                values = c if isinstance(c, dict) else dict(zip(dev["metrics"], c))
                yield l["id"], l["kernel"], values

def profiled_v2(res):
    """docs/RESULT_FORMAT.md: launches as columns, counters of their group."""
    for dev in res["devices"]:
        table = dev["launches"]
        ids = [first + j for first, n in table["id_runs"] for j in range(n)]
        prof = dev.get("profiled", {})
        rows = prof.get("launch", [])
        for row, group, values in zip(rows, prof.get("group", [-1] * len(rows)),
                                      prof.get("counters", [])):
            names = dev["metrics"] if group < 0 else [dev["metrics"][m] for m in dev["groups"][group]]
            kernel = res["kernels"][dev["configs"][table["config"][row]][0]][0]
            yield ids[row], kernel, dict(zip(names, values))

def topdown_launches(path):
    res = json.load(open(path))
    read = profiled_v1 if res.get("schema") == "topdown-result/1" else profiled_v2
    out = sorted(read(res), key=lambda x: x[0])
    return res, [(k, v) for _, k, v in out]

def ncu_launches(path):
    rows = [line for line in open(path, newline="") if line.startswith('"')]
    start = next((i for i, r in enumerate(rows) if r.startswith('"ID"')), None)
    if start is None:
        sys.exit("ncu_compare: no CSV table in ncu's output (%s)" % path)
    found = {}
    for row in csv.DictReader(rows[start:]):
        entry = found.setdefault(int(row["ID"]), (row["Kernel Name"], {}))
        try:
            entry[1][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return [found[k] for k in sorted(found)]

def rel(a, b):
    scale = max(abs(a), abs(b))
    return abs(a - b) / scale if scale else 0.0

def merge(into, launches, names):
    """Adds the named counters of each launch; the first measurement wins."""
    if into is None:
        into = [(kernel, {}) for kernel, _ in launches]
    for (kernel, values), (_, merged) in zip(launches, into):
        for name in names:
            if name in values and name not in merged:
                merged[name] = values[name]
    return into[:len(launches)]

# manifest: run, topdown result, ncu CSV, the metrics to take from them
runs = {}
for line in open("%s/manifest.txt" % work):
    run, td_path, ncu_path, names = line.rstrip("\n").split("\t")
    res, td_part = topdown_launches(td_path)
    r = runs.setdefault(int(run), {"res": res, "td": None, "ncu": None})
    r["td"] = merge(r["td"], td_part, names.split(","))
    r["ncu"] = merge(r["ncu"], ncu_launches(ncu_path), names.split(","))
res, td, ncu = runs[1]["res"], runs[1]["td"], runs[1]["ncu"]
again = runs.get(2, runs[1])
td_again, ncu_again, repeat = again["td"], again["ncu"], len(runs)

print("topdown vs ncu: raw counters per kernel launch")
for dev in res["devices"]:
    print("device: %s (%s, CC %s, %s SMs); arch table %s; %s replay passes"
          % (dev["name"], dev["chip"], dev["compute_capability"], dev["sm_count"],
             dev["arch"], dev["passes"]))
print("app: %s" % " ".join(res["app"]["argv"]))
print("ncu: %s, flags: %s" % (ncu_version, ncu_flags))
if passes == "one":
    print("passes: one per stall reason, with the five base counters, in both tools (PASSES=one)")
print("tolerance %.2f%%; noise = |run1 - run2| of topdown + the same of ncu (%d run(s) each);"
      " durations not compared" % (100 * tol, repeat))
print()
fmt = "%-4s %-14s %-48s %14s %14s %8s %8s  %s"
print(fmt % ("#", "kernel", "metric", "topdown", "ncu", "diff", "noise", "") +
      "  of stalls")
verdicts = {"OK": 0, "NOISE": 0, "FAIL": 0}
by_class = {}
problems = []
if len(td) != len(ncu):
    problems.append("ncu profiled %d launches, topdown %d" % (len(ncu), len(td)))
for i, ((kernel, mine), (their_kernel, theirs)) in enumerate(zip(td, ncu)):
    if base_name(kernel) != base_name(their_kernel):
        problems.append("launch %d is %s in topdown but %s in ncu" % (i, kernel, their_kernel))
        continue
    for name, value in mine.items():
        if "time_duration" in name:
            continue
        other = theirs.get(name)
        if other is None:
            problems.append("launch %d: ncu has no %s" % (i, name))
            continue
        diff = rel(value, other)
        # What the model sees: a stall reason's share of all stall cycles.
        stalls = sum(v for k, v in theirs.items() if "warps_issue_stalled" in k)
        share = abs(value - other) / stalls if "warps_issue_stalled" in name and stalls else None
        noise = rel(value, td_again[i][1].get(name, value)) + \
            rel(other, ncu_again[i][1].get(name, other))
        verdict = "OK" if diff <= tol else "NOISE" if diff <= tol + noise else "FAIL"
        verdicts[verdict] += 1
        kind = "instructions" if "inst_" in name else "cycles and stalls"
        cls = by_class.setdefault(kind, {"OK": 0, "NOISE": 0, "FAIL": 0, "worst": 0.0})
        cls[verdict] += 1
        cls["worst"] = max(cls["worst"], diff)
        if share is not None:
            cls["share"] = max(cls.get("share", 0.0), share)
            if verdict == "FAIL":
                cls["fail_share"] = max(cls.get("fail_share", 0.0), share)
        print(fmt % (i, base_name(kernel)[:14], name, "%.0f" % value, "%.0f" % other,
                     "%.2f%%" % (100 * diff), "%.2f%%" % (100 * noise), verdict) +
              ("  %6.2f%%" % (100 * share) if share is not None else ""))
print()
for p in problems:
    print("FAIL:", p)
for kind, cls in sorted(by_class.items()):
    print("%-18s %4d OK, %4d within noise, %4d FAIL; largest difference %.2f%%"
          % (kind + ":", cls["OK"], cls["NOISE"], cls["FAIL"], 100 * cls["worst"]))
    if "share" in cls:
        print("%-18s a stall reason's difference is at most %.2f%% of its kernel's stall "
              "cycles (%.2f%% among the FAILs)" % ("", 100 * cls["share"],
                                                   100 * cls.get("fail_share", 0.0)))
total = sum(verdicts.values())
print("all counters:      %4d of %d within %.0f%%" % (verdicts["OK"], total, 100 * tol))
sys.exit(1 if problems or verdicts["OK"] != total else 0)
PY
