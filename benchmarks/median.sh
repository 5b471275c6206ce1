# median: the median of the numbers on stdin ("%.6f"), nothing if there are
# none. Sourced by cost.sh and cupti_floor.sh.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) printf "%.6f", v[(NR + 1) / 2];
                    else printf "%.6f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
