/* Each range-profiler arch table states its replay passes ("passes"): the
 * passes of its whole metric set in table order, on every chip it lists,
 * as CUPTI's host API schedules them (no GPU). A change of the stall
 * order, or a CUPTI that schedules differently, shows here. */
#include <stdlib.h>

#include "../check.h"
#include "metrics/arch/arch.h"
#include "metrics/arch/catalog.h"

static void check_table(const td_arch *t)
{
    if (t->source != TD_BACKEND_RANGE_PROFILER) {
        CHECK(t->passes == 0); /* nvprof tables are not replayed by topdown */
        return;
    }
    CHECK(t->passes > 0 && t->model_passes > 0 && t->model_passes <= t->passes);
    const char *names[TD_COUNTER_COUNT + TD_MAX_STALLS];
    size_t n = td_arch_metrics(t, names, sizeof names / sizeof *names);
    size_t n_model = td_arch_model_metrics(t, names, sizeof names / sizeof *names);
    for (size_t c = 0; c < t->n_chips; c++) {
        td_catalog *cat = NULL;
        td_error err;
        size_t passes = 0, model_passes = 0;
        int rc = td_catalog_open(&cat, t->chips[c], &err);
        if (rc == 0)
            rc = td_catalog_passes(cat, names, n, &passes, &err);
        if (rc == 0)
            rc = td_catalog_passes(cat, names, n_model, &model_passes, &err);
        if (rc != 0)
            fprintf(stderr, "%s on %s: %s\n", t->name, t->chips[c], err.msg);
        CHECK(rc == 0);
        if (rc == 0 && (passes != (size_t)t->passes || model_passes != (size_t)t->model_passes))
            fprintf(stderr, "%s says %d passes, %d for the model's metrics; %s needs %zu and %zu\n",
                    t->name, t->passes, t->model_passes, t->chips[c], passes, model_passes);
        CHECK(rc != 0 || passes == (size_t)t->passes);
        CHECK(rc != 0 || model_passes == (size_t)t->model_passes);
        td_catalog_close(cat);
    }
}

int main(void)
{
    const char *dir = getenv("TOPDOWN_ARCHS");
    CHECK(dir != NULL);
    if (!dir)
        return td_check_summary();
    td_arch_set set;
    td_error err;
    int rc = td_arch_load_dir(dir, &set, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == 0);
    if (rc != 0)
        return td_check_summary();
    for (size_t i = 0; i < set.count; i++)
        check_table(&set.items[i]);
    td_arch_set_free(&set);
    return td_check_summary();
}
