/* The duration the model weighs each launch by (levels/launch_weights.h):
 * a counter group's session opener that outlasts every plain like launch
 * is weighed as their median; one within their range, a replay, a launch
 * with no plain like launch and every other launch keep their own. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "levels/launch_weights.h"

typedef struct spec {
    const char *kernel;
    unsigned grid;
    double ns;
    int profiled, group;
} spec;

static void fill(td_launch *l, const spec *s)
{
    memset(l, 0, sizeof *l);
    l->kernel = s->kernel;
    l->grid[0] = s->grid, l->grid[1] = l->grid[2] = 1;
    l->block[0] = 256, l->block[1] = l->block[2] = 1;
    l->duration_ns = s->ns;
    l->profiled = s->profiled;
    l->group = s->profiled ? s->group : TD_GROUP_ALL;
}

static void check_weights(void)
{
    static const spec specs[] = {
        {"a", 8, 2100, 1, TD_GROUP_ALL}, /* 0 replay: its passes' time, kept */
        {"a", 8, 2000, 0, 0},            /* 1 plain */
        {"a", 8, 60000, 1, 0},           /* 2 opens group 0's session, slow */
        {"a", 8, 2200, 1, 0},            /* 3 same session: plain */
        {"a", 8, 1900, 0, 0},            /* 4 plain */
        {"a", 8, 2150, 1, 1},            /* 5 opens group 1's, within range: kept */
        {"a", 64, 50000, 0, 0},          /* 6 another grid: plain of its own */
        {"a", 8, 70000, 1, 0},           /* 7 opens group 0's again, slow */
        {"b", 8, 40000, 1, 1},           /* 8 opens, no plain like launch: kept */
        {"a", 64, 90000, 1, 1},          /* 9 group 1 still: not an opener */
        {"a", 8, 0, 0, 0},               /* 10 no duration: 0, not plain */
    };
    enum { N = sizeof specs / sizeof *specs };
    td_launch launches[N];
    for (size_t i = 0; i < N; i++)
        fill(&launches[i], &specs[i]);
    double w[N];
    unsigned char opens[N];
    td_error err;
    td_launch_openers(launches, N, opens);
    static const unsigned char want_opens[N] = {0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0};
    for (size_t i = 0; i < N; i++)
        CHECK(opens[i] == want_opens[i]);
    CHECK(td_launch_weights(launches, N, opens, w, &err) == 0);
    /* plain like launches of a/8: 2000, 2200, 1900: median 2000 */
    static const double want[N] = {2100, 2000, 2000, 2200, 1900, 2150, 50000, 2000, 40000,
                                   90000, 0};
    for (size_t i = 0; i < N; i++) {
        CHECK(w[i] == want[i]);
        if (w[i] != want[i])
            printf("launch %zu: %g, want %g\n", i, w[i], want[i]);
    }
    CHECK(td_launch_opens_session(&launches[2], 1) && !td_launch_opens_session(&launches[3], 0));
    CHECK(td_launch_opens_session(&launches[2], TD_LAUNCH_NO_GROUP));
    CHECK(!td_launch_opens_session(&launches[0], 0) && !td_launch_opens_session(&launches[1], 1));
    CHECK(td_launch_weights(launches, 0, opens, w, &err) == 0);
}

int main(void)
{
    check_weights();
    return td_check_summary();
}
