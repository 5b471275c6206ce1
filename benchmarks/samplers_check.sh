#!/usr/bin/env bash
# GPU check of the samplers' fixes (PM, PC, NVTX) in one device call
# (written for issue 24): the PM sampler on td_stencil (plain, and under glibc's malloc checks), ctest of
# the three GPU tests (test_pmsampling, test_source, test_nvtx), PC
# sampling on one td_bench kernel with TOPDOWN_DEBUG. Runs from the
# repository root with build-pm/ carried after scripts/device_prep.sh;
# leaves $OUT/verify.log. benchmarks/results/samplers_check_h100.txt is
# its log from before the exit-order fix, when it also ran the sampler
# with temporary TOPDOWN_PMS_DIAG switches (since removed).
#
#   bash benchmarks/samplers_check.sh [SECONDS]   (default 210)
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
limit=${1:-210}
out=${OUT:-/tmp/samplers_out}
w=/tmp/samplers_check
rm -rf "$w" && mkdir -p "$w" "$out"
log="$out/verify.log"
start=$(date +%s)
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH="$PWD/build-pm/devlib"
td=build-pm/topdown

# shellcheck source=steps.sh
. benchmarks/steps.sh

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; date -u; } >>"$log" 2>&1

step stencil-native 20 build-pm/benchmarks/td_stencil
step pm-fix 30 env TOPDOWN_DEBUG=1 $td --pm-interval 100 -o "$w/pm_fix.json" -f \
    -- build-pm/benchmarks/td_stencil
mdbg=$(ls /usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0 /lib/x86_64-linux-gnu/libc_malloc_debug.so.0 2>/dev/null | head -1)
step pm-fix-malloc-check 30 env ${mdbg:+LD_PRELOAD=$mdbg} GLIBC_TUNABLES=glibc.malloc.check=3 \
    $td --pm-interval 100 -o "$w/pm_check.json" -f -- build-pm/benchmarks/td_stencil
step ctest 170 ctest --test-dir build-pm -L gpu -R 'test_pmsampling|test_source|test_nvtx' \
    --output-on-failure
step pcs-test-cmd 30 env TOPDOWN_DEBUG=1 $td --source --no-progress -f -o "$w/retire.json" \
    -k '^bench_retire$' -- build-pm/benchmarks/td_bench --kernel retire --reps 1
echo "== total $(( $(date +%s) - start )) s" >>"$log"
