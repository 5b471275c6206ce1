/* What profiling cost the app (cost.h). */
#include "metrics/result/cost.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "metrics/json_field.h"

/* The fields, by their key in the spool's end record and the result's
 * "cost" object (the same words in both). */
typedef struct cost_field {
    const char *key;
    size_t at; /* offsetof(td_cost, ...) */
} cost_field;

static const cost_field seconds_fields[] = {
    {"elapsed_s", offsetof(td_cost, elapsed_s)},   {"profiling_s", offsetof(td_cost, profiling_s)},
    {"setup_s", offsetof(td_cost, setup_s)},       {"coverage_s", offsetof(td_cost, coverage_s)},
    {"switch_s", offsetof(td_cost, switch_s)},     {"decode_s", offsetof(td_cost, decode_s)},
    {"tracing_s", offsetof(td_cost, tracing_s)},   {"exit_s", offsetof(td_cost, exit_s)},
};

static const cost_field count_fields[] = {
    {"switches", offsetof(td_cost, switches)},
    {"launches", offsetof(td_cost, launches)},
    {"profiled", offsetof(td_cost, profiled)},
    {"budget_skipped", offsetof(td_cost, budget_skipped)},
    {"replay_failures", offsetof(td_cost, replay_failures)},
};

#define N_SECONDS (sizeof seconds_fields / sizeof *seconds_fields)
#define N_COUNTS (sizeof count_fields / sizeof *count_fields)

static double *seconds_of(td_cost *c, size_t i)
{
    return (double *)((char *)c + seconds_fields[i].at);
}

static uint64_t *count_of(td_cost *c, size_t i)
{
    return (uint64_t *)((char *)c + count_fields[i].at);
}

static double seconds_in(const td_cost *c, size_t i)
{
    return *(const double *)((const char *)c + seconds_fields[i].at);
}

static uint64_t count_in(const td_cost *c, size_t i)
{
    return *(const uint64_t *)((const char *)c + count_fields[i].at);
}

int td_cost_recorded(const td_cost *c)
{
    return c->processes > 0;
}

void td_cost_add(td_cost *sum, const td_cost *one)
{
    if (!td_cost_recorded(one))
        return;
    sum->processes += one->processes;
    for (size_t i = 0; i < N_SECONDS; i++)
        *seconds_of(sum, i) += seconds_in(one, i);
    for (size_t i = 0; i < N_COUNTS; i++)
        *count_of(sum, i) += count_in(one, i);
}

double td_cost_added_s(const td_cost *c)
{
    return c->profiling_s + c->setup_s + c->coverage_s + c->tracing_s + c->exit_s;
}

int td_cost_coverage_dominates(const td_cost *c)
{
    return td_cost_recorded(c) && c->coverage_s >= TD_COST_COVERAGE_NOTE_S &&
           c->coverage_s >= 0.5 * td_cost_added_s(c);
}

double td_cost_native_s(const td_cost *c)
{
    return c->elapsed_s - td_cost_added_s(c);
}

double td_cost_pct_of_native(const td_cost *c)
{
    double native = td_cost_native_s(c);
    return native > 0 ? 100.0 * td_cost_added_s(c) / native : -1;
}

int td_cost_over_budget(const td_cost *c, double budget_pct, char *why, size_t size)
{
    if (size)
        why[0] = '\0';
    double pct = td_cost_recorded(c) ? td_cost_pct_of_native(c) : -1;
    if (!(budget_pct > 0) || !(pct > budget_pct))
        return 0;
    /* the part that went furthest past what the budget allowed */
    static const char *const what[] = {
        "sampled launches (ranges, counter-group switches and decoding)",
        "set-up (the profiler started on each context), which the budget cannot "
        "spread over a short run",
        "coverage (each kernel's first launches replayed, and the counter-group "
        "samples without replay each kernel owes), paid whatever the budget",
        "tracing (topdown's callbacks at every launch, timed only), paid whatever the budget",
        "the end of the run (the last records written)"};
    double part[] = {c->profiling_s, c->setup_s, c->coverage_s, c->tracing_s, c->exit_s};
    int most = 0;
    for (int i = 1; i < (int)(sizeof part / sizeof *part); i++)
        if (part[i] > part[most])
            most = i;
    double allowed = td_cost_native_s(c) * budget_pct / 100.0;
    snprintf(why, size, "profiling added %.0f%% of native time against a budget of %g%% "
             "(%.2f s against %.2f s); most of it, %.2f s, was %s", pct, budget_pct,
             td_cost_added_s(c), allowed, part[most], what[most]);
    return 1;
}

/* ---- reading --------------------------------------------------------------- */

/* A seconds field of an end record: the collector's sums of clock
 * differences. null (how cJSON writes a NaN) is left out and a value a
 * hair below 0 (rounding) reads as 0, so that a spool is never refused for
 * its cost. */
static int read_spool_seconds(const td_jctx *c, const cJSON *obj, const char *key,
                              double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    double x = 0;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (td_json_number(c, obj, key, 0, -TD_COST_MAX_S, TD_COST_MAX_S, &x))
        return -1;
    *out = x > 0 ? x : 0;
    return 0;
}

int td_cost_read_end_record(const cJSON *obj, td_cost *out, const td_jctx *c)
{
    td_cost one = {.processes = 1};
    for (size_t i = 0; i < N_SECONDS; i++)
        if (read_spool_seconds(c, obj, seconds_fields[i].key, seconds_of(&one, i)))
            return -1;
    for (size_t i = 0; i < N_COUNTS; i++)
        if (td_json_uint(c, obj, count_fields[i].key, 0, TD_COST_MAX_COUNT, count_of(&one, i)))
            return -1;
    *out = one;
    return 0;
}

