/* metrics/arch/host_config.c, the one builder of config images (Range
 * Profiler, PM sampling, catalog), on the host API without a GPU: one
 * metric on GH100 is one pass and an image; a metric CUPTI does not know
 * fails at adding metrics, named, with nothing left allocated. The whole
 * tables' passes go through it in test_arch_passes and test_catalog. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics/arch/host_config.h"

static CUpti_Profiler_Host_Object *host_open(const char *chip)
{
    CUpti_Profiler_Host_Object *host = NULL;
    CHECK(td_host_open(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, NULL, &host) == CUPTI_SUCCESS);
    return host;
}

static void test_one_metric(void)
{
    CUpti_Profiler_Host_Object *host = host_open("GH100");
    CHECK(host != NULL);
    if (!host)
        return;
    const char *metrics[] = {"sm__cycles_active.sum"};
    td_host_config c;
    CHECK(td_host_config_build(host, metrics, 1, &c) == CUPTI_SUCCESS);
    CHECK(c.passes == 1 && c.size > 0 && c.image != NULL);
    free(c.image);
    td_host_close(host);
}

static void test_unknown_metric(void)
{
    CUpti_Profiler_Host_Object *host = host_open("GH100");
    CHECK(host != NULL);
    if (!host)
        return;
    const char *metrics[] = {"sm__cycles_active.sum", "no__such_metric.sum"};
    td_host_config c;
    CHECK(td_host_config_build(host, metrics, 2, &c) != CUPTI_SUCCESS);
    CHECK(c.failed_call && strcmp(c.failed_call, "cuptiProfilerHostConfigAddMetrics") == 0);
    CHECK(c.image == NULL && c.passes == 0);
    td_host_close(host);
}

int main(void)
{
    test_one_metric();
    test_unknown_metric();
    return td_check_summary();
}
