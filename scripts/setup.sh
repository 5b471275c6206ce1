#!/usr/bin/env bash
# Installs the Debian packages topdown needs (only the missing ones),
# configures and builds into build/. Idempotent; used by quickstart.sh,
# tests/run.sh and CI. The CUDA toolkit (nvcc, CUPTI) is NVIDIA's and must
# already be installed: nvcc on PATH or CUDA in /usr/local/cuda.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and its runtime libraries (libFuzzer, sanitizers) build the fuzz
# targets of tests/fuzz/run.sh; everything else is built with gcc.
packages=(cmake make gcc libc6-dev libcjson-dev liblzma-dev zlib1g-dev libpcre2-dev libcsv-dev help2man gnuplot-nox clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# apt-get's output goes to build/apt.log, shown only when it fails.
mkdir -p build
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]} (apt-get; this can take a few minutes)" >&2
  if ! { $sudo apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } \
       > build/apt.log 2>&1; then
    tail -n 30 build/apt.log >&2
    echo "setup: apt-get failed; the whole log is build/apt.log" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: the CUDA toolkit is missing (no nvcc); install CUDA 12.6+ from NVIDIA and put its bin/ on PATH" >&2
  exit 1
fi

# The build log goes to a file, shown only when the build fails; its
# progress is shown as it goes (scripts/build_progress.sh).
: > build/setup.log
echo "setup: configuring build/ (cmake)" >&2
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > build/setup.log 2>&1 &&
       echo "setup: building with $(nproc) jobs (about a minute the first time)" >&2 &&
       cmake --build build -j"$(nproc)" 2>&1 | bash scripts/build_progress.sh build/setup.log; }; then
  tail -n 60 build/setup.log >&2
  echo "setup: the build failed; the whole log is build/setup.log" >&2
  exit 1
fi
echo "setup: built build/topdown (log: build/setup.log)" >&2
