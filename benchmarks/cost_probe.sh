#!/usr/bin/env bash
# Where a profiled launch's time goes (issue 23): td_tiny (100,000 launches
# of a 1-block kernel) and pytorch_mlp.py STEPS under topdown, default and
# --replay-mode none, with TOPDOWN_DEBUG=1, whose exit lines time each
# profiler step (GPU waits, configurations selected, Start, PushRange,
# PopRange, Stop, decodes, evaluations, replayed launches, launches in
# counter groups: calls, total, mean), the traced launches' steps and the
# budget's state at the end. Prints those lines and the report's header
# lines of each run, after the native loops; keeps each run's result and
# whole log in DIR.
#
#   benchmarks/cost_probe.sh [-o DIR (build/cost_probe)] [-s STEPS (500)]
#
# benchmarks/results/choice_moves_NVIDIA_H100_2026-11-26.md is a run of it
# (by hand, before it was a script). Exit 0, 2 on a bad argument.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
work=build/cost_probe steps=500
while getopts "o:s:" opt; do
    case $opt in
        o) work=$OPTARG ;;
        s) steps=$OPTARG ;;
        *) echo "usage: benchmarks/cost_probe.sh [-o DIR] [-s STEPS]" >&2; exit 2 ;;
    esac
done
topdown=${TOPDOWN:-build/topdown}
mkdir -p "$work"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

run() { # NAME FLAGS... -- CMD...
    local name=$1
    shift
    echo "== $name"
    TOPDOWN_DEBUG=1 timeout 300 "$topdown" --no-progress -o "$work/$name.json" -f "$@" \
        > "$work/$name.log" 2>&1
    echo "exit $?"
    grep -E "loop_s|probe|budget at the end|end of run|injection set up|context .* set up|^Cost|^ +coverage|^Collection|launches per|Kernels:" \
        "$work/$name.log" | grep -v "budget at launch"
}

for i in 1 2; do build/benchmarks/td_tiny | grep loop_s; done
run tiny -- build/benchmarks/td_tiny
run tiny_none --replay-mode none -- build/benchmarks/td_tiny
if python3 -c 'import torch' 2>/dev/null; then
    python3 benchmarks/pytorch_mlp.py "$steps" | grep loop_s
    run pytorch -l 1 -- python3 benchmarks/pytorch_mlp.py "$steps"
    run pytorch_none -l 1 --replay-mode none -- python3 benchmarks/pytorch_mlp.py "$steps"
else
    echo "== pytorch: skipped (no torch)"
fi
exit 0
