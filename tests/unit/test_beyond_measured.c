/* A kernel measured only in launches far shorter than much of its time
 * (levels/launch_stats.h, TD_BEYOND_MEASURED): td_sort's radix_scan
 * launches one block every time, for 1 us to 1.6 ms of work, and its long
 * launches were never measured (H200, 2026-11-29). The time of launches
 * over 8x its longest measured one is counted, a launch of exactly 8x is
 * not, a kernel measured across its range has none, and the report notes
 * the first in its header and its section, not the second. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "report/launch_report.h"
#include "td_outputs_testlib.h"
#include "td_testreport.h"

static const fx_shares shares = {.retire = 0.3, .branch = 0.1, .noinst = 1, .longsb = 3, .wait = 1};

static const td_kernel_summary *kernel_named(const td_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (strcmp(s->kernels[k].name, name) == 0)
            return &s->kernels[k];
    return NULL;
}

static void build(td_result *res)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, "testarch", 0);
    for (int i = 0; i < 4; i++)
        fx_launch(dev, "scan", 2000, shares); /* measured: 2 us */
    for (int i = 0; i < 8; i++)
        fx_unprofiled(dev, "scan", 1000);
    fx_unprofiled(dev, "scan", 16000); /* exactly 8x: not beyond */
    for (int i = 0; i < 4; i++)
        fx_unprofiled(dev, "scan", 1.5e6);
    for (int i = 0; i < 2; i++)
        fx_launch(dev, "steady", 1e5, shares);
    for (int i = 0; i < 10; i++)
        fx_unprofiled(dev, "steady", 1.2e5);
    res->status = td_strdup("complete");
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    td_result res;
    build(&res);
    td_summary s;
    td_error err;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    const td_kernel_summary *scan = kernel_named(&s, "scan"), *steady = kernel_named(&s, "steady");
    CHECK(scan && steady);
    if (scan && steady) {
        CHECK(scan->launch.measured_max_ns == 2000);
        CHECK_NEAR(scan->launch.beyond_measured_ns, 6e6, 1e-6);
        CHECK(steady->launch.measured_max_ns == 1e5 && steady->launch.beyond_measured_ns == 0);
    }
    static char text[1 << 16];
    CHECK(td_test_level1_text(&res, &archs, 1, text, sizeof text) == 0);
    /* 6 ms of 6.032 ms: 99% */
    CHECK(strstr(text, "NOTE:     most of a kernel's time in launches over 8x longer than any it "
                       "measured (its tree stands for its shorter launches): kernel #1 ") != NULL);
    CHECK(strstr(text, "99% of its own); --overhead unlimited measures every launch") != NULL);
    const char *section = strstr(text, "Kernel 1/2: scan");
    CHECK(section && strstr(section, "  NOTE: 99% of its time is in launches over 8x longer than "
                                     "any it measured (up to 1.500 ms, the measured ones up to "
                                     "2.000 us)"));
    const char *other = strstr(text, "Kernel 2/2: steady");
    CHECK(other && !strstr(other, "longer than any it measured"));
    CHECK(td_count(text, "longer than any it measured") == 2);
    /* --json's durations carry both figures, null where nothing was profiled */
    cJSON *obj = cJSON_CreateObject();
    CHECK(scan && td_launch_stats_add_json(obj, &scan->launch) == 0);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(obj, "durations");
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(d, "measured_max_ns")) == 2000);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(d, "beyond_measured_ns")),
               6e6, 1e-6);
    cJSON_Delete(obj);
    td_launch_stats none = {0};
    obj = cJSON_CreateObject();
    CHECK(td_launch_stats_add_json(obj, &none) == 0);
    d = cJSON_GetObjectItemCaseSensitive(obj, "durations");
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "measured_max_ns")) &&
          cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "beyond_measured_ns")));
    cJSON_Delete(obj);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
