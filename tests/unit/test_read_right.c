/* What users read must be right (issue 41), through the binary on the
 * bundled recordings: --by-region's header is the run's. */
#include <stdlib.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];
static const char *repo;

static td_run_output r;

static void run(const char *args)
{
    td_test_run_topdown(dir, args, &r);
}

/* The header of a text report: what comes before the line starting with
 * stop, copied into buf. */
static void header_until(const char *text, const char *stop, char *buf, size_t size)
{
    const char *end = strstr(text, stop);
    size_t n = end ? (size_t)(end - text) : strlen(text);
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

/* --by-region's header holds the run's totals and notes, not region 1's. */
static void test_by_region_header(void)
{
    static char whole[1 << 13], regions[1 << 13];
    char args[1024];
    snprintf(args, sizeof args,
             "report '%s/benchmarks/results/recordings_2026-11-26/h100_pytorch_nvtx.json.xz'",
             repo);
    run(args);
    CHECK(r.status == 0);
    header_until(r.out, "\n\nApplication:", whole, sizeof whole);
    strncat(args, " --by-region", sizeof args - strlen(args) - 1);
    run(args);
    CHECK(r.status == 0);
    header_until(r.out, "\n\n=== NVTX region 1/", regions, sizeof regions);
    CHECK(strstr(regions, "46 kernels, 17122 launches") != NULL);
    CHECK(strcmp(whole, regions) == 0);
}

int main(void)
{
    repo = getenv("TOPDOWN_REPO_DIR");
    if (!getenv("TOPDOWN_BIN") || !repo) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    test_by_region_header();
    td_test_cleanup(dir);
    return td_check_summary();
}
