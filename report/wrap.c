#include "report/wrap.h"

#include <stdlib.h>

#include <string.h>

/* Leading spaces of a line. */
static int indent_of(const char *line, size_t len)
{
    size_t n = 0;
    while (n < len && line[n] == ' ')
        n++;
    return (int)n;
}

/* Where to break line[0..len) so that the first part fits width: after
 * the last ", " or " | " that fits in its last quarter, else at the last space; 0:
 * no place. The part ends before the returned index; the rest starts after
 * the spaces there. */
static size_t break_at(const char *line, size_t len, size_t width, size_t indent)
{
    size_t comma = 0, space = 0;
    for (size_t i = indent + 1; i < len && i <= width; i++) {
        if (line[i] != ' ')
            continue;
        space = i;
        if (line[i - 1] == ',' || line[i - 1] == '|')
            comma = i;
    }
    if (comma > indent + 3 * (width - indent) / 4)
        return comma;
    if (space)
        return space;
    for (size_t i = width; i < len; i++) /* a long word: after it */
        if (line[i] == ' ')
            return i;
    return 0;
}

static void wrap_line(FILE *out, const char *line, size_t len, int width, int cont_indent)
{
    int indent = indent_of(line, len);
    int cont = cont_indent >= 0 ? cont_indent
               : indent == 0    ? 10
               : indent >= 8    ? indent
                                : indent + 2;
    if (cont > width / 2)
        cont = width / 2;
    size_t room = (size_t)width; /* columns for the part being written */
    size_t skip = (size_t)indent; /* its leading spaces: no break there */
    while (len > room) {
        size_t at = break_at(line, len, room, skip);
        if (at == 0)
            break;
        fwrite(line, 1, at, out);
        fprintf(out, "\n%*s", cont, "");
        while (at < len && line[at] == ' ')
            at++;
        line += at;
        len -= at;
        room = (size_t)(width - cont);
        skip = 0;
    }
    fwrite(line, 1, len, out);
}

void td_wrap_text(FILE *out, const char *text, int width, int cont_indent)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        wrap_line(out, text, len, width, cont_indent);
        if (!nl)
            break;
        fputc('\n', out);
        text = nl + 1;
    }
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
    if (wide)
        return write(out, ctx, err);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return td_fail(err, "out of memory");
    int rc = write(mem, ctx, err);
    if (fclose(mem) != 0 && rc == 0)
        rc = td_fail(err, "out of memory");
    if (rc == 0)
        td_wrap_text(out, text, TD_TEXT_WIDTH, -1);
    free(text);
    return rc;
}
