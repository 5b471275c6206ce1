/* The device-heap check of a cubin (topdown/inject/device_heap.c): a
 * string-table entry "malloc" or "free" between NULs, and nothing else,
 * as the byte-by-byte scan it replaced decided, on planted and random
 * buffers. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "metrics/xorshift.h"
#include "topdown/inject/device_heap.h"

/* The scan before memmem: each NUL followed by the name and a NUL. */
static int reference(const char *cubin, size_t size)
{
    static const char *const calls[] = {"malloc", "free"};
    for (size_t c = 0; cubin && c < 2; c++) {
        size_t len = strlen(calls[c]);
        for (size_t i = 0; i + len + 2 <= size; i++)
            if (cubin[i] == '\0' && cubin[i + len + 1] == '\0' &&
                memcmp(cubin + i + 1, calls[c], len) == 0)
                return 1;
    }
    return 0;
}

static int check(const char *bytes, size_t size)
{
    int got = td_cubin_uses_device_heap(bytes, size);
    CHECK(got == reference(bytes, size));
    return got;
}

int main(void)
{
    CHECK(check("\0malloc\0", 8) == 1);
    CHECK(check("x\0free\0y", 8) == 1);
    CHECK(check("\0mallocx\0", 9) == 0);  /* another name */
    CHECK(check("xmalloc\0", 8) == 0);    /* not an entry of its own */
    CHECK(check("\0malloc", 7) == 0);     /* cut before its NUL */
    CHECK(check("\0free", 5) == 0);
    CHECK(check("", 0) == 0);
    CHECK(td_cubin_uses_device_heap(NULL, 16) == 0);
    /* random bytes over a small alphabet, so that entries come by chance */
    static const char alphabet[] = {'\0', 'm', 'a', 'l', 'o', 'c', 'f', 'r', 'e', 'x'};
    uint32_t rng = 12345;
    size_t found = 0;
    for (int round = 0; round < 2000; round++) {
        char buf[512];
        size_t size = 1 + td_xorshift32(&rng) % sizeof buf;
        for (size_t i = 0; i < size; i++)
            buf[i] = alphabet[td_xorshift32(&rng) % sizeof alphabet];
        if (td_xorshift32(&rng) % 4 == 0 && size > 8) /* plant one */
            memcpy(buf + td_xorshift32(&rng) % (size - 8), "\0malloc\0", 8);
        found += (size_t)check(buf, size);
    }
    CHECK(found > 100 && found < 2000); /* both answers were exercised */
    return td_check_summary();
}
