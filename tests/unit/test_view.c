/* Everyday use, the presentation (issue 27): what the text report says
 * about spreads, counter groups and kernels without a bottleneck; the
 * closing hints; widths; one format per output; names that select their
 * kernel; list-nodes' levels and stall reasons. On the bundled H200
 * recordings, with the real arch tables. */
#include <stdlib.h>
#include <sys/stat.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];
static char smoke[512], pytorch[512], groups[512];

typedef td_run_output run_output;

static void run(const char *args, run_output *r)
{
    td_test_run_topdown(dir, args, r);
}

static void runf(run_output *r, const char *fmt, const char *file)
{
    char args[2048];
    snprintf(args, sizeof args, fmt, file);
    run(args, r);
}

/* The block of one kernel ("Kernel N/M: ...") up to the next one. */
static const char *kernel_block(const char *text, const char *head, char *buf, size_t size)
{
    const char *p = strstr(text, head);
    if (!p)
        return "";
    const char *end = strstr(p + 1, "\nKernel ");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= size)
        n = size - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* Item 13: no "+-0.0" from one launch, no line of empty counter groups,
 * and a Retire-bound kernel says so. */
static void test_verdicts(void)
{
    run_output r;
    char block[4096];
    runf(&r, "report '%s' -l 1 --spread-threshold 0", smoke);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "+-0.0") == NULL); /* each kernel: one profiled launch */
    CHECK(strstr(r.out, "launches per counter group") == NULL); /* all replayed */
    runf(&r, "report '%s' -l 1 --spread-threshold 0", groups);
    CHECK(r.status == 0 && strstr(r.out, "launches per counter group: ") != NULL);
    CHECK(strstr(r.out, " +-") != NULL);
    runf(&r, "report '%s' -l 2", pytorch);
    CHECK(r.status == 0);
    kernel_block(r.out, "Kernel 1/46:", block, sizeof block);
    CHECK(strstr(block, "Retire  ") != NULL && strstr(block, "<==") == NULL);
    CHECK(strstr(block, "Retire-bound (86.0% of slots): no loss over its threshold") != NULL);
    kernel_block(r.out, "Kernel 4/46:", block, sizeof block);
    CHECK(strstr(block, "<==") != NULL && strstr(block, "bound (") == NULL);
}

int main(void)
{
    const char *src = getenv("TOPDOWN_SOURCE_DIR");
    if (!getenv("TOPDOWN_BIN") || !src) {
        fprintf(stderr, "TOPDOWN_BIN or TOPDOWN_SOURCE_DIR is not set\n");
        return 1;
    }
    snprintf(smoke, sizeof smoke, "%s/tests/fixtures/h200/h200_smoke.topdown.json", src);
    snprintf(pytorch, sizeof pytorch, "%s/tests/fixtures/h200/h200_pytorch_mlp.topdown.json",
             src);
    snprintf(groups, sizeof groups, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json",
             src);
    td_test_tmpdir(dir, sizeof dir);
    if (chdir(dir) != 0)
        return 1;
    test_verdicts();
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
