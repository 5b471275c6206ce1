#!/usr/bin/env bash
# The default's H200 runs of 2026-11-29 judged again, by this build's
# estimator, against the stored application-replay truths (issue 39's
# natural truth, time_sampled_h200_2026-11-29/APP.truth.json.xz): four run
# sets of the same collector, one line per app per set, by bar 21
# (truth_table.py --bar21) or issue 22's bar (-b 22). No GPU.
#
#   benchmarks/rejudge_sets.sh [-t TOPDOWN] [-b 21|22] [-o OUT.txt]
set -euo pipefail
cd "$(dirname "$0")/.."
topdown=build/topdown bar=21 out=/dev/stdout
while getopts "t:b:o:" o; do
    case $o in
    t) topdown=$OPTARG ;;
    b) bar=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-t TOPDOWN] [-b 21|22] [-o OUT.txt]" >&2; exit 2 ;;
    esac
done
case $bar in 21) flag=--bar21 ;; 22) flag= ;; *) echo "$0: -b takes 21 or 22" >&2; exit 2 ;; esac
r=benchmarks/results
truths=$r/time_sampled_h200_2026-11-29
# set name, then the pattern of its runs (%s: the app)
sets=("second_session" "$truths/%s.default.json.xz"
      "third_session" "$r/budget_arms_NVIDIA_H200_2026-11-29/runs/%s.new.json.xz"
      "fourth_call1" "$r/natural_first_NVIDIA_H200_2026-11-29/runs_call1/%s.def.json.xz"
      "fourth_call2" "$r/natural_first_NVIDIA_H200_2026-11-29/runs_call2/%s.def.json.xz"
      "sixth_share" "$r/natural_coverage_NVIDIA_H200_2026-11-29/runs_call3/%s.share.1.json.xz"
      "seventh_ride64" "$r/natural_ride_NVIDIA_H200_2026-11-29/runs_call3/%s.ride.1.json.xz"
      "seventh_ride_1" "$r/natural_ride_NVIDIA_H200_2026-11-29/runs_call4/%s.ride.1.json.xz"
      "seventh_ride_2" "$r/natural_ride_NVIDIA_H200_2026-11-29/runs_call4/%s.ride.2.json.xz"
      "seventh_once_1" "$r/natural_ride_NVIDIA_H200_2026-11-29/runs_call4/%s.once.1.json.xz"
      "seventh_once_2" "$r/natural_ride_NVIDIA_H200_2026-11-29/runs_call4/%s.once.2.json.xz")
apps="pytorch td_bench td_bfs td_devheap td_few td_libs td_manykernels td_phases2 td_sort td_stencil td_tiny"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
    echo "# $(basename "$0") -b $bar with $topdown ($(git log -1 --format=%h 2>/dev/null || echo '?')): set app worst_points covered_pct median_spread median_error verdict"
    for ((i = 0; i < ${#sets[@]}; i += 2)); do
        name=${sets[i]} args=()
        for a in $apps; do
            # shellcheck disable=SC2059
            f=$(printf "${sets[i + 1]}" "$a")
            [ -f "$f" ] && args+=("$a" "$f" "$truths/$a.truth.json.xz")
        done
        python3 benchmarks/truth_table.py $flag --topdown "$topdown" --device NVIDIA_H200 \
            --summary "$tmp/s.txt" "${args[@]}" >/dev/null 2>&1 || true
        sed -nE "s/^([a-z_0-9]+): .*max \|sampled-truth\| ([0-9.]+).*within spread [0-9]+\/[0-9]+ \(([0-9.]+)%\).*median spread ([0-9.]+) vs median error ([0-9.]+).*: (PASS|FAIL).*/$name \1 \2 \3 \4 \5 \6/p" "$tmp/s.txt"
    done
} > "$out"
