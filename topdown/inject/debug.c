#include "topdown/inject/debug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int on;

void td_debug_init(void)
{
    on = getenv("TOPDOWN_DEBUG") != NULL;
}

int td_debug_on(void)
{
    return on;
}

void td_debug(const char *who, const char *fmt, ...)
{
    if (!on)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "topdown-debug %s[%d]: ", who, (int)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
