/* Each context's kernel progress (topdown/inject/progress.c, pure logic of
 * the injection library): two GPUs of one process sample and cover their
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
    td_progress_measured(a0, -1); /* kernel 0 replayed on device 0 */
    CHECK(td_choose(&b0->choose, 10, 3, -1, 0).group == 0); /* kernel 1 measures group 0 */
    a0->profiled++;
    td_kernel_progress *a1 = td_progress_of(&dev1, 0, 1);
    CHECK(a1 && !a1->full_measured && a1->profiled == 0);
    /* device 1 saw kernel 0 only; it still owes every group there */
    td_choice c = td_choose(&a1->choose, 10, 3, 2, 0);
    CHECK(c.measure && c.coverage && c.group == 2);
    /* device 0: kernel 1 measured group 0 there and lacks groups 1 and 2 */
    c = td_choose(&b0->choose, 10, 3, 0, 0);
    CHECK(c.measure && c.coverage && c.group == 1);
    td_progress_free(&dev0);
    td_progress_free(&dev1);
}

/* The filter's first verdict stays; entries, with their choice, survive
 * the table growing. */
static void test_filter_and_growth(void)
{
    td_progress p = {0};
    CHECK(td_progress_of(&p, 3, 0) != NULL); /* not selected */
    td_kernel_progress *k = td_progress_of(&p, 5, 1);
    CHECK(k != NULL);
    if (k)
        CHECK(td_choose(&k->choose, 10, 3, 1, 0).group == 1);
    CHECK(td_progress_of(&p, 5000, 1) != NULL); /* grows */
    k = td_progress_of(&p, 5, 0);                /* the first verdict stays */
    CHECK(k && k->matches && k->choose.group_samples[1] == 1);
    CHECK(!td_progress_of(&p, 3, 1)->matches);
    if (k)
        td_progress_measured(k, 40);             /* a group: no full set */
    CHECK(k && !k->full_measured);
    td_progress_free(&p);
}

int main(void)
{
    test_two_devices_independent();
    test_filter_and_growth();
    return td_check_summary();
}
