#include "metrics/spool/spool_scan.h"

#include <stdint.h>
#include <string.h>

/* Where the line is read up to; ok falls to 0 at the first mismatch. */
typedef struct cursor {
    const char *at, *end;
    int ok;
} cursor;

static void expect_n(cursor *c, const char *text, size_t n)
{
    if (c->ok && (size_t)(c->end - c->at) >= n && memcmp(c->at, text, n) == 0)
        c->at += n;
    else
        c->ok = 0;
}

/* text: a string literal, its length known at compile time */
#define expect(c, text) expect_n((c), (text), sizeof(text) - 1)

/* A plain integer of 1 to 19 digits (below 2^64), no leading zero. Its
 * double is the one strtod gives the digits (cJSON's value): both round
 * the same integer to the nearest double. */
static double number(cursor *c)
{
    uint64_t x = 0;
    int digits = 0;
    while (c->ok && c->at < c->end && *c->at >= '0' && *c->at <= '9' && digits < 20) {
        x = x * 10 + (uint64_t)(*c->at++ - '0');
        digits++;
    }
    int leading_zero = digits > 1 && c->at[-digits] == '0';
    if (digits == 0 || digits > 19 || leading_zero)
        c->ok = 0;
    return c->ok ? (double)x : 0;
}

/* "[x,y,z]" */
static void dim3(cursor *c, double out[3])
{
    expect(c, "[");
    out[0] = number(c);
    expect(c, ",");
    out[1] = number(c);
    expect(c, ",");
    out[2] = number(c);
    expect(c, "]");
}

int td_scan_launch_line(const char *line, size_t len, td_scan_launch *out)
{
    cursor c = {line, line + len, 1};
    expect(&c, "{\"type\":\"launch\",\"pid\":");
    out->pid = number(&c);
    expect(&c, ",\"context\":");
    out->context = number(&c);
    expect(&c, ",\"id\":");
    out->id = number(&c);
    expect(&c, ",\"corr\":");
    out->corr = number(&c);
    expect(&c, ",\"k\":");
    out->k = number(&c);
    expect(&c, ",\"grid\":");
    dim3(&c, out->grid);
    expect(&c, ",\"block\":");
    dim3(&c, out->block);
    expect(&c, ",\"stream\":");
    out->stream = number(&c);
    expect(&c, "}");
    return c.ok && c.at == c.end;
}

int td_scan_kernel_time_line(const char *line, size_t len, td_scan_kernel_time *out)
{
    cursor c = {line, line + len, 1};
    expect(&c, "{\"type\":\"kernel_time\",\"pid\":");
    out->pid = number(&c);
    expect(&c, ",\"context\":");
    out->context = number(&c);
    expect(&c, ",\"corr\":");
    out->corr = number(&c);
    expect(&c, ",\"start_ns\":");
    out->start_ns = number(&c);
    expect(&c, ",\"duration_ns\":");
    out->duration_ns = number(&c);
    out->has_res = c.ok && c.at < c.end && *c.at == ',';
    if (out->has_res) {
        expect(&c, ",\"res\":[");
        for (int i = 0; i < 4; i++) {
            if (i)
                expect(&c, ",");
            out->res[i] = number(&c);
        }
        expect(&c, "]");
    }
    expect(&c, "}");
    return c.ok && c.at == c.end;
}
