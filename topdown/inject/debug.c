#include "topdown/inject/debug.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int on;

void td_debug_init(int debug)
{
    on = debug;
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
