#!/usr/bin/env bash
# One part of the GPU session's plan per call of the device tool (each call
# may run 10 minutes; a session has about 30 minutes of device time). Runs
# from the repository root on the GPU machine, with build/ carried after
# scripts/device_prep.sh, and leaves its logs and everything new under
# benchmarks/results/ in $OUT/PART.tgz (the tool brings $OUT back):
#
#   tests    ctest -L gpu: every GPU test (the designed kernels directly and
#            in graphs, collection, replay-free, conditions, copies, NVTX,
#            source, PM sampling); about 5 minutes
#   collect  replayfree.sh on td_bench --reps 50 (the none-mode coverage
#            fix), graphs.sh, sample_every.sh, one run each
#   truth    grouping_invariance.sh and lib_agreement.sh (needs ncu)
#   extra    every other benchmarks/*_overhead.sh present (PC sampling,
#            PM sampling), the NVTX PyTorch loop by region, and td_bench's
#            `topdown source` reports (source_report.sh)
#   multi    on nvidia-h200-x2: test_multigpu and multigpu.sh
#   truth2   truth.sh: every app by default and with every launch profiled
#            (kernel replay), truth_<device>.csv and its verdicts (issue 22);
#            about 4-6 minutes; the results, trees and logs in
#            $OUT/truth2_work.tar.xz
#   probe    cost_probe.sh: where a profiled launch's time goes (TOPDOWN_DEBUG's
#            profiler spans), td_tiny and PyTorch, default and none mode;
#            about 1 minute; results and logs in $OUT/probe_work.tar.xz
#   cost     cost.sh -n 3: in-loop cost of tracing and sampling per case,
#            cost_<device>.csv (issue 23); about 5 minutes; the run logs in
#            $OUT/cost_work.tgz
#   timesampled  topdown --time-sampled on td_bench, then truth.sh -m application
#            -s --time-sampled -d (TS_APPS: the apps; TS_TAG: the CSV's name,
#            truth_natural_<TAG>.csv); results in $OUT/ts_work.tar.xz
#   floor    cupti_floor.sh -n 3: td_tiny (one thread, 8 threads, 1 launch)
#            natively, under CUPTI alone (libcupti_floor.so) and under
#            topdown, cupti_floor_<device>.csv (issue 23); about 2 minutes
#
#   bash benchmarks/gpu_session.sh PART [SECONDS]   (SECONDS: the part's limit, default 540)
#
# Each command of a part gets what is left of the part's limit, so the
# part ends, and brings its files back, inside the tool's 10 minutes.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
part=${1:-}
limit=${2:-540}
out=${OUT:-/tmp/gpu_session_out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
log="$out/$part.log"
start=$(date +%s)
stamp=$(mktemp)

left() { echo $((limit - ($(date +%s) - start))); }
step() { # step NAME CMD...: runs CMD with the time left, logs its exit code
    local name=$1; shift
    local t; t=$(left)
    if [ "$t" -lt 20 ]; then
        echo "== $name: skipped, the part's time is spent" | tee -a "$log"
        return
    fi
    echo "== $name ($t s left): $*" | tee -a "$log"
    timeout -k 5 "$t" "$@" 2>&1 | tee -a "$log"
    echo "== $name: exit ${PIPESTATUS[0]}" | tee -a "$log"
}

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } >> "$log" 2>&1
case $part in
    tests)
        step ctest-gpu ctest --test-dir build -L gpu --output-on-failure ;;
    collect)
        step replayfree-none bash benchmarks/replayfree.sh -n 1 -t 120 "td_bench --reps 50"
        step graphs bash benchmarks/graphs.sh -n 1
        step sample-every bash benchmarks/sample_every.sh -n 1 ;;
    truth)
        step grouping bash benchmarks/grouping_invariance.sh
        step libs bash benchmarks/lib_agreement.sh ;;
    extra)
        for script in benchmarks/*_overhead.sh; do
            [ -e "$script" ] && step "$(basename "$script" .sh)" bash "$script"
        done
        step nvtx-pytorch build/topdown -o build/nvtx_mlp.json -f -l 1 -- \
            python3 benchmarks/pytorch_mlp_nvtx.py
        step nvtx-regions build/topdown report build/nvtx_mlp.json --by-region -l 2
        step source-report bash benchmarks/source_report.sh ;;
    multi)
        step ctest-multigpu ctest --test-dir build -R test_multigpu --output-on-failure
        step multigpu bash benchmarks/multigpu.sh ;;
    truth2)
        # Each run at most 120 s; the table is rewritten after each app, so
        # a part cut short keeps the apps it finished.
        step truth2 bash benchmarks/truth.sh -t 120 -o build/truth
        # The results themselves too (xz): they are what benchmarks/results
        # bundles and test_truth_table re-reads.
        find build/truth \( -name '*.json' -o -name '*.log' -o -name status.txt \) -print0 |
            tar -cJf "$out/truth2_work.tar.xz" --null -T - 2>> "$log" ;;
    probe)
        step cost-probe bash benchmarks/cost_probe.sh -o build/cost_probe
        find build/cost_probe \( -name '*.json' -o -name '*.log' \) -print0 |
            tar -cJf "$out/probe_work.tar.xz" --null -T - 2>> "$log" ;;
    cost)
        step cost bash benchmarks/cost.sh -n 3 -t 120 -w build/cost
        find build/cost -name '*.log' -print0 |
            tar -czf "$out/cost_work.tgz" --null -T - 2>> "$log" ;;
    floor)
        step floor bash benchmarks/cupti_floor.sh -n 3 -w build/floor ;;
    timesampled)
        # --time-sampled (issue 38) and the natural truth (issue 39): td_bench's
        # designed kernels, then truth.sh against application replay with the
        # default judged too; TS_APPS picks the apps (default: every one).
        step ts-bench build/topdown --time-sampled -l 3 -f -o build/ts_bench.json -- \
            build/benchmarks/td_bench
        step ts-truth bash benchmarks/truth.sh -t 120 -m application -s --time-sampled -d \
            -o build/truth_ts -c "benchmarks/results/truth_natural_${TS_TAG:-run}.csv" \
            ${TS_APPS:+-a "$TS_APPS"}
        find build/truth_ts build/ts_bench.json \( -name '*.json' -o -name '*.log' -o \
            -name status.txt \) -print0 |
            tar -cJf "$out/ts_work.tar.xz" --null -T - 2>> "$log" ;;
    *)
        echo "gpu_session.sh: PART is tests, collect, truth, extra, multi, truth2, probe, cost, floor or timesampled" >&2
        exit 2 ;;
esac
# What the part wrote under benchmarks/results, with its log.
find benchmarks/results -newer "$stamp" -type f -print0 |
    tar -czf "$out/$part.tgz" --null -T - -C "$out" "$part.log" 2>> "$log"
rm -f "$stamp"
ls -l "$out"
