#include "report/region.h"

#include <stdlib.h>
#include <string.h>

#include "report/output.h"
#include "report/raw.h"
#include "report/wrap.h"

#define NO_REGION "(no NVTX region)"

static int same_region(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    return a == b || strcmp(a, b) == 0;
}

const char *td_region_label(const char *name)
{
    return name ? name : NO_REGION;
}

int td_result_regions(const td_result *res, const char ***names, size_t *n, td_error *err)
{
    td_launch_ref *refs = NULL;
    size_t n_refs = 0, cap = 0;
    *names = NULL;
    *n = 0;
    if (td_launches_in_order(res, &refs, &n_refs, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n_refs && rc == 0; i++) {
        const char *region = res->devices[refs[i].dev].launches[refs[i].index].region;
        size_t k = 0;
        while (k < *n && !same_region((*names)[k], region))
            k++;
        if (k < *n)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            const char **bigger = realloc(*names, cap * sizeof *bigger);
            if (!bigger) {
                rc = td_fail(err, "out of memory");
                break;
            }
            *names = bigger;
        }
        (*names)[(*n)++] = region;
    }
    free(refs);
    if (rc) {
        free(*names);
        *names = NULL;
        *n = 0;
    }
    return rc;
}

void td_region_view_free(td_result *view)
{
    for (size_t d = 0; view->devices && d < view->n_devices; d++)
        free(view->devices[d].launches);
    free(view->devices);
    memset(view, 0, sizeof *view);
}

int td_region_view(const td_result *res, const char *region, td_result *view, td_error *err)
{
    *view = *res;
    view->devices = calloc(res->n_devices ? res->n_devices : 1, sizeof *view->devices);
    if (!view->devices)
        return td_fail(err, "out of memory");
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        td_device *v = &view->devices[d];
        *v = *dev; /* names, metrics and groups shared */
        v->launches = malloc((dev->n_launches ? dev->n_launches : 1) * sizeof *v->launches);
        v->n_launches = v->cap_launches = 0;
        if (!v->launches) {
            td_region_view_free(view);
            return td_fail(err, "out of memory");
        }
        for (size_t i = 0; i < dev->n_launches; i++)
            if (same_region(dev->launches[i].region, region))
                v->launches[v->n_launches++] = dev->launches[i];
        v->cap_launches = dev->n_launches;
    }
    return 0;
}

void td_region_set_free(td_region_set *set)
{
    for (size_t r = 0; r < set->n; r++) {
        td_summary_free(&set->summaries[r]);
        td_region_view_free(&set->views[r]);
    }
    free(set->summaries);
    free(set->views);
    free(set->names);
    memset(set, 0, sizeof *set);
}

int td_region_set_build(const td_result *res, const td_arch_set *archs,
                        const char *arch_override, td_region_set *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    if (td_result_regions(res, &out->names, &n, err))
        return -1;
    if (n == 0) {
        free(out->names);
        out->names = NULL;
        return td_fail(err, "the result has no launch");
    }
    out->views = calloc(n, sizeof *out->views);
    out->summaries = calloc(n, sizeof *out->summaries);
    if (!out->views || !out->summaries) {
        td_region_set_free(out);
        return td_fail(err, "out of memory");
    }
    for (size_t r = 0; r < n; r++) {
        if (td_region_view(res, out->names[r], &out->views[r], err)) {
            td_region_set_free(out);
            return -1;
        }
        out->n = r + 1;
        if (td_summarize(&out->views[r], archs, arch_override, &out->summaries[r], err)) {
            td_fail_context(err, "NVTX region %s", td_region_label(out->names[r]));
            td_region_set_free(out);
            return -1;
        }
    }
    return 0;
}

int td_report_by_region(FILE *out, const td_result *res, const td_summary *run,
                        const td_region_set *set, const td_report_options *o, td_error *err)
{
    double total_ns = 0;
    for (size_t r = 0; r < set->n; r++)
        total_ns += set->summaries[r].total_ns;
    if (td_report_session(out, res, run, o, err))
        return -1;
    for (size_t r = 0; r < set->n; r++) {
        const td_summary *s = &set->summaries[r];
        td_report_options ro = *o;
        ro.no_header = 1;
        char head[64], tail[128], name[TD_TEXT_WIDTH];
        const char *label = td_region_label(set->names[r]);
        int h = snprintf(head, sizeof head, "=== NVTX region %zu/%zu: ", r + 1, set->n);
        int t = snprintf(tail, sizeof tail, " | %s launch%s, %s ms, %.1f%% of GPU time ===",
                         TD_COUNT(s->launches), s->launches == 1 ? "" : "es", TD_MS(s->total_ns),
                         total_ns > 0 ? 100.0 * s->total_ns / total_ns : 0.0);
        /* the region's name elided in the middle to fit the width */
        td_elide_middle(label, (size_t)(TD_TEXT_WIDTH - h - t), name, sizeof name);
        fprintf(out, "\n%s%s%s\n", head, o->wide ? label : name, tail);
        if (td_report_text(out, &set->views[r], s, &ro, err))
            return -1;
    }
    return 0;
}
