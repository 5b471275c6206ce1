#define _GNU_SOURCE /* memmem */
#include "topdown/inject/device_heap.h"

#include <string.h>

int td_cubin_uses_device_heap(const char *cubin, size_t size)
{
    /* memmem, not a loop over every byte: every module is scanned as it
     * loads, and PyTorch's are megabytes. */
    static const char malloc_entry[] = "\0malloc", free_entry[] = "\0free";
    static const struct {
        const char *text;
        size_t len; /* with both NULs */
    } calls[] = {{malloc_entry, sizeof malloc_entry}, {free_entry, sizeof free_entry}};
    for (size_t c = 0; cubin && c < sizeof calls / sizeof *calls; c++)
        if (memmem(cubin, size, calls[c].text, calls[c].len))
            return 1;
    return 0;
}
