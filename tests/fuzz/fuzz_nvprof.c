/* Fuzz target: the nvprof importer (CSV reader included). The input is the
 * metrics CSV, then optionally a form feed and the times CSV; imported with
 * the gp100 table, then modelled. */
#include "fuzz_common.h"
#include "levels/aggregate.h"
#include "metrics/arch/nvprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const td_arch *arch = td_arch_find(fuzz_archs(), "gp100");
    if (!arch)
        abort();
    const char *text = (const char *)data;
    const char *split = memchr(text, '\f', size);
    size_t metrics_len = split ? (size_t)(split - text) : size;
    const char *times = split ? split + 1 : NULL;
    size_t times_len = split ? size - metrics_len - 1 : 0;
    td_result res;
    td_error err;
    if (td_nvprof_import_text(text, metrics_len, "m.csv", times, times_len, "t.csv", arch,
                              &res, &err) != 0)
        return 0;
    td_summary s;
    if (td_summarize(&res, fuzz_archs(), NULL, &s, &err) == 0)
        td_summary_free(&s);
    td_result_free(&res);
    return 0;
}
