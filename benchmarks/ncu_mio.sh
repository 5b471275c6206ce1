#!/usr/bin/env bash
# ncu's counts of the MIO's work on td_bench's MIO kernels (issue 42: a
# shared-memory node under MIO_Bound). Which counters tell shared-memory
# work from the MIO's other work (shuffles, indexed constants, special
# math) is read off kernels built to do one of them each.
#
#   benchmarks/ncu_mio.sh OUT.csv [BUILD_DIR]
#
# OUT.csv: ncu's --csv --page raw table, a row per launch (the app's own
# lines dropped). NCU (default ncu) may be set.
set -uo pipefail
out=${1:?usage: ncu_mio.sh OUT.csv [BUILD_DIR]}
build=${2:-build}
ncu=${NCU:-ncu}
command -v "$ncu" > /dev/null || { echo "ncu_mio.sh: '$ncu' not found (set NCU)" >&2; exit 2; }
metrics=smsp__warps_issue_stalled_mio_throttle.sum,smsp__warps_issue_stalled_short_scoreboard.sum
metrics+=,smsp__warps_issue_stalled_lg_throttle.sum,smsp__warps_issue_stalled_long_scoreboard.sum
metrics+=,sm__cycles_active.sum,smsp__inst_executed.sum
metrics+=,sm__mio_inst_issued.sum,sm__mioc_inst_issued.sum
metrics+=,sm__mio_pq_read_cycles_active.sum,sm__mio_pq_read_cycles_active_pipe_lsu.sum
metrics+=,sm__mio_pq_read_cycles_active_pipe_adu.sum,sm__mio_pq_write_cycles_active.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
metrics+=,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics+=,smsp__inst_executed_op_ldc.sum,smsp__inst_executed_op_global_ld.sum
metrics+=,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_adu.sum
kernels=mio_bound,smem_chain,mio_shfl,constant_ldc,math_xu,l1_bound,sgemm,retire
"$ncu" --csv --page raw --print-units base --metrics "$metrics" \
    "$build/benchmarks/td_bench" --kernel "$kernels" --reps 1 2> "$out.log" | grep '^"' > "$out"
echo "ncu_mio.sh: $(($(wc -l < "$out") - 2)) launches in $out"
