#!/usr/bin/env bash
# Reads a build's output on stdin, appends it to the log file $1 and shows
# its progress on stderr: one line redrawn on a terminal, else a line each
# 20%. Used by setup.sh so that a first build (about a minute) is not silent.
set -uo pipefail
log=${1:?usage: build_progress.sh LOGFILE}
last=-1
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  [[ $line =~ ^\[\ *([0-9]+)%\] ]] || continue
  pct=$((10#${BASH_REMATCH[1]}))
  if [ -t 2 ]; then
    ((pct != last)) && printf '\rsetup: building... %3d%%' "$pct" >&2
  elif ((last < 0 || pct / 20 != last / 20)); then
    printf 'setup: building... %d%%\n' "$pct" >&2
  fi
  last=$pct
done
[ -t 2 ] && ((last >= 0)) && printf '\n' >&2
exit 0
