#!/usr/bin/env bash
# The time topdown adds to a whole run, builds A/B/... interleaved in one
# call (issue 40: "every no-regression claim is an A/B against the previous
# round's landed commit, run in the same call"). For each app and each
# repetition: the app natively, then under each build's topdown with the
# given flags, in turn (each repetition starting one build later), so that
# drift of the machine hits every build alike.
# Whole-process wall time (what the user waits for), and the app's own
# in-loop time where it prints `loop_s=`.
#
#   benchmarks/ab_added.sh -b "NAME=DIR ..." [-a "APP ..."] [-n REPS] [-f FLAGS]
#                          [-t SECONDS] [-o OUT.csv] [-w DIR] [-c CPUS]
#
#   -b  builds: NAME=DIR, DIR holding topdown, libtopdown_inject.so and archs/
#       (or a build folder: then archs/ of the repository)
#   -a  apps, each one word with arguments joined by commas
#       (default "td_sort td_frames td_bfs pytorch_mlp.py,300")
#   -n  repetitions (default 2); -f topdown's flags (default: none, the default)
#   -t  limit of one run (default 120 s); -w work folder (results, logs)
#   -c  run every command (native and topdown) on these CPUs (taskset -c
#       CPUS, e.g. 0-3), the same for every build. On the lent H200 (16
#       cores, one NUMA node) 4 cores neither steadied td_tiny nor helped
#       PyTorch, whose threads and CUPTI's then share them
#       (results/trace_NVIDIA_H200_2026-11-29_s13/)
#   -o  CSV: app,build,rep,native_wall_s,wall_s,added_s,native_loop_s,loop_s,exit
#
# An app name ending in .py runs with python3 from benchmarks/; others are
# build/benchmarks/NAME. The result files stay in the work folder, so that
# where the added time went (the cost section: set-up, coverage, sampling)
# can be read afterwards without a GPU: topdown report FILE --page session.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root" || exit 2
builds="" apps="td_sort td_frames td_bfs pytorch_mlp.py,300" reps=2 flags="" limit=120
out="" work=build/ab_added pin=()
while getopts "b:a:n:f:t:o:w:c:" opt; do
  case $opt in
    b) builds=$OPTARG ;; a) apps=$OPTARG ;; n) reps=$OPTARG ;; f) flags=$OPTARG ;;
    t) limit=$OPTARG ;; o) out=$OPTARG ;; w) work=$OPTARG ;; c) pin=(taskset -c "$OPTARG") ;;
    *) echo "usage: see the head of $0" >&2; exit 2 ;;
  esac
done
[ -n "$builds" ] || { echo "ab_added: -b \"NAME=DIR ...\" is required" >&2; exit 2; }
if [ ${#pin[@]} -gt 0 ] && ! "${pin[@]}" true; then
  echo "ab_added: -c: taskset cannot run on CPUs ${pin[2]}" >&2; exit 2
fi
mkdir -p "$work"
out=${out:-$work/ab_added.csv}
echo "app,build,rep,native_wall_s,wall_s,added_s,native_loop_s,loop_s,exit" > "$out"

app_cmd() { # app_cmd WORD: the command line of one app word
  local word=${1//,/ } name=${1%%,*}
  if [[ $name == *.py ]]; then echo "python3 $here/${word}"; else echo "build/benchmarks/${word}"; fi
}
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
loop_of() { grep -o 'loop_s=[0-9.]*' "$1" 2>/dev/null | tail -1 | cut -d= -f2; }
rotated() { # rotated REP BUILD...: the builds, starting at the REP-th, so
  local rep=$1 i n   # that no build always runs first after the native run
  shift; n=$#
  for ((i = 0; i < n; i++)); do local k=$(( (rep - 1 + i) % n + 1 )); echo "${!k}"; done
}

for rep in $(seq 1 "$reps"); do
  for app in $apps; do
    cmd=$(app_cmd "$app")
    tag=${app//,/_}
    t0=$(now); "${pin[@]}" timeout -k 5 "$limit" $cmd > "$work/$tag.native.$rep.log" 2>&1; t1=$(now)
    native=$(sub "$t1" "$t0")
    nloop=$(loop_of "$work/$tag.native.$rep.log")
    for b in $(rotated "$rep" $builds); do
      name=${b%%=*} dir=${b#*=}
      archs=$dir/archs; [ -d "$archs" ] || archs=$root/archs
      res="$work/$tag.$name.$rep.json"
      rm -f "$res"
      t0=$(now)
      TOPDOWN_ARCHS=$archs "${pin[@]}" timeout -k 5 "$limit" "$dir/topdown" $flags -o "$res" -- $cmd \
        > "$work/$tag.$name.$rep.log" 2>&1
      rc=$?
      t1=$(now)
      wall=$(sub "$t1" "$t0")
      loop=$(loop_of "$work/$tag.$name.$rep.log")
      printf '%s,%s,%s,%.3f,%.3f,%.3f,%s,%s,%s\n' "$tag" "$name" "$rep" "$native" "$wall" \
        "$(sub "$wall" "$native")" "${nloop:-}" "${loop:-}" "$rc" | tee -a "$out"
    done
  done
done
