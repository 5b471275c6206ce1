#include "metrics/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int td_fail(td_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int td_fail_context(td_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* "prefix: old", truncated to the buffer; built by hand so the
     * compiler sees no possible overflow. */
    char joined[sizeof err->msg];
    size_t used = 0;
    const char *parts[] = {prefix, ": ", err->msg};
    for (size_t p = 0; p < 3; p++) {
        size_t len = strlen(parts[p]);
        if (len > sizeof joined - 1 - used)
            len = sizeof joined - 1 - used;
        memcpy(joined + used, parts[p], len);
        used += len;
    }
    joined[used] = '\0';
    memcpy(err->msg, joined, used + 1);
    return -1;
}
