/* Which group ranges ran cold (levels/cold_ranges.h): the context's first
 * after a replay, and a kernel's first within TD_COLD_AFTER_REPLAY of one;
 * none before any replay. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "levels/cold_ranges.h"

typedef struct spec {
    const char *kernel;
    int profiled, group;
} spec;

static void check_cold(void)
{
    static const spec specs[] = {
        {"a", 1, 0},            /* 0 before any replay: not cold */
        {"b", 1, 0},            /* 1 b's first, but no replay yet */
        {"a", 1, TD_GROUP_ALL}, /* 2 a replay */
        {"a", 1, 1},            /* 3 the first group range after it: cold */
        {"a", 0, 0},            /* 4 only timed */
        {"c", 1, 1},            /* 5 c's first group range, 2nd after the replay: cold */
        {"a", 1, 1},            /* 6 a's later range: warm */
        {"b", 1, 1},            /* 7 b's second: warm */
        {"d", 1, 2},            /* 8 d's first, 5th after the replay: cold */
        {"d", 1, 2},            /* 9 */
        {"d", 1, 2},            /* 10 */
        {"d", 1, 2},            /* 11 */
        {"e", 1, 2},            /* 12 e's first, 9th after the replay: warm */
        {"f", 1, TD_GROUP_ALL}, /* 13 a replay */
        {"f", 1, 2},            /* 14 first after it: cold */
    };
    enum { N = sizeof specs / sizeof *specs };
    td_launch launches[N];
    memset(launches, 0, sizeof launches);
    for (size_t i = 0; i < N; i++) {
        launches[i].kernel = specs[i].kernel;
        launches[i].profiled = specs[i].profiled;
        launches[i].group = specs[i].group;
    }
    static const unsigned char want[N] = {0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
    unsigned char cold[N];
    td_error err;
    CHECK(td_cold_ranges(launches, N, cold, &err) == 0);
    for (size_t i = 0; i < N; i++) {
        if (cold[i] != want[i])
            printf("launch %zu: cold %d, want %d\n", i, cold[i], want[i]);
        CHECK(cold[i] == want[i]);
    }
    CHECK(td_cold_ranges(launches, 0, cold, &err) == 0);
}

int main(void)
{
    check_cold();
    return td_check_summary();
}
