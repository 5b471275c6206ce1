#!/usr/bin/env bash
# Several GPUs and several processes, measured (issue 14): on a machine of
# two or more GPUs (the device tool's nvidia-h200-x2), runs
#   1. td_peer (tests/gpu/apps: kernels on GPUs 0 and 1, HtoD, memset,
#      cudaMemcpyPeer both ways, DtoH) natively and under topdown: one
#      result with a device section per GPU, its report (a tree per device,
#      the Copies line) and its trace;
#   2. benchmarks/ddp_loop.py, a PyTorch DistributedDataParallel loop (2
#      processes, NCCL, torchrun) natively, then with topdown started by
#      torchrun per worker, `-o ddp.%q{RANK}.json`: one result per rank,
#      merged, the imbalance report across the ranks, the trace; and the
#      whole job under one topdown (one result, a section per worker);
# and writes every result, report, trace and log, with a README.md of
# the commands, exit codes and wall times, into OUT (default
# benchmarks/results/multigpu_<gpu>_<date>/).
#
#   benchmarks/multigpu.sh [-s STEPS] [-r REPS] [-t SECONDS] [-o OUT]
#
#   -s STEPS    ddp_loop.py steps (default 200)
#   -r REPS     td_peer --reps (default 20; 256 MiB buffers)
#   -t SECONDS  kill a run after SECONDS (default 600)
#   -o OUT      the output folder
#
# Build first (bash scripts/setup.sh: topdown, libtopdown_inject.so and
# build/tests/gpu/td_peer); on a device machine without this machine's
# Debian libraries, after scripts/device_prep.sh, run it as
# LD_LIBRARY_PATH=$PWD/build/devlib benchmarks/multigpu.sh. DDP runs with --replay-mode none: kernel replay
# would re-run NCCL kernels whose peers do not run them again. Without
# torchrun or torch the DDP part is skipped and the README says so.
# Environment: TOPDOWN (default BUILD/topdown), BUILD (default build).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
steps=200
reps=20
tlimit=600
out=""

die() { echo "multigpu.sh: $*" >&2; exit 2; }

while getopts "s:r:t:o:h" opt; do
    case $opt in
        s) steps=$OPTARG ;;
        r) reps=$OPTARG ;;
        t) tlimit=$OPTARG ;;
        o) out=$OPTARG ;;
        h) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see multigpu.sh -h" ;;
    esac
done
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "-s needs a positive number of steps, got '$steps'"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-r needs a positive number of repetitions, got '$reps'"
[[ $tlimit =~ ^[1-9][0-9]*$ ]] || die "-t needs a positive number of seconds, got '$tlimit'"

cd "$root" || die "cannot enter $root"
# NVLink multicast stays off (the device tool's KINDS.md: a program that
# uses it can put the host's shared GPUs out of service), also where the
# machine's own environment would not say so.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
build=${BUILD:-build}
topdown=$(realpath -m "${TOPDOWN:-$build/topdown}")
peer=$(realpath -m "$build/tests/gpu/td_peer")
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"
[ -x "$peer" ] || die "td_peer not found at $peer; build with a CUDA compiler (bash scripts/setup.sh)"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 2 ] || die "needs two GPUs, nvidia-smi lists $gpus (use the nvidia-h200-x2 machine)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr -c 'A-Za-z0-9\n' '_')
out=${out:-benchmarks/results/multigpu_${gpu}_$(date -u +%F)}
mkdir -p "$out" || die "cannot create $out"
out=$(realpath "$out")
readme=$out/README.md

{
    echo "# Several GPUs, several processes: $(date -u +'%F %H:%M') UTC"
    echo
    echo "Written by \`benchmarks/multigpu.sh -s $steps -r $reps\` on $gpus GPUs:"
    echo
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | sed 's/^/    /'
    echo
    echo "| step | exit | wall s | command |"
    echo "|---|---|---|---|"
} > "$readme"

# step NAME COMMAND...: runs it (stdout and stderr into NAME.log), adds a row.
step() {
    local name=$1
    shift
    local t0 t1 rc
    t0=$(date +%s.%N)
    timeout "$tlimit" "$@" > "$out/$name.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    printf '| %s | %s | %.2f | `%s` |\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$*" >> "$readme"
    echo "multigpu.sh: $name: exit $rc" >&2
    return $rc
}

