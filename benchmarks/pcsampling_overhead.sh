#!/usr/bin/env bash
# What --source (CUPTI PC sampling, continuous mode) costs: each command
# runs N times natively, under `topdown -l 1` (counters only), under
# `topdown -l 1 --source` (CUPTI's default period), under `--source-only`
# (PC samples, no counters) and under `topdown -l 1 --source
# --pc-sampling-period P` for each P of -p; prints the median wall
# times, the ratios to native, and the PC samples (and dropped samples) of
# the last --source run, and writes the table with the device name and
# date to benchmarks/results/pcsampling_<gpu>_<date>.md.
#
#   benchmarks/pcsampling_overhead.sh [-n RUNS] [-p "P1 P2"] [-b BUILD_DIR] [-o OUT.md] ["CMD ARGS" ...]
#
# Without commands: the whole td_bench and its l1_bound kernel (meant to
# fit one part of gpu_session.sh's `extra` with the other scripts; not timed yet).
# Environment: TOPDOWN (default BUILD_DIR/topdown), TD_BENCH (default
# BUILD_DIR/benchmarks/td_bench).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
runs=3
periods="10"
build="$root/build"
out_md=""

die() { echo "pcsampling_overhead.sh: $*" >&2; exit 2; }

while getopts "n:p:b:o:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        p) periods=$OPTARG ;;
        b) build=$OPTARG ;;
        o) out_md=$OPTARG ;;
        h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option; see pcsampling_overhead.sh -h" ;;
    esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number of runs, got '$runs'"
for p in $periods; do
    [[ $p =~ ^[0-9]+$ ]] && [ "$p" -ge 5 ] && [ "$p" -le 31 ] || die "-p takes periods from 5 to 31, got '$p'"
done

topdown=${TOPDOWN:-$build/topdown}
bench=${TD_BENCH:-$build/benchmarks/td_bench}
[ -x "$topdown" ] || die "topdown not found at $topdown (build it, or set TOPDOWN)"
command -v python3 > /dev/null || die "python3 is needed for the table"

commands=("$@")
if [ ${#commands[@]} -eq 0 ]; then
    [ -x "$bench" ] || die "no command given and td_bench not found at $bench; set TD_BENCH"
    commands=("$bench" "$bench --kernel l1_bound")
fi

work=$(mktemp -d /tmp/td_pcsampling.XXXXXX) || die "cannot make a temp folder"
trap 'rm -rf "$work"' EXIT
times="$work/times.tsv" # command index, mode, seconds, exit code
: > "$times"

# time_run INDEX MODE CMD...: one timed run, output discarded.
time_run() {
    local idx=$1 mode=$2; shift 2
    local t0 t1 rc
    t0=$(date +%s.%N)
    "$@" > /dev/null 2> "$work/last.err"
    rc=$?
    t1=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\n' "$idx" "$mode" "$(awk "BEGIN { print $t1 - $t0 }")" "$rc" >> "$times"
    [ $rc -eq 0 ] || { echo "[$mode] exit $rc: $*" >&2; tail -n 3 "$work/last.err" >&2; }
}

modes=(native counters source source_only)
for p in $periods; do modes+=("period$p"); done
for i in "${!commands[@]}"; do
    read -r -a cmd <<< "${commands[$i]}"
    echo "pcsampling_overhead.sh: ${commands[$i]}" >&2
    for ((r = 0; r < runs; r++)); do
        for mode in "${modes[@]}"; do
            res="$work/r$i.$mode.json"
            case $mode in
                native) time_run "$i" "$mode" "${cmd[@]}" ;;
                counters) time_run "$i" "$mode" "$topdown" -l 1 --no-progress -f -o "$res" -- "${cmd[@]}" ;;
                source) time_run "$i" "$mode" "$topdown" -l 1 --no-progress --source -f -o "$res" -- "${cmd[@]}" ;;
                source_only) time_run "$i" "$mode" "$topdown" -l 1 --no-progress --source-only -f -o "$res" -- "${cmd[@]}" ;;
                period*) time_run "$i" "$mode" "$topdown" -l 1 --no-progress --source \
                             --pc-sampling-period "${mode#period}" -f -o "$res" -- "${cmd[@]}" ;;
            esac
        done
    done
done

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
gpu=${gpu:-unknown GPU}
[ -n "$out_md" ] || out_md="$here/results/pcsampling_$(echo "$gpu" | tr ' /' '__')_$(date +%F).md"

python3 - "$times" "$work" "$out_md" "$gpu" "$runs" "${modes[*]}" "${commands[@]}" <<'EOF'
import json, os, statistics, sys
times, work, out_md, gpu, runs, modes = sys.argv[1:7]
modes = modes.split()
commands = sys.argv[7:]
by = {}
for line in open(times):
    i, mode, secs, rc = line.split('\t')
    if rc.strip() == '0':
        by.setdefault((int(i), mode), []).append(float(secs))

def samples(i, mode):
    path = os.path.join(work, 'r%d.%s.json' % (i, mode))
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return ''
    total = dropped = 0
    seen = False
    for dev in doc.get('devices', []):
        p = dev.get('pc_sampling')
        if p:
            seen = True
            total += p.get('total_samples', 0)
            dropped += p.get('dropped_samples', 0)
    return '%d (%d dropped)' % (total, dropped) if seen else 'none'

head = '| command | native s | ' + ' | '.join('%s s (x native)' % m for m in modes[1:]) + \
       ' | ' + ' | '.join('%s samples' % m for m in modes[2:]) + ' |'
rows = [head, '|' + '---|' * (2 * len(modes) - 1)]
for i, cmd in enumerate(commands):
    native = statistics.median(by[(i, 'native')]) if (i, 'native') in by else None
    cells = ['`%s`' % os.path.basename(cmd), '%.3f' % native if native else 'failed']
    for m in modes[1:]:
        if (i, m) not in by:
            cells.append('failed')
            continue
        t = statistics.median(by[(i, m)])
        cells.append('%.3f (x%.2f)' % (t, t / native) if native else '%.3f' % t)
    cells += [samples(i, m) for m in modes[2:]]
    rows.append('| ' + ' | '.join(cells) + ' |')
text = '# PC sampling overhead on %s\n\nMedian wall time of %s runs; `counters`: `topdown -l 1`; ' \
       '`source`: `topdown -l 1 --source` (CUPTI\'s default period); `source_only`: ' \
       '`--source-only` (no counters); `periodN`: ' \
       '`--pc-sampling-period N` (2^N cycles). Samples: CUPTI\'s totals of the last run.\n\n' % (gpu, runs)
text += '\n'.join(rows) + '\n'
print(text)
os.makedirs(os.path.dirname(out_md), exist_ok=True)
open(out_md, 'w').write(text)
print('wrote', out_md, file=sys.stderr)
EOF