static int read_fields(const cJSON *obj, td_cost *out, const td_jctx *c)
{
    td_cost read = {0};
    if (td_json_uint(c, obj, "processes", 1, TD_COST_MAX_COUNT, &read.processes))
        return -1;
    if (read.processes == 0)
        return td_fail(c->err, "%s: \"processes\" is 0; a cost comes from one process or more",
                       c->where);
    for (size_t i = 0; i < N_SECONDS; i++)
        if (td_json_amount(c, obj, seconds_fields[i].key, i == 0, TD_COST_MAX_S,
                           seconds_of(&read, i)))
            return -1;
    for (size_t i = 0; i < N_COUNTS; i++)
        if (td_json_uint(c, obj, count_fields[i].key, 0, TD_COST_MAX_COUNT, count_of(&read, i)))
            return -1;
    *out = read;
    return 0;
}

int td_cost_read(const cJSON *obj, td_cost *out, const char *name, td_error *err)
{
    const cJSON *cost = cJSON_GetObjectItemCaseSensitive(obj, "cost");
    if (!cost || cJSON_IsNull(cost))
        return 0;
    char where[600];
    snprintf(where, sizeof where, "%s: \"cost\"", name);
    if (!cJSON_IsObject(cost))
        return td_fail(err, "%s must be an object", where);
    td_jctx c = {where, err};
    long version = 0;
    if (td_json_int(&c, cost, "version", 1, 1, LONG_MAX, &version))
        return -1;
    if (version > TD_COST_VERSION)
        return 0; /* a later layout: not this reader's to guess */
    return read_fields(cost, out, &c);
}

int td_cost_check(const td_cost *c, td_error *err)
{
    for (size_t i = 0; i < N_SECONDS; i++) {
        double x = seconds_in(c, i);
        if (!isfinite(x) || x < 0 || x > TD_COST_MAX_S)
            return td_fail(err, "cost: %s %g is out of range", seconds_fields[i].key, x);
    }
    for (size_t i = 0; i < N_COUNTS; i++)
        if ((double)count_in(c, i) > TD_COST_MAX_COUNT)
            return td_fail(err, "cost: %s is out of range", count_fields[i].key);
    if ((double)c->processes > TD_COST_MAX_COUNT)
        return td_fail(err, "cost: processes is out of range");
    return 0;
}

/* ---- writing --------------------------------------------------------------- */

static int add_number(cJSON *obj, const char *key, double x)
{
    cJSON *item = td_json_exact_number(x);
    if (!item || !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return -1;
    }
    return 0;
}

/* What the report estimates from the fields; pct_of_native null when the
 * native time is not positive. */
static int add_estimate(cJSON *obj, const td_cost *c)
{
    double pct = td_cost_pct_of_native(c);
    if (add_number(obj, "added_s", td_cost_added_s(c)) ||
        add_number(obj, "native_s", td_cost_native_s(c)))
        return -1;
    if (pct < 0)
        return cJSON_AddNullToObject(obj, "pct_of_native") ? 0 : -1;
    return add_number(obj, "pct_of_native", pct);
}

int td_cost_add_json(cJSON *obj, const td_cost *c, int estimate)
{
    if (!td_cost_recorded(c))
        return 0;
    cJSON *cost = cJSON_AddObjectToObject(obj, "cost");
    if (!cost || !cJSON_AddNumberToObject(cost, "version", TD_COST_VERSION) ||
        add_number(cost, "processes", (double)c->processes))
        return -1;
    for (size_t i = 0; i < N_SECONDS; i++)
        if (add_number(cost, seconds_fields[i].key, seconds_in(c, i)))
            return -1;
    for (size_t i = 0; i < N_COUNTS; i++)
        if (add_number(cost, count_fields[i].key, (double)count_in(c, i)))
            return -1;
    return estimate ? add_estimate(cost, c) : 0;
}

/* ---- the report's line ------------------------------------------------------ */

/* "45%", "4.5%": a decimal below 10 %. */
static void format_pct(double pct, char *buf, size_t size)
{
    snprintf(buf, size, pct < 9.95 ? "%.1f%%" : "%.0f%%", pct);
}

void td_cost_describe(const td_cost *c, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!td_cost_recorded(c))
        return;
    char run[96], share[96];
    if (c->processes == 1)
        snprintf(run, sizeof run, "a %.2f s run", c->elapsed_s);
    else
        snprintf(run, sizeof run, "%.2f s of %llu processes", c->elapsed_s,
                 (unsigned long long)c->processes);
    double pct = td_cost_pct_of_native(c);
    if (pct < 0)
        snprintf(share, sizeof share, "no native time left to compare with");
    else {
        char p[32];
        format_pct(pct, p, sizeof p);
        snprintf(share, sizeof share, "%s of native, estimated", p);
    }
    char tracing[48] = "", end[48] = "";
    if (c->tracing_s > 0)
        snprintf(tracing, sizeof tracing, ", tracing %.2f s", c->tracing_s);
    if (c->exit_s > 0)
        snprintf(end, sizeof end, ", end of run %.2f s", c->exit_s);
    snprintf(buf, size, "profiling added %.2f s to %s (sampling %.2f s, set-up %.2f s, "
             "coverage %.2f s%s%s): %s", td_cost_added_s(c), run, c->profiling_s, c->setup_s,
             c->coverage_s, tracing, end, share);
}
