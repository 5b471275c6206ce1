#!/usr/bin/env bash
# The `topdown source` reports of td_bench's designed kernels, recorded on
# the GPU for docs/SOURCE.md: td_bench's tree (`topdown -l 3`), then per
# designed kernel (built with -lineinfo) one `topdown --source` run and its
# hottest lines for its bottleneck (and --sass), all written with the
# results and their cubins to benchmarks/results/source_<gpu>_<date>/.
#
#   benchmarks/source_report.sh [-b BUILD_DIR] [-n LINES] [-o DIR]
#
# Environment: TOPDOWN (default BUILD_DIR/topdown), TD_BENCH (default
# BUILD_DIR/benchmarks/td_bench).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build"
lines=10
out_dir=""

die() { echo "source_report.sh: $*" >&2; exit 2; }

while getopts "b:n:o:h" opt; do
    case $opt in
        b) build=$OPTARG ;;
        n) lines=$OPTARG ;;
        o) out_dir=$OPTARG ;;
        h) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see source_report.sh -h" ;;
    esac
done
[[ $lines =~ ^[0-9]+$ ]] || die "-n needs a number of lines, got '$lines'"
topdown=${TOPDOWN:-$build/topdown}
bench=${TD_BENCH:-$build/benchmarks/td_bench}
[ -x "$topdown" ] || die "topdown not found at $topdown (build it, or set TOPDOWN)"
[ -x "$bench" ] || die "td_bench not found at $bench (set TD_BENCH)"

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
gpu=${gpu:-unknown GPU}
[ -n "$out_dir" ] || out_dir="$here/results/source_$(echo "$gpu" | tr ' /' '__')_$(date +%F)"
mkdir -p "$out_dir" || die "cannot make $out_dir"
result="$out_dir/td_bench.topdown.json"

# The tree from a run without --source (a context measures no counters once
# PC sampling loaded its modules: docs/SOURCE.md); the PC samples from one
# run per kernel, as tests/gpu/test_source.c runs them: run together, the
# constant kernel's cudaMemcpyToSymbol loads td_bench's module before its
# first launch, and CUPTI samples none of its kernels (H100, 2026-11-26).
echo "source_report.sh: $gpu, td_bench under topdown -l 3, then each kernel under --source" >&2
"$topdown" -l 3 --no-progress -f -o "$result" -- "$bench" > "$out_dir/tree.txt" 2> "$out_dir/run.err" ||
    echo "source_report.sh: topdown exited with $? (see $out_dir/run.err)" >&2
while IFS=$'\t' read -r name node kind _; do
    [ "$kind" = default ] || continue
    sampled="$out_dir/$name.topdown.json"
    "$topdown" --no-progress --source -f -o "$sampled" -k "^bench_$name\$" -- "$bench" --kernel "$name" --reps 3 \
        > /dev/null 2>> "$out_dir/run.err" ||
        echo "source_report.sh: $name: topdown exited with $? (see $out_dir/run.err)" >&2
    {
        echo "# td_bench $name (designed node: $node)"
        "$topdown" source "$sampled" "^bench_$name\$" -n "$lines"
        echo
        "$topdown" source "$sampled" "^bench_$name\$" -n "$lines" --sass
    } > "$out_dir/$name.txt" 2>&1
    "$topdown" source "$sampled" "^bench_$name\$" -n 0 --csv "$out_dir/$name.csv" -f > /dev/null 2>&1
done < <("$bench" --list)
echo "source_report.sh: wrote $out_dir" >&2
