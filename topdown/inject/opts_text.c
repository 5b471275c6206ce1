#include "topdown/inject/opts_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------ */

static int needs_escape(unsigned char c)
{
    return c == '%' || c == '=' || c < 0x20 || c == 0x7f;
}

/* c at out[len] where it fits with the NUL after it; the new length. */
static size_t put_char(char *out, size_t size, size_t len, char c)
{
    if (len + 1 < size)
        out[len] = c;
    return len + 1;
}

static size_t put_value(char *out, size_t size, size_t len, const char *value)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)value; p && *p; p++) {
        if (!needs_escape(*p)) {
            len = put_char(out, size, len, (char)*p);
            continue;
        }
        len = put_char(out, size, len, '%');
        len = put_char(out, size, len, hex[*p >> 4]);
        len = put_char(out, size, len, hex[*p & 15]);
    }
    return len;
}

size_t td_opts_text_put(char *out, size_t size, size_t len, const char *name,
                        const char *value)
{
    for (const char *p = name; *p; p++)
        len = put_char(out, size, len, *p);
    len = put_char(out, size, len, '=');
    len = put_value(out, size, len, value);
    len = put_char(out, size, len, '\n');
    if (size > 0)
        out[len < size ? len : size - 1] = '\0';
    return len;
}

/* ---- reading ------------------------------------------------------------ */

void td_opts_cursor_init(td_opts_cursor *c, const char *text)
{
    c->at = text ? text : "";
    c->line = 0;
}

static int fail(char *msg, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *msg, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The name of the line [at, end) into name; *value_at: after its '='. */
static int read_name(const char *at, const char *end, char name[TD_OPTS_NAME_MAX],
                     const char **value_at, char *msg, size_t size)
{
    if (at == end)
        return fail(msg, size, "an empty line (each line is name=value)");
    const char *eq = memchr(at, '=', (size_t)(end - at));
    if (!eq)
        return fail(msg, size, "no '=' (each line is name=value)");
    size_t n = (size_t)(eq - at);
    int ok = n > 0 && n < TD_OPTS_NAME_MAX;
    for (size_t i = 0; ok && i < n; i++)
        ok = is_name_char(at[i]);
    if (!ok)
        return fail(msg, size, "a name is 1 to %d of a-z, 0-9 and _",
                    TD_OPTS_NAME_MAX - 1);
    memcpy(name, at, n);
    name[n] = '\0';
    *value_at = eq + 1;
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The byte of the escape at p ('%' and two digits before end); -1 when
 * there is none, 0 for %00. */
static int escaped_byte(const char *p, const char *end)
{
    if (end - p < 3)
        return -1;
    int hi = hex_digit(p[1]), lo = hex_digit(p[2]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/* [at, end) decoded into *value, malloc'd. */
static int decode(const char *at, const char *end, char **value, char *msg, size_t size)
{
    char *out = malloc((size_t)(end - at) + 1);
    if (!out)
        return fail(msg, size, "out of memory");
    size_t n = 0;
    for (const char *p = at; p < end; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        int byte = escaped_byte(p, end);
        if (byte <= 0) {
            free(out);
            return fail(msg, size, byte < 0 ? "'%%' without two hexadecimal digits after "
                        "it" : "%%00: a value holds no NUL byte");
        }
        out[n++] = (char)byte;
        p += 2;
    }
    out[n] = '\0';
    *value = out;
    return 0;
}

int td_opts_text_next(td_opts_cursor *c, char name[TD_OPTS_NAME_MAX], char **value, char *msg,
                      size_t size)
{
    *value = NULL;
    if (!*c->at)
        return 0;
    const char *start = c->at;
    const char *end = strchr(start, '\n');
    if (!end)
        end = start + strlen(start);
    c->at = *end ? end + 1 : end;
    c->line++;
    const char *value_at = NULL;
    if (read_name(start, end, name, &value_at, msg, size) ||
        decode(value_at, end, value, msg, size))
        return -1;
    return 1;
}
