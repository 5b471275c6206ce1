#!/usr/bin/env bash
# Makes devcarry/build: a copy of build/ small enough to carry to the GPU
# machine (the device tool's 64 MiB), leaving build/ and its object files
# alone so that the next build here stays incremental: no object files,
# debug sections stripped, only the tests labelled gpu, the libraries of
# scripts/device_prep.sh, packed as devcarry/build.tar.xz (about 5 MB where
# the folder is 60). On the GPU machine: tar xJf devcarry/build.tar.xz
#
#   bash scripts/device_carry.sh        (ignored by git: .git/info/exclude)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/topdown ] || { echo "device_carry: build/topdown is missing; build first" >&2; exit 1; }
grep -qx '/devcarry/' .git/info/exclude 2>/dev/null || echo /devcarry/ >> .git/info/exclude
rm -rf devcarry/build
mkdir -p devcarry
cp -a build devcarry/build
gpu_tests=$(ctest --test-dir build -N -L gpu | awk '/Test +#/ {print $3}')
for t in devcarry/build/tests/test_*; do
  name=$(basename "$t")
  grep -qx "$name" <<<"$gpu_tests" || rm -f "$t"
done
rm -rf devcarry/build/tests/fuzz devcarry/build/build-* 2>/dev/null || true
bash scripts/device_prep.sh devcarry/build >/dev/null
find devcarry/build -type f -perm -u+x \( -name '*.so' -o ! -name '*.*' \) \
  -exec strip --strip-debug {} + 2>/dev/null || true
tar cf - -C devcarry build | xz -T0 -6 > devcarry/build.tar.xz
rm -rf devcarry/build
du -h devcarry/build.tar.xz
