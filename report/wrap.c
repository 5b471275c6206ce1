#include "report/wrap.h"

#include <stdlib.h>
#include <string.h>

static int text_width = TD_TEXT_WIDTH;
static int text_color;

int td_text_color(void)
{
    return text_color;
}

void td_set_text_color(int on)
{
    text_color = on;
}

int td_choose_color(const char *mode, int is_tty, const char *no_color)
{
    if (mode && strcmp(mode, "always") == 0)
        return 1;
    if (mode && strcmp(mode, "never") == 0)
        return 0;
    return is_tty && !(no_color && *no_color);
}

int td_text_width(void)
{
    return text_width;
}

void td_set_text_width(int width)
{
    text_width = width;
}

int td_choose_text_width(int is_tty, const char *columns, int tty_cols)
{
    if (!is_tty)
        return TD_TEXT_WIDTH;
    char *end = NULL;
    long cols = columns && *columns ? strtol(columns, &end, 10) : 0;
    if (!end || *end || cols <= 0)
        cols = tty_cols;
    if (cols <= 0)
        return TD_TEXT_WIDTH;
    return cols < TD_TEXT_WIDTH_MIN ? TD_TEXT_WIDTH_MIN
           : cols > TD_TEXT_WIDTH_MAX ? TD_TEXT_WIDTH_MAX
                                      : (int)cols;
}

/* Leading spaces of a line. */
static int indent_of(const char *line, size_t len)
{
    size_t n = 0;
    while (n < len && line[n] == ' ')
        n++;
    return (int)n;
}

/* A colour mark (TD_MARK_*): no column of its own. */
static int is_mark(char c)
{
    return c == TD_MARK_ALERT[0] || c == TD_MARK_NOTE[0] || c == TD_MARK_END[0];
}

/* The columns line[0..len) takes. */
static size_t columns_of(const char *line, size_t len)
{
    size_t cols = 0;
    for (size_t i = 0; i < len; i++)
        cols += !is_mark(line[i]);
    return cols;
}

/* Writes s[0..n), its marks as the terminal's colours or dropped. */
static void put(FILE *out, const char *s, size_t n)
{
    static const char *const colour[] = {"\033[1;31m", "\033[33m", "\033[0m"};
    for (size_t i = 0; i < n; i++) {
        int mark = s[i] == TD_MARK_ALERT[0] ? 0 : s[i] == TD_MARK_NOTE[0] ? 1
                   : s[i] == TD_MARK_END[0] ? 2 : -1;
        if (mark < 0)
            fputc(s[i], out);
        else if (text_color)
            fputs(colour[mark], out);
    }
}

/* Where to break line[0..len) so that the first part fits width columns:
 * after the last ", " or " | " that fits in its last quarter, else at the
 * last space; 0: no place. The part ends before the returned index; the
 * rest starts after the spaces there. */
static size_t break_at(const char *line, size_t len, size_t width, size_t indent)
{
    size_t comma = 0, comma_col = 0, space = 0, col = indent + 1;
    for (size_t i = indent + 1; i < len && col <= width; col += !is_mark(line[i]), i++) {
        if (line[i] != ' ')
            continue;
        space = i;
        if (line[i - 1] == ',' || line[i - 1] == '|') {
            comma = i;
            comma_col = col;
        }
    }
    if (comma && comma_col > indent + 3 * (width - indent) / 4)
        return comma;
    if (space)
        return space;
    for (size_t i = indent + 1; i < len; i++) /* a long word: after it */
        if (line[i] == ' ')
            return i;
    return 0;
}

/* Writes line[0..len) in lines of width, the continued ones indented by cont. */
static void wrap_line(FILE *out, const char *line, size_t len, int width, int cont)
{
    int indent = indent_of(line, len);
    size_t room = (size_t)width; /* columns for the part being written */
    size_t skip = (size_t)indent; /* its leading spaces: no break there */
    while (columns_of(line, len) > room) {
        size_t at = break_at(line, len, room, skip);
        if (at == 0)
            break;
        put(out, line, at);
        fprintf(out, "\n%*s", cont, "");
        while (at < len && line[at] == ' ')
            at++;
        line += at;
        len -= at;
        room = (size_t)(width - cont);
        skip = 0;
    }
    put(out, line, len);
}

void td_wrap_text(FILE *out, const char *text, int width, int cont_indent)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        int indent = indent_of(text, len);
        int cont = cont_indent >= 0 ? cont_indent
                   : indent == 0    ? 10
                   : indent >= 8    ? indent
                                    : indent + 2;
        wrap_line(out, text, len, width, cont > width / 2 ? width / 2 : cont);
        if (!nl)
            break;
        fputc('\n', out);
        text = nl + 1;
    }
}

void td_wrap_hanging(FILE *out, const char *line, int column, int width)
{
    wrap_line(out, line, strlen(line), width, column <= width - TD_HANGING_ROOM ? column : 8);
    fputc('\n', out);
}

const char *td_count_text(unsigned long long n, char *buf, size_t size)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%llu", n);
    size_t at = 0;
    for (int i = 0; i < len && at + 1 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0 && at + 2 < size)
            buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at] = '\0';
    return buf;
}

const char *td_ms_text(double ns, char *buf, size_t size)
{
    char plain[64];
    snprintf(plain, sizeof plain, "%.3f", ns / 1e6);
    const char *digits = plain + (plain[0] == '-');
    size_t whole = strspn(digits, "0123456789");
    if (whole < 4 || whole > 20) { /* nothing to separate, or no finite number */
        snprintf(buf, size, "%s", plain);
        return buf;
    }
    char head[32];
    snprintf(head, sizeof head, "%.*s", (int)whole, digits);
    char sep[32];
    td_count_text(strtoull(head, NULL, 10), sep, sizeof sep);
    snprintf(buf, size, "%s%s%s", plain[0] == '-' ? "-" : "", sep, digits + whole);
    return buf;
}

void td_elide_middle(const char *s, size_t max, char *out, size_t size)
{
    size_t len = strlen(s);
    if (len <= max || max < 8) {
        snprintf(out, size, "%s", s);
        return;
    }
    size_t head = (max - 3) / 2, tail = max - 3 - head;
    snprintf(out, size, "%.*s...%s", (int)head, s, s + len - tail);
}

int td_elided_match(const char *pattern, const char *text)
{
    const char *dots = strstr(pattern, "...");
    if (!dots)
        return strcmp(pattern, text) == 0;
    size_t head = (size_t)(dots - pattern);
    if (strncmp(pattern, text, head) != 0)
        return 0;
    const char *rest = dots + 3;
    for (const char *p = text + head;; p++) {
        if (td_elided_match(rest, p))
            return 1;
        if (!*p)
            return 0;
    }
}

int td_write_wrapped(FILE *out, int wide, td_text_writer write, const void *ctx,
                     td_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return td_fail(err, "out of memory");
    int rc = write(mem, ctx, err);
    if (fclose(mem) != 0 && rc == 0)
        rc = td_fail(err, "out of memory");
    if (rc == 0 && wide)
        put(out, text, len);
    else if (rc == 0)
        td_wrap_text(out, text, text_width, -1);
    free(text);
    return rc;
}
