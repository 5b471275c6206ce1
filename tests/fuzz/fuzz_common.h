/* Shared by the fuzz targets (libFuzzer entry points, also linked with
 * replay_main.c into plain programs that CTest runs over the corpus). */
#ifndef TD_FUZZ_COMMON_H
#define TD_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/arch/arch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The real arch tables (TOPDOWN_ARCHS, else the repository's), loaded once
 * and kept for the whole run. */
static inline const td_arch_set *fuzz_archs(void)
{
    static td_arch_set set;
    static int loaded;
    if (!loaded) {
        td_error err;
        const char *dir = getenv("TOPDOWN_ARCHS");
        if (td_arch_load_dir(dir && *dir ? dir : TD_FUZZ_ARCHS_DIR, &set, &err)) {
            fprintf(stderr, "fuzz: %s\n", err.msg);
            abort();
        }
        loaded = 1;
    }
    return &set;
}

/* Where the outputs of a parsed input go: exercised, not kept. */
static inline FILE *fuzz_sink(void)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    if (!sink)
        abort();
    return sink;
}

#endif
