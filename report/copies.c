#include "report/copies.h"

#include <stdlib.h>
#include <string.h>

#include "report/wrap.h"

/* Memcpys by direction first, then memsets and peer copies by kind. */
static size_t bucket_of(const td_copy *c)
{
    if (c->kind == TD_COPY_MEMCPY && c->direction < TD_COPY_DIRECTIONS)
        return c->direction;
    return TD_COPY_DIRECTIONS + (c->kind < TD_COPY_KINDS ? c->kind : 0);
}

static const char *bucket_name(size_t b)
{
    return b < TD_COPY_DIRECTIONS ? td_copy_direction_name((unsigned)b)
                                  : td_copy_kind_name((unsigned)(b - TD_COPY_DIRECTIONS));
}

void td_copy_totals_add(td_copy_totals *t, const td_device *dev)
{
    for (size_t i = 0; i < dev->n_copies; i++) {
        const td_copy *c = &dev->copies[i];
        size_t b = bucket_of(c);
        t->n++;
        t->bytes += (double)c->bytes;
        t->time_ns += c->duration_ns;
        t->n_by[b]++;
        t->bytes_by[b] += (double)c->bytes;
    }
}

void td_copy_totals_print(FILE *out, const td_copy_totals *t)
{
    fprintf(out, "%s cop%s, %.1f MB (", TD_COUNT(t->n), t->n == 1 ? "y" : "ies", t->bytes / 1e6);
    const char *sep = "";
    for (size_t b = 0; b < TD_COPY_KINDS + TD_COPY_DIRECTIONS; b++) {
        if (!t->n_by[b])
            continue;
        fprintf(out, "%s%s %s: %.1f MB", sep, bucket_name(b), TD_COUNT(t->n_by[b]),
                t->bytes_by[b] / 1e6);
        sep = ", ";
    }
    fprintf(out, "), copy time %s ms", TD_MS(t->time_ns));
}

double td_copy_gbps(const td_copy *c)
{
    return c->duration_ns > 0 ? (double)c->bytes / c->duration_ns : 0;
}

int td_device_summaries(const td_result *res, const td_arch_set *archs,
                        const char *arch_override, td_summary **out, size_t *n,
                        td_error *err)
{
    *out = NULL;
    *n = 0;
    if (res->n_devices < 2)
        return 0;
    td_summary *sums = calloc(res->n_devices, sizeof *sums);
    if (!sums)
        return td_fail(err, "out of memory");
    for (size_t d = 0; d < res->n_devices; d++) {
        td_result view = *res; /* borrowed: one section of its own */
        view.devices = &res->devices[d];
        view.n_devices = 1;
        if (td_summarize(&view, archs, arch_override, &sums[d], err)) {
            td_device_summaries_free(sums, d);
            return td_fail_context(err, "device section %zu", d);
        }
    }
    *out = sums;
    *n = res->n_devices;
    return 0;
}

void td_device_summaries_free(td_summary *sums, size_t n)
{
    for (size_t d = 0; d < n; d++)
        td_summary_free(&sums[d]);
    free(sums);
}
