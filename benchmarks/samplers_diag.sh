#!/usr/bin/env bash
# GPU diagnosis of the samplers in one device call (written for issue 24):
# PM sampling under --pm-interval (plain, with AddressSanitizer in the injection library,
# and with diagnostic switches), PC sampling (--source, --source-only) with
# TOPDOWN_DEBUG, and NVTX from PyTorch. Runs from the repository root with
# build-pm/ (RelWithDebInfo) and build-pmasan/ (Debug, TOPDOWN_SANITIZE)
# carried after scripts/device_prep.sh; leaves $OUT/diag.log and
# $OUT/diag.tgz (results, spools). Its log is
# benchmarks/results/samplers_diag_h100.txt; the TOPDOWN_PMS_DIAG and
# TOPDOWN_NVTX_DIAG_KEEP switches it sets were temporary (since removed:
# those steps now run the plain sampler and the NVTX fix).
#
#   bash benchmarks/samplers_diag.sh [SECONDS]   (default 200)
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
limit=${1:-200}
out=${OUT:-/tmp/samplers_out}
w=/tmp/samplers_diag
rm -rf "$w" && mkdir -p "$w" "$out"
log="$out/diag.log"
start=$(date +%s)
export PYTHONUNBUFFERED=1
plain_env=(env LD_LIBRARY_PATH="$PWD/build-pm/devlib")
asan_env=(env LD_LIBRARY_PATH="$PWD/build-pmasan/devlib"
          LD_PRELOAD="$PWD/build-pmasan/devlib/libasan.so.8"
          ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:halt_on_error=1:abort_on_error=0)

# shellcheck source=steps.sh
. benchmarks/steps.sh

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; date -u; git log --oneline -1; } >>"$log" 2>&1

# 1. PM sampling on td_stencil: plain, then with ASan in topdown.
step pm-plain 40 "${plain_env[@]}" TOPDOWN_DEBUG=1 TOPDOWN_KEEP_SPOOL=1 build-pm/topdown \
    --pm-interval 100 -o "$w/pm_plain.json" -f -- build-pm/benchmarks/td_stencil
step pm-asan 60 "${asan_env[@]}" TOPDOWN_DEBUG=1 build-pmasan/topdown \
    --pm-interval 100 -o "$w/pm_asan.json" -f -- build-pm/benchmarks/td_stencil

# 2. NVTX from PyTorch: with the injection's fix, then without it.
step nvtx-fix 45 "${plain_env[@]}" TOPDOWN_DEBUG=1 build-pm/topdown -l 1 -o "$w/n_fix.json" -f \
    -- python3 benchmarks/nvtx_torch_min.py
step nvtx-fix-report 15 "${plain_env[@]}" build-pm/topdown report "$w/n_fix.json" --by-region -l 1
step nvtx-keep 45 "${plain_env[@]}" TOPDOWN_DEBUG=1 TOPDOWN_NVTX_DIAG_KEEP=1 build-pm/topdown -l 1 \
    -o "$w/n_keep.json" -f -- python3 benchmarks/nvtx_torch_min.py
step nvtx-keep-report 15 "${plain_env[@]}" build-pm/topdown report "$w/n_keep.json" --by-region -l 1

# 3. PC sampling on td_bench l1_bound: --source, then --source-only.
step pcs-source 40 "${plain_env[@]}" TOPDOWN_DEBUG=1 TOPDOWN_KEEP_SPOOL=1 build-pm/topdown --source \
    -k '^bench_l1_bound$' -o "$w/pcs.json" -f -- build-pm/benchmarks/td_bench --kernel l1_bound --reps 1
step pcs-source-report 15 "${asan_env[@]}" build-pmasan/topdown source "$w/pcs.json" '^bench_l1_bound$' -n 5
step pcs-only 40 "${plain_env[@]}" TOPDOWN_DEBUG=1 TOPDOWN_KEEP_SPOOL=1 build-pm/topdown --source-only \
    -o "$w/pcs_only.json" -f -- build-pm/benchmarks/td_bench --kernel l1_bound --reps 1
step pcs-only-report 15 "${asan_env[@]}" build-pmasan/topdown source "$w/pcs_only.json" '^bench_l1_bound$' -n 5

# 4. PM sampling: which part of the sampler the crash needs.
for d in nothread noeval freshhost noemit; do
    step "pm-diag-$d" 30 "${plain_env[@]}" TOPDOWN_PMS_DIAG=$d build-pm/topdown --pm-interval 100 \
        -o "$w/pm_$d.json" -f -- build-pm/benchmarks/td_stencil
done
step pm-phases 30 "${plain_env[@]}" build-pm/topdown --pm-interval 1000 -o "$w/pm_phases.json" -f \
    -- build-pm/tests/gpu/td_phases --ms 300

# 5. Which NVTX and CUPTI PyTorch carries.
step torch-libs 30 bash -c 'd=$(python3 -c "import torch,os; print(os.path.dirname(torch.__file__))");
  echo "torch dir $d"; ls "$d/lib"; for f in "$d"/lib/libtorch_cuda.so "$d"/lib/libtorch_python.so "$d"/_C*.so; do
  echo "-- ldd $f"; ldd "$f" | grep -i -E "cupti|nvtx|nvToolsExt"; done;
  echo "-- libraries with NVTX_INJECTION64_PATH"; grep -l -a NVTX_INJECTION64_PATH "$d"/lib/*.so* "$d"/_C*.so;
  echo "-- nvidia wheels"; ls -d "$d"/../nvidia/*/lib 2>/dev/null; ls "$d"/../nvidia/*/lib 2>/dev/null | grep -i -E "cupti|nvtx|nvToolsExt"'
echo "== total $(( $(date +%s) - start )) s" >>"$log"
tar -C "$w" -czf "$out/diag.tgz" . 2>>"$log"
ls -la "$out" >>"$log"
