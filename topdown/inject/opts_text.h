/* The encoding of TOPDOWN_COLLECT (docs/COLLECTION.md, "The one
 * variable"): one `name=value` a line, each line ended by '\n' (the last
 * one may lack it). A name is 1 to 31 of a-z, 0-9 and _. In a value, '%',
 * '=' and the control bytes (below 0x20, and 0x7f: '\n' among them) are
 * written %XX, two hexadecimal digits; every other byte as itself. So a
 * value of any bytes but NUL comes back exactly, and a written line holds
 * one '=' (a reader splits at the first). The launcher writes this text
 * and the collector reads it, both through this module and the options'
 * table of topdown/inject/collect_opts.c; this module knows no option.
 * Pure C. */
#ifndef TD_OPTS_TEXT_H
#define TD_OPTS_TEXT_H

#include <stddef.h>

#define TD_OPTS_NAME_MAX 32 /* a name's bytes and its NUL */

/* Appends "name=value\n" (value escaped; NULL: empty) at out + len.
 * Returns the length the text then has, like snprintf: out (size bytes,
 * NUL-terminated where size > 0) holds all of it when that is less than
 * size. A first pass with size 0 (out may be NULL) measures. */
size_t td_opts_text_put(char *out, size_t size, size_t len, const char *name,
                        const char *value);

/* Where a reading is: the rest of the text, and the number of the line
 * read last (1 for the first). */
typedef struct td_opts_cursor {
    const char *at;
    int line;
} td_opts_cursor;

/* Reads text (NULL: as empty) from its first line. */
void td_opts_cursor_init(td_opts_cursor *c, const char *text);

/* The next line: 1 with its name and *value (malloc'd, decoded; the
 * caller frees it); 0 at the end; -1 with msg when the line is malformed
 * (empty, no '=', a bad name, a '%' without two hexadecimal digits, %00)
 * or memory runs out: *value is then NULL, c->line that line's number,
 * and the next call reads the line after it. */
int td_opts_text_next(td_opts_cursor *c, char name[TD_OPTS_NAME_MAX], char **value, char *msg,
                      size_t size);

#endif
