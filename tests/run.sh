#!/usr/bin/env bash
# The whole test suite: set up and build, run every test (GPU tests skip
# themselves without a GPU), then the unit tests again in an optimised
# Release build (build-release: the optimiser's warnings are errors too) and
# under AddressSanitizer and UBSan in a Debug build (the replay of every fuzz
# input found before included), then
# each fuzz target for a bounded time (tests/fuzz/run.sh; FUZZ_SECONDS per
# target, default 15; tests/fuzz/run_long.sh runs longer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DTOPDOWN_WERROR=ON \
  -DTOPDOWN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-release -j"$(nproc)"
ctest --test-dir build-release --output-on-failure -L unit
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTOPDOWN_WERROR=ON -DTOPDOWN_SANITIZE=ON \
  -DTOPDOWN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -L unit
bash tests/fuzz/run.sh "${FUZZ_SECONDS:-15}"
