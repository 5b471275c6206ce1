# The steps of a GPU script bounded in time, sourced by samplers_check.sh
# and samplers_diag.sh: the script sets limit (seconds in all), start
# (date +%s at its start) and log (the file each step appends to).
#
#   step NAME MAXSECONDS CMD...   runs CMD with at most MAXSECONDS, and at
#                                 most what is left of limit; skipped under 10 s
left() { echo $((limit - ($(date +%s) - start))); }
step() {
    local name=$1 max=$2; shift 2
    local t; t=$(left)
    [ "$t" -gt "$max" ] && t=$max
    if [ "$t" -lt 10 ]; then echo "== $name: skipped, time is spent" >>"$log"; return; fi
    echo "== $name (limit $t s): $*" >>"$log"
    timeout -k 5 "$t" "$@" >>"$log" 2>&1
    echo "== $name: exit $?" >>"$log"
}
