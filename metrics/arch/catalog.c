#include "metrics/arch/catalog.h"
#include "metrics/arch/host_config.h"

#include <cupti_profiler_host.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/xorshift.h"

#include "metrics/strcopy.h"

struct td_catalog {
    char *chip;
    CUpti_ProfilerType type; /* range profiler or PM sampling */
    CUpti_Profiler_Host_Object *host; /* for queries; never given metrics */
    char **bases; /* base counter metrics, read once (see load_bases) */
    size_t n_bases;
};

static int cupti_fail(td_error *err, CUptiResult rc, const char *what,
                      const char *chip)
{
    const char *text = NULL;
    if (cuptiGetResultString(rc, &text) != CUPTI_SUCCESS || !text)
        text = "unknown error";
    return td_fail(err, "CUPTI %s for chip %s failed: %s (error %d)", what,
                   chip ? chip : "-", text, (int)rc);
}

static int host_open(const char *chip, CUpti_ProfilerType type,
                     CUpti_Profiler_Host_Object **host, td_error *err)
{
    CUptiResult rc = td_host_open(type, chip, NULL, host);
    return rc == CUPTI_SUCCESS ? 0 : cupti_fail(err, rc, "host initialisation", chip);
}

void td_catalog_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Copies the strings that start with prefix (all if NULL) into a fresh array. */
static int copy_names(const char *const *src, size_t n, const char *prefix,
                      char ***out, size_t *count, td_error *err)
{
    size_t plen = prefix ? strlen(prefix) : 0;
    *out = calloc(n ? n : 1, sizeof **out);
    *count = 0;
    if (!*out)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (plen && strncmp(src[i], prefix, plen) != 0)
            continue;
        char *copy = td_strdup(src[i]);
        if (!copy) {
            td_catalog_free_names(*out, *count);
            *out = NULL;
            *count = 0;
            return td_fail(err, "out of memory");
        }
        (*out)[(*count)++] = copy;
    }
    return 0;
}

int td_catalog_chips(char ***chips, size_t *n, td_error *err)
{
    CUpti_Profiler_Host_GetSupportedChips_Params p = {
        .structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE,
    };
    CUptiResult rc = cuptiProfilerHostGetSupportedChips(&p);
    if (rc != CUPTI_SUCCESS)
        return cupti_fail(err, rc, "list of supported chips", NULL);
    return copy_names(p.ppChipNames, p.numChips, NULL, chips, n, err);
}

static int catalog_open(td_catalog **out, const char *chip, CUpti_ProfilerType type,
                        td_error *err)
{
    *out = NULL;
    td_catalog *c = calloc(1, sizeof *c);
    if (!c || !(c->chip = td_strdup(chip))) {
        free(c);
        return td_fail(err, "out of memory");
    }
    c->type = type;
    if (host_open(chip, type, &c->host, err) != 0) {
        td_catalog_close(c);
        return td_fail_context(err, "chip %s is not in this CUPTI's catalog (is libcupti older than the GPU?)",
                               chip);
    }
    *out = c;
    return 0;
}

int td_catalog_open(td_catalog **out, const char *chip, td_error *err)
{
    return catalog_open(out, chip, CUPTI_PROFILER_TYPE_RANGE_PROFILER, err);
}

int td_catalog_open_pm_sampling(td_catalog **out, const char *chip, td_error *err)
{
    return catalog_open(out, chip, CUPTI_PROFILER_TYPE_PM_SAMPLING, err);
}

void td_catalog_close(td_catalog *c)
{
    if (!c)
        return;
    td_host_close(c->host);
    td_catalog_free_names(c->bases, c->n_bases);
    free(c->chip);
    free(c);
}

const char *td_catalog_chip(const td_catalog *c)
{
    return c->chip;
}

/* 1 if name ends with one of the submetrics CUPTI lists for it. */
static int ends_with_submetric(td_catalog *c, const char *name,
                               CUpti_MetricType type)
{
    CUpti_Profiler_Host_GetSubMetrics_Params p = {
        .structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE,
        .pHostObject = c->host,
        .metricType = type,
        .pMetricName = name,
    };
    if (cuptiProfilerHostGetSubMetrics(&p) != CUPTI_SUCCESS)
        return 0;
    size_t len = strlen(name);
    for (size_t i = 0; i < p.numOfSubmetrics; i++) {
        size_t slen = strlen(p.ppSubMetrics[i]);
        if (slen < len && strcmp(name + len - slen, p.ppSubMetrics[i]) == 0)
            return 1;
    }
    return 0;
}

int td_catalog_has_metric(td_catalog *c, const char *metric)
{
    if (!metric || !metric[0])
        return 0;
    CUpti_Profiler_Host_GetMetricProperties_Params p = {
        .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
        .pHostObject = c->host,
        .pMetricName = metric,
    };
    if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS)
        return 0;
    /* Properties accept a bare base name too, which cannot be collected. */
    return ends_with_submetric(c, metric, p.metricType);
}

/* CUPTI 13.0 appends the list again to the host object on every call of
 * cuptiProfilerHostGetBaseMetrics (a second call returns each name twice),
 * so the catalog asks once and keeps its own copy. */
static int load_bases(td_catalog *c, td_error *err)
{
    if (c->bases)
        return 0;
    CUpti_Profiler_Host_GetBaseMetrics_Params p = {
        .structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE,
        .pHostObject = c->host,
        .metricType = CUPTI_METRIC_TYPE_COUNTER,
    };
    CUptiResult rc = cuptiProfilerHostGetBaseMetrics(&p);
    if (rc != CUPTI_SUCCESS)
        return cupti_fail(err, rc, "list of base metrics", c->chip);
    return copy_names(p.ppMetricNames, p.numMetrics, NULL, &c->bases, &c->n_bases, err);
}

