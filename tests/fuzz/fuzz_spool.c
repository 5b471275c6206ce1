/* Fuzz target: the collection spool reader (td_spool_parse), and the
 * model on what it read. */
#include "fuzz_common.h"
#include "levels/aggregate.h"
#include "metrics/spool/spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    memset(&sum, 0, sizeof sum);
    if (td_spool_parse((const char *)data, size, "fuzz.spool", &res, &sum, &err) == 0) {
        td_summary s;
        if (td_summarize(&res, fuzz_archs(), NULL, &s, &err) == 0)
            td_summary_free(&s);
        td_spool_complete(&sum);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    return 0;
}
