/* Fuzz target: the arch table reader (td_arch_parse), and the lookups on
 * a table it accepted. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_arch arch;
    td_error err;
    /* Named as its "name" must be for the whole table to be accepted. */
    if (td_arch_parse((const char *)data, size, "archs/fuzz.json", &arch, &err) != 0)
        return 0;
    const char *names[2 * TD_MAX_STALLS];
    size_t n = td_arch_metrics(&arch, names, 2 * TD_MAX_STALLS);
    for (size_t i = 0; i < n; i++)
        if (!names[i])
            abort();
    td_arch_threshold(&arch, "Backend", 0.2);
    td_arch_free(&arch);
    return 0;
}
