#!/usr/bin/env bash
# Makes build/ fit to be carried to a GPU machine that has the driver and
# the CUDA toolkit but not this machine's Debian libraries: copies the
# shared libraries topdown's binaries need beyond glibc, CUDA and the
# driver into build/devlib (run there with LD_LIBRARY_PATH=$PWD/build/devlib)
# and deletes the object files, which the runs do not need, so that the
# carried folder stays small. Prints the folder's size.
#
#   bash scripts/device_prep.sh [BUILD]        (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/topdown" ] || { echo "device_prep: $build/topdown is missing; build first (bash scripts/setup.sh)" >&2; exit 1; }
mkdir -p "$build/devlib"
core='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+|libcuda|libcupti|libnvidia-ml|libnvperf_host|libnvperf_target|libcudart|libcublas|libcublasLt|libcufft|libcusparse|libcurand|libnvJitLink)\.'
find "$build" -type f -perm -u+x \( -name '*.so' -o ! -name '*.*' \) -print0 |
    xargs -0 ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r name path; do
        [[ $name =~ $core ]] && continue
        cp -L "$path" "$build/devlib/$name"
    done
find "$build" -name '*.o' -delete
find "$build" -type d -name 'CompilerId*' -prune -exec rm -rf {} +  # cmake's compiler probes
ls "$build/devlib"
du -sh "$build"
