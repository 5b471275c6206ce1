#include "metrics/file_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int td_read_text_file(const char *path, char **text, size_t *len, td_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return td_fail(err, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, used = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        used += fread(buf + used, 1, cap - used, f);
        if (used < cap)
            break;
        char *bigger = realloc(buf, cap * 2 + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return td_fail(err, "out of memory reading %s", path);
    if (failed) {
        free(buf);
        return td_fail(err, "cannot read %s", path);
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return 0;
}
