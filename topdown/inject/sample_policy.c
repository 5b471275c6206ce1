#include "topdown/inject/sample_policy.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A burst that has not completed its point after this many invocations per
 * group (launches that could not be measured) ends anyway. */
#define BURST_PATIENCE 4

static const struct {
    const char *suffix;
    double ns;
} time_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

int td_sample_every_parse(const char *text, td_sample_every *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return 0;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno || !isfinite(value) || value <= 0)
        goto bad;
    if (*end == '\0') {
        if (value != floor(value) || value > 1e15 || strpbrk(text, ".eE"))
            goto bad;
        out->unit = TD_SAMPLE_LAUNCHES;
        out->every = (long)value;
        return 0;
    }
    for (size_t u = 0; u < sizeof time_units / sizeof *time_units; u++)
        if (strcmp(end, time_units[u].suffix) == 0) {
            out->unit = TD_SAMPLE_TIME;
            out->every_ns = value * time_units[u].ns;
            return 0;
        }
bad:
    memset(out, 0, sizeof *out);
    return td_fail(err, "--sample-every needs a number of invocations (100: every 100th "
                   "invocation of each kernel) or a time of the kernel's own GPU time "
                   "with its unit (5ms, 250us, 1s), not \"%s\"", text);
}

static unsigned full_mask(size_t n_groups)
{
    if (n_groups == 0)
        return 1;
    return n_groups >= TD_SAMPLE_MAX_GROUPS ? ~0u : (1u << n_groups) - 1;
}

static int due(const td_sample_every *p, const td_sample_kernel *k)
{
    if (k->points == 0)
        return 1;
    if (p->unit == TD_SAMPLE_LAUNCHES)
        return k->since >= p->every;
    return k->since_ns >= p->every_ns;
}

/* The group the point wants: the configured one if it lacks it, else the
 * lowest it lacks. */
static int wanted_group(const td_sample_kernel *k, size_t n_groups, int active_group)
{
    if (n_groups == 0)
        return TD_SAMPLE_FULL_SET;
    if (active_group >= 0 && (size_t)active_group < n_groups &&
        !(k->measured & (1u << active_group)))
        return active_group;
    for (size_t g = 0; g < n_groups && g < TD_SAMPLE_MAX_GROUPS; g++)
        if (!(k->measured & (1u << g)))
            return (int)g;
    return 0;
}

int td_sample_decide(const td_sample_every *p, td_sample_kernel *k, size_t n_groups,
                     int active_group, double est_ns, int *group)
{
    if (n_groups > TD_SAMPLE_MAX_GROUPS)
        n_groups = TD_SAMPLE_MAX_GROUPS;
    k->invocations++;
    if (p->unit == TD_SAMPLE_OFF)
        return 0;
    if (!k->in_point && due(p, k)) {
        k->in_point = 1;
        k->measured = 0;
        k->burst = 0;
        k->since = 0;
        k->since_ns = 0;
        k->points++;
    }
    k->since++;
    k->since_ns += est_ns > 0 ? est_ns : 0;
    if (!k->in_point)
        return 0;
    if (++k->burst > BURST_PATIENCE * (long)(n_groups ? n_groups : 1)) {
        k->in_point = 0; /* give up on this point: the next is due later */
        return 0;
    }
    *group = wanted_group(k, n_groups, active_group);
    return 1;
}

void td_sample_taken(td_sample_kernel *k, size_t n_groups, int group)
{
    if (n_groups > TD_SAMPLE_MAX_GROUPS)
        n_groups = TD_SAMPLE_MAX_GROUPS;
    if (group == TD_SAMPLE_FULL_SET || n_groups == 0)
        k->measured = full_mask(n_groups);
    else if (group >= 0 && (size_t)group < n_groups)
        k->measured |= 1u << group;
    if (k->measured == full_mask(n_groups))
        k->in_point = 0;
}
