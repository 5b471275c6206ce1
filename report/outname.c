/* -o name patterns (outname.h). */
#include "report/outname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATTERNS "%%p pid, %%h host, %%q{VAR} environment variable, %%i first free number, %%%% a %%"

int td_outname_has_seq(const char *pattern)
{
    for (const char *p = pattern; p && *p; p++)
        if (*p == '%') {
            if (p[1] == 'i')
                return 1;
            if (p[1])
                p++;
        }
    return 0;
}

/* Appends text to out at *len; -1 when it does not fit. */
static int append(char *out, size_t size, size_t *len, const char *text, size_t n)
{
    if (*len + n + 1 > size)
        return -1;
    memcpy(out + *len, text, n);
    *len += n;
    out[*len] = '\0';
    return 0;
}

/* %q{VAR} at p (p points at 'q'): the variable's value; *used is how many
 * characters of the pattern it took. */
static const char *env_value(const char *pattern, const char *p, size_t *used, td_error *err)
{
    const char *close = p[1] == '{' ? strchr(p + 2, '}') : NULL;
    if (!close || close == p + 2) {
        td_fail(err, "-o '%s': %%q needs a variable name in braces and a closing '}', as in "
                "run.%%q{OMPI_COMM_WORLD_RANK}.json", pattern);
        return NULL;
    }
    char name[256];
    size_t n = (size_t)(close - (p + 2));
    if (n >= sizeof name) {
        td_fail(err, "-o '%s': the variable name in %%q{} is too long", pattern);
        return NULL;
    }
    memcpy(name, p + 2, n);
    name[n] = '\0';
    const char *value = getenv(name);
    if (!value) {
        td_fail(err, "-o '%s': environment variable %s is not set (set it, or take %%q{%s} "
                "out of -o)", pattern, name, name);
        return NULL;
    }
    *used = n + 3; /* q{NAME} */
    return value;
}

/* The text one %x stands for (x at p); *used: pattern characters taken. */
static int expand_one(const char *pattern, const char *p, long pid, long seq, char *buf,
                      size_t bufsize, const char **text, size_t *used, td_error *err)
{
    *used = 1;
    *text = buf;
    switch (*p) {
    case 'p':
        snprintf(buf, bufsize, "%ld", pid);
        return 0;
    case 'i':
        snprintf(buf, bufsize, "%ld", seq);
        return 0;
    case '%':
        snprintf(buf, bufsize, "%%");
        return 0;
    case 'h':
        if (gethostname(buf, bufsize) != 0)
            return td_fail(err, "-o '%s': %%h: cannot read the host name", pattern);
        buf[bufsize - 1] = '\0';
        return 0;
    case 'q':
        *text = env_value(pattern, p, used, err);
        return *text ? 0 : -1;
    case '\0':
        return td_fail(err, "-o '%s' ends with a lone '%%' (write %%%% for a '%%'; patterns: "
                       PATTERNS ")", pattern);
    default:
        return td_fail(err, "-o '%s': unknown pattern %%%c (patterns: " PATTERNS ")", pattern,
                       *p);
    }
}

int td_outname_expand(const char *pattern, long pid, long seq, char *out, size_t size,
                      td_error *err)
{
    size_t len = 0;
    out[0] = '\0';
    for (const char *p = pattern; *p;) {
        size_t run = strcspn(p, "%");
        if (append(out, size, &len, p, run))
            return td_fail(err, "-o '%s': the name is too long", pattern);
        p += run;
        if (!*p)
            break;
        char buf[256];
        const char *text;
        size_t used;
        if (expand_one(pattern, p + 1, pid, seq, buf, sizeof buf, &text, &used, err))
            return -1;
        if (append(out, size, &len, text, strlen(text)))
            return td_fail(err, "-o '%s': the name is too long", pattern);
        p += 1 + used;
    }
    return 0;
}