# The report's header and device lines, for the README.
excerpt() {
    echo
    echo "\`$1\`:"
    echo
    grep -E '^(Device|Kernels|Copies|Application|  IPC)' "$out/$1" | sed 's/^/    /'
}

# 1. td_peer: one process, two GPUs.
bytes=268435456
step peer_native "$peer" --reps "$reps" --bytes "$bytes"
step peer_topdown "$topdown" -l 2 -o "$out/td_peer.json" -f -- "$peer" --reps "$reps" --bytes "$bytes"
step peer_report "$topdown" report "$out/td_peer.json" -l 2 --kernels 0
cp "$out/peer_report.log" "$out/td_peer_report.txt"
step peer_trace "$topdown" trace "$out/td_peer.json" -o "$out/td_peer_trace.json" -f

# 2. DDP over NCCL: two processes, a GPU each.
if command -v torchrun > /dev/null && python3 -c 'import torch' 2> /dev/null; then
    torchrun=(torchrun --standalone --nproc_per_node 2)
    step ddp_native "${torchrun[@]}" benchmarks/ddp_loop.py "$steps"
    rm -f "$out"/ddp.*.json
    step ddp_ranks "${torchrun[@]}" --no-python "$topdown" --replay-mode none \
        -o "$out/ddp.%q{RANK}.json" -- python3 benchmarks/ddp_loop.py "$steps"
    step ddp_merge "$topdown" merge "$out/ddp.0.json" "$out/ddp.1.json" -o "$out/ddp_ranks.json" -f
    step ddp_imbalance "$topdown" imbalance "$out/ddp_ranks.json"
    cp "$out/ddp_imbalance.log" "$out/ddp_imbalance.txt"
    step ddp_report "$topdown" report "$out/ddp_ranks.json" -l 2
    cp "$out/ddp_report.log" "$out/ddp_report.txt"
    step ddp_trace "$topdown" trace "$out/ddp_ranks.json" -o "$out/ddp_trace.json" -f
    step ddp_job "$topdown" --replay-mode none -l 1 -o "$out/ddp_job.json" -f -- \
        "${torchrun[@]}" benchmarks/ddp_loop.py "$steps"
else
    echo "| ddp | skipped | | torchrun or torch missing |" >> "$readme"
fi

# Each rank's loop seconds, natively and under topdown (ddp_loop.py's
# "ddp_loop: rank R of N, ... S s," records): the profiling cost per rank.
# The ranks share the log, and one rank's record can land in the middle
# of another's line (ddp_native.log of the H200 run: two records on one
# line), so each record is cut out wherever it is before it is read.
rank_records() {
    grep -oE 'ddp_loop: rank [0-9]+ of [0-9]+(, [^,:]+)*, [0-9.]+ s,' "$1"
}
rank_costs() {
    local native=$out/ddp_native.log profiled=$out/ddp_ranks.log
    [ -f "$native" ] && [ -f "$profiled" ] || return 0
    echo
    echo "## Profiling cost per rank (ddp_loop.py's loop, seconds)"
    echo
    echo "| rank | native s | topdown s | ratio |"
    echo "|---|---:|---:|---:|"
    { rank_records "$native" | sed 's/^/native /'; rank_records "$profiled" | sed 's/^/topdown /'; } |
        awk '{ r = $4; for (i = 1; i < NF; i++) if ($(i + 1) == "s,") s = $i
               if ($1 == "native") n[r] = s; else t[r] = s }
             END { for (r in n) if (r in t) printf "| %s | %.3f | %.3f | %.2fx |\n", r, n[r], t[r], t[r] / n[r] }' |
        sort -t '|' -k 2,2n
}

{
    rank_costs
    echo
    echo "## Excerpts"
    excerpt td_peer_report.txt
    [ -f "$out/ddp_report.txt" ] && excerpt ddp_report.txt
    if [ -f "$out/ddp_imbalance.txt" ]; then
        echo
        echo "\`ddp_imbalance.txt\` (head):"
        echo
        head -n 30 "$out/ddp_imbalance.txt" | sed 's/^/    /'
    fi
    echo
    echo "Traces: \`td_peer_trace.json\`, \`ddp_trace.json\` (open in https://ui.perfetto.dev)."
} >> "$readme"
echo "multigpu.sh: wrote $out" >&2
