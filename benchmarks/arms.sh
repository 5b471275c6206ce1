#!/usr/bin/env bash
# Arms of the default collector (its expert variables, docs/COLLECTION.md)
# on the truth apps, judged by bar 21 against stored application-replay
# truths (issue 39). For each repetition, each app, each arm in turn
# (interleaved, so that drift of the machine hits every arm alike): one
# topdown run at truth.sh's sizes (benchmarks/truth_apps.sh). Then each
# arm's repetition is judged with truth_table.py --bar21.
#
#   benchmarks/arms.sh [-o DIR] [-a "APP ..."] [-n REPS] [-t SECONDS]
#                      [-l SECONDS] [-T TRUTHS] ARM ...
#
#   ARM       NAME (the default) or NAME=VAR=VALUE[,VAR=VALUE...], e.g.
#             ride once=TOPDOWN_NATURAL_IDLE=0
#   -o DIR    where the runs go (DIR/runs/APP.ARM.REP.json.xz, their logs)
#             and the verdicts (DIR/judge_ARM_REP.txt); default build/arms
#   -a        the apps (default "pytorch td_stencil td_tiny td_bfs
#             td_manykernels")
#   -n        repetitions (default 2); -t one run's limit (default 60 s)
#   -l        start no run after this many seconds (default: no limit; a
#             device call's limit, so that the judging and the copy back fit)
#   -T        the truths, APP.truth.json[.xz] (default
#             benchmarks/results/time_sampled_h200_2026-11-29)
#
# TOPDOWN (default build/topdown) and PYTHON (python3) may be set. The
# seventh session's arms: benchmarks/results/natural_ride_NVIDIA_H200_2026-11-29/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")" || exit 2
build=${BUILD:-build}
topdown=${TOPDOWN:-$build/topdown}
python=${PYTHON:-python3}
work=build/arms apps="pytorch td_stencil td_tiny td_bfs td_manykernels" reps=2 tlimit=60
start_limit=0 truths=benchmarks/results/time_sampled_h200_2026-11-29

die() { echo "arms.sh: $*" >&2; exit 2; }

while getopts "o:a:n:t:l:T:h" opt; do
    case $opt in
        o) work=$OPTARG ;; a) apps=$OPTARG ;; n) reps=$OPTARG ;; t) tlimit=$OPTARG ;;
        l) start_limit=$OPTARG ;; T) truths=$OPTARG ;;
        h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) die "unknown option; see arms.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || die "name at least one arm (NAME, or NAME=VAR=VALUE,...); see arms.sh -h"
for n in "$reps" "$tlimit"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "-n and -t take a positive number, got '$n'"
done
[[ $start_limit =~ ^[0-9]+$ ]] || die "-l takes a number of seconds, got '$start_limit'"
[ -x "$topdown" ] || die "topdown not found at $topdown; build it (bash scripts/setup.sh) or set TOPDOWN"
# shellcheck source=benchmarks/truth_apps.sh
. benchmarks/truth_apps.sh
mkdir -p "$work/runs"
summary=$work/summary.txt
: > "$summary"

arm_name() { echo "${1%%=*}"; }
# The arm's variables, one VAR=VALUE a line (none for the default).
arm_env() { [[ $1 == *=* ]] && tr ',' '\n' <<< "${1#*=}"; return 0; }

SECONDS=0
for rep in $(seq 1 "$reps"); do
    for app in $apps; do
        cmd=$(truth_app_cmd "$app") || { echo "$app: unknown app" >> "$summary"; continue; }
        for arm in "$@"; do
            if [ "$start_limit" -gt 0 ] && [ "$SECONDS" -ge "$start_limit" ]; then
                echo "stopped at $SECONDS s (-l $start_limit)" >> "$summary"
                break 3
            fi
            name=$(arm_name "$arm")
            res=$work/runs/$app.$name.$rep.json
            rm -f "$res" "$res.xz"
            mapfile -t vars < <(arm_env "$arm")
            # shellcheck disable=SC2086 # the app's command is split at whitespace
            env ${vars[@]+"${vars[@]}"} timeout -k 5 "$tlimit" "$topdown" --no-progress -o "$res" \
                -- $cmd > "$work/runs/$app.$name.$rep.log" 2>&1
            rc=$?
            [ -s "$res" ] && xz -f "$res"
            echo "$name $app $rep exit $rc at $SECONDS s" >> "$summary"
        done
    done
done

for rep in $(seq 1 "$reps"); do
    for arm in "$@"; do
        name=$(arm_name "$arm") args=()
        for app in $apps; do
            res=$work/runs/$app.$name.$rep.json.xz
            truth=$truths/$app.truth.json.xz
            [ -f "$truth" ] || truth=$truths/$app.truth.json
            [ -f "$res" ] && [ -f "$truth" ] && args+=("$app" "$res" "$truth")
        done
        [ ${#args[@]} -gt 0 ] || continue
        "$python" benchmarks/truth_table.py --bar21 --topdown "$topdown" --device arms \
            --csv "$work/judge_${name}_$rep.csv" --summary "$work/judge_${name}_$rep.txt" \
            "${args[@]}" > /dev/null 2>&1 || true
    done
done
cat "$summary"
for f in "$work"/judge_*.txt; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f" .txt)"
    sed -nE 's/^([a-z_0-9]+): .*max \|sampled-truth\| ([0-9.]+).*: (PASS|FAIL).*/\1 \2 \3/p' "$f"
done
