#!/usr/bin/env bash
# Where loads are served, as Nsight Compute counts them: L1 and L2 sector
# hits and misses, DRAM bytes, each unit's throughput and peak, and the
# long-scoreboard stalls, for every launch (kernel replay) of td_bench's
# chase at three levels (l1_hit, l2_hit, l1_bound) and sgemm, and of the
# PyTorch loop. benchmarks/ncu_memory.py sums the CSVs per kernel.
#
#   benchmarks/ncu_memory.sh -o OUTDIR [-b BUILD_DIR]
#
# Writes into OUTDIR:
#   ncu_td_bench_all.csv   --cache-control all --clock-control base: caches
#                          flushed before every replay pass, clocks at base
#   ncu_td_bench_none.csv  --cache-control none --clock-control none: caches
#                          and clocks as the app leaves them, as topdown sees
#                          them
#   ncu_pytorch_none.csv   pytorch_mlp.py 20 under the second conditions,
#                          its first 400 launches; only if python3 imports torch
# Each .csv is ncu's --csv --page raw table (a row per launch, a units row
# under the header); ncu's whole output, the app's lines too, is in the
# .log beside it. Then: benchmarks/ncu_memory.py OUTDIR/ncu_td_bench_none.csv
#
# Environment: NCU (default ncu), TD_BENCH (default
# BUILD_DIR/benchmarks/td_bench), PYTHON (default python3), RUNS (default
# "all none": which td_bench runs to make; "none" alone leaves the clocks
# alone, as a shared machine asks).
set -euo pipefail

# The counters, in one place: L1 and L2 sector hits and misses of global
# loads, DRAM traffic, each unit's work against its peak per cycle and its
# cycles (so throughput can be recomputed from sums), ncu's own throughput
# and hit-rate ratios, the stall the chase kernels are designed to cause,
# and the duration (the weight of the percentages in ncu_memory.py).
METRICS="
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
dram__bytes_read.sum
dram__bytes_write.sum
dram__bytes.sum.peak_sustained
dram__cycles_elapsed.avg
lts__t_sectors.sum
lts__t_sectors.sum.peak_sustained
lts__cycles_elapsed.avg
l1tex__data_pipe_lsu_wavefronts.sum
l1tex__data_pipe_lsu_wavefronts.sum.peak_sustained
l1tex__cycles_elapsed.avg
dram__throughput.avg.pct_of_peak_sustained_elapsed
lts__throughput.avg.pct_of_peak_sustained_elapsed
l1tex__throughput.avg.pct_of_peak_sustained_active
sm__throughput.avg.pct_of_peak_sustained_elapsed
l1tex__t_sector_hit_rate.pct
lts__t_sector_hit_rate.pct
smsp__warps_issue_stalled_long_scoreboard.sum
smsp__inst_issued.sum
smsp__inst_issued.sum.peak_sustained
smsp__cycles_elapsed.avg
gpu__time_duration.sum
"

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build"
out=""

die() { echo "ncu_memory.sh: $*" >&2; exit 2; }
usage() { echo "usage: $0 -o OUTDIR [-b BUILD_DIR]" >&2; exit 2; }

while getopts "o:b:h" opt; do
    case $opt in
        o) out=$OPTARG ;;
        b) build=$OPTARG ;;
        h) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 0 ] || [ -z "$out" ]; then usage; fi

ncu=${NCU:-ncu}
bench=${TD_BENCH:-$build/benchmarks/td_bench}
python=${PYTHON:-python3}
runs=${RUNS:-all none}
command -v "$ncu" > /dev/null || die "'$ncu' not found (set NCU)"
[ -x "$bench" ] || die "td_bench not found at $bench; build it (cmake --build $build --target td_bench) or set TD_BENCH"
mkdir -p "$out" || die "cannot make $out"
metrics=$(grep . <<< "$METRICS" | paste -sd , -)

# profile NAME FLAGS CMD...: ncu's output to OUTDIR/NAME.log, its CSV lines
# (the quoted ones; ncu prints them among the app's output) to NAME.csv.
profile() {
    local name=$1 flags=$2
    shift 2
    local log="$out/$name.log" csv="$out/$name.csv"
    echo "ncu_memory.sh: $name: $*" >&2
    # $flags is split into ncu's options on purpose.
    # shellcheck disable=SC2086
    if ! "$ncu" --csv --page raw --print-units base --replay-mode kernel $flags \
            --metrics "$metrics" "$@" > "$log" 2>&1; then
        tail -n 20 "$log" >&2
        die "$name: ncu failed (whole output in $log)"
    fi
    grep '^"' "$log" > "$csv" || die "$name: no CSV in ncu's output (see $log)"
    echo "ncu_memory.sh: wrote $csv ($(grep -c '^"[0-9]' "$csv") launches)" >&2
}

for run in $runs; do
    case $run in
        all) flags="--cache-control all --clock-control base" ;;
        none) flags="--cache-control none --clock-control none" ;;
        *) die "RUNS takes 'all' and 'none', got '$run'" ;;
    esac
    profile "ncu_td_bench_$run" "$flags" "$bench" --kernel l1_hit,l2_hit,l1_bound,sgemm
done

if "$python" -c 'import torch' > /dev/null 2>&1; then
    profile ncu_pytorch_none "--cache-control none --clock-control none --launch-count 400" \
        "$python" "$root/benchmarks/pytorch_mlp.py" 20
else
    echo "ncu_memory.sh: $python cannot import torch: no PyTorch run" >&2
fi
echo "ncu_memory.sh: per kernel: $here/ncu_memory.py $out/ncu_td_bench_${runs##* }.csv" >&2