int td_catalog_base_metrics(td_catalog *c, const char *prefix, char ***names,
                            size_t *n, td_error *err)
{
    if (load_bases(c, err) != 0)
        return -1;
    return copy_names((const char *const *)c->bases, c->n_bases, prefix, names, n, err);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t len = strlen(s), slen = strlen(suffix);
    return len >= slen && strcmp(s + len - slen, suffix) == 0;
}

const char *td_stall_not_a_reason(const char *reason, char *const *all, size_t n)
{
    if (strcmp(reason, "selected") == 0)
        return "not a stall: the warp issued (MODEL.md section 3)";
    if (strcmp(reason, "not_selected") == 0)
        return "not a stall: eligible, another warp issued (MODEL.md section 3)";
    if (ends_with(reason, "_pred_on"))
        return "predicated-on variant of another reason, not a separate reason";
    /* <parent>_pipe_<x> counts the part of <parent> due to one pipe (e.g.
     * the non-RTCORE part); adding it to S would count those cycles twice. */
    const char *pipe = strstr(reason, "_pipe_");
    for (size_t i = 0; pipe && i < n; i++)
        if (strlen(all[i]) == (size_t)(pipe - reason) &&
            strncmp(all[i], reason, (size_t)(pipe - reason)) == 0)
            return "per-pipe subset of another reason (counted in it)";
    return NULL;
}

int td_catalog_stall_reasons(td_catalog *c, char ***reasons, size_t *n,
                             td_error *err)
{
    char **bases = NULL;
    size_t n_bases = 0;
    if (td_catalog_base_metrics(c, TD_STALL_PREFIX, &bases, &n_bases, err) != 0)
        return -1;
    size_t plen = strlen(TD_STALL_PREFIX);
    for (size_t i = 0; i < n_bases; i++) /* strip the prefix in place */
        memmove(bases[i], bases[i] + plen, strlen(bases[i] + plen) + 1);
    *reasons = calloc(n_bases ? n_bases : 1, sizeof **reasons);
    *n = 0;
    if (!*reasons) {
        td_catalog_free_names(bases, n_bases);
        return td_fail(err, "out of memory");
    }
    /* Decide for all before freeing any: each decision reads the others. */
    for (size_t i = 0; i < n_bases; i++)
        if (!td_stall_not_a_reason(bases[i], bases, n_bases))
            (*reasons)[(*n)++] = bases[i];
    for (size_t i = 0, kept = 0; i < n_bases; i++) {
        if (kept < *n && (*reasons)[kept] == bases[i])
            kept++; /* moved to *reasons */
        else
            free(bases[i]);
    }
    free(bases);
    return 0;
}

/* Passes of an already validated set, on a fresh host object: metrics
 * added to one accumulate there. */
static int count_passes(const td_catalog *c, const char *const *metrics,
                        size_t n, size_t *passes, td_error *err)
{
    CUpti_Profiler_Host_Object *host = NULL;
    if (host_open(c->chip, c->type, &host, err) != 0)
        return -1;
    td_host_config config;
    CUptiResult rc = td_host_config_build(host, metrics, n, &config);
    td_host_close(host);
    if (rc != CUPTI_SUCCESS)
        return cupti_fail(err, rc, config.failed_call, c->chip);
    *passes = config.passes;
    free(config.image);
    return 0;
}

int td_catalog_passes(td_catalog *c, const char *const *metrics, size_t n,
                      size_t *passes, td_error *err)
{
    if (n == 0)
        return td_fail(err, "no metrics to count passes for");
    for (size_t i = 0; i < n; i++)
        if (!td_catalog_has_metric(c, metrics[i]))
            return td_fail(err, "metric %s is not in the catalog of chip %s; check the arch table",
                           metrics[i], c->chip);
    return count_passes(c, metrics, n, passes, err);
}

static void shuffle_tail(const char **m, size_t n, size_t keep, uint32_t *state)
{
    for (size_t i = n - 1; i > keep; i--) {
        size_t j = keep + td_xorshift32(state) % (i - keep + 1);
        const char *t = m[i];
        m[i] = m[j];
        m[j] = t;
    }
}

int td_catalog_fewest_passes(td_catalog *c, const char **metrics, size_t n,
                             size_t keep, unsigned tries, size_t *passes,
                             td_error *err)
{
    size_t best_passes = 0;
    if (td_catalog_passes(c, metrics, n, &best_passes, err) != 0)
        return -1;
    const char **best = malloc(n * sizeof *best);
    const char **trial = malloc(n * sizeof *trial);
    if (!best || !trial) {
        free(best);
        free(trial);
        return td_fail(err, "out of memory");
    }
    memcpy(best, metrics, n * sizeof *best);
    memcpy(trial, metrics, n * sizeof *trial);
    uint32_t state = 0x2545f491u;
    int rc = 0;
    for (unsigned t = 0; t < tries && keep + 1 < n && best_passes > 1; t++) {
        shuffle_tail(trial, n, keep, &state);
        size_t p = 0;
        if ((rc = count_passes(c, trial, n, &p, err)) != 0)
            break;
        if (p < best_passes) {
            best_passes = p;
            memcpy(best, trial, n * sizeof *best);
        }
    }
    if (rc == 0) {
        memcpy(metrics, best, n * sizeof *metrics);
        *passes = best_passes;
    }
    free(best);
    free(trial);
    return rc;
}
