/* Each context's kernel progress (topdown/inject/progress.c, pure logic of
 * the injection library): two GPUs of one process rotate and cover their
 * kernels independently, so a kernel measured on device 0 is still
 * replayed and covered on device 1. (test_coverage: the coverage rule.) */
#include "check.h"
#include "topdown/inject/progress.h"

static void test_two_devices_independent(void)
{
    td_progress dev0 = {0}, dev1 = {0};
    td_kernel_progress *a0 = td_progress_of(&dev0, 0, 1);
    td_kernel_progress *b0 = td_progress_of(&dev0, 1, 1);
    CHECK(a0 && b0);
    if (!a0 || !b0)
        return;
    td_progress_measured(&dev0, a0, -1); /* kernel 0 replayed on device 0 */
    td_progress_measured(&dev0, b0, 2);
    a0->profiled++;
    td_kernel_progress *a1 = td_progress_of(&dev1, 0, 1);
    CHECK(a1 && !a1->full_measured && a1->profiled == 0);
    /* device 1 saw kernel 0 only; it still lacks every group there */
    CHECK(td_progress_missing(&dev1, 2) == 1);
    CHECK(td_progress_coverage_group(&dev1, 2, 3) == 2);
    /* device 0: kernel 0 has its full tree, kernel 1 lacks groups 0 and 1 */
    CHECK(td_progress_missing(&dev0, 2) == 0);
    CHECK(td_progress_missing(&dev0, 0) == 1);
    /* device 0's phase on group 2 moves to group 0, which kernel 1 lacks;
     * device 1's stays: kernel 0 lacks group 2 there */
    CHECK(td_progress_coverage_group(&dev0, 2, 3) == 0);
    CHECK(!td_progress_lacks(a0, 0) && td_progress_lacks(b0, 0) && !td_progress_lacks(b0, 2));
    td_progress_free(&dev0);
    td_progress_free(&dev1);
}

/* Kernels the filter leaves out, or never launched here, count for no
 * coverage; entries survive the table growing. */
static void test_filter_and_growth(void)
{
    td_progress p = {0};
    CHECK(td_progress_of(&p, 3, 0) != NULL); /* not selected */
    CHECK(td_progress_missing(&p, 0) == 0 && td_progress_coverage_group(&p, 1, 4) == 1);
    td_kernel_progress *k = td_progress_of(&p, 5, 1);
    CHECK(k != NULL);
    if (k)
        td_progress_measured(&p, k, 1);
    CHECK(td_progress_of(&p, 5000, 1) != NULL); /* grows */
    k = td_progress_of(&p, 5, 0);                /* the first verdict stays */
    CHECK(k && k->matches && k->group_measured[1] == 1);
    CHECK(td_progress_missing(&p, 1) == 1);      /* kernel 5000 lacks group 1 */
    CHECK(td_progress_missing(&p, 0) == 2);      /* kernels 5 and 5000 */
    td_progress_measured(&p, k, 40);             /* beyond the groups: ignored */
    CHECK(!td_progress_lacks(k, 40));
    td_progress_free(&p);
}

int main(void)
{
    test_two_devices_independent();
    test_filter_and_growth();
    return td_check_summary();
}
