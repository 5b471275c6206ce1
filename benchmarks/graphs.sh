#!/usr/bin/env bash
# What graph profiling costs (issue: CUDA graphs): the graph workloads run
# natively and under topdown in each replay mode, through replayfree.sh,
# into benchmarks/results/graphs_<gpu>_<date>.md:
#   tests/gpu/td_graphs --launches 2000   a captured and an explicit graph
#   td_bench --graph --reps 200           each designed kernel as a graph
#   python3 benchmarks/pytorch_mlp.py 300 --cuda-graph
#                                         a whole training step captured with
#                                         torch.cuda.graph (when torch imports)
#
#   benchmarks/graphs.sh [-n RUNS]        (default 3 runs per mode, median)
# Environment as replayfree.sh (BUILD, TOPDOWN).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=3
while getopts "n:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        h) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "graphs.sh: unknown option; see graphs.sh -h" >&2; exit 2 ;;
    esac
done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' ' '_')
out="$here/results/graphs_${gpu:-unknown}_$(date -u +%F).md"
workloads=("tests/gpu/td_graphs --launches 2000" "td_bench --graph --reps 200")
if python3 -c "import torch" 2>/dev/null; then
    workloads+=("python3 benchmarks/pytorch_mlp.py 300 --cuda-graph")
fi
exec bash "$here/replayfree.sh" -n "$runs" -o "$out" "${workloads[@]}"
