#include "metrics/csv_read.h"

#include <stdlib.h>
#include <string.h>

/* Splits rec->line in place into fields, removing quotes. An
 * unterminated quote ends at the end of the line with what it holds. */
static void split_fields(td_csv_record *rec)
{
    char *in = rec->line, *out = rec->line;
    rec->count = 0;
    while (rec->count < TD_CSV_MAX_FIELDS) {
        rec->fields[rec->count++] = out;
        int quoted = *in == '"';
        if (quoted)
            in++;
        while (*in != '\0') {
            if (quoted && in[0] == '"' && in[1] == '"') {
                *out++ = '"';
                in += 2;
            } else if (quoted && in[0] == '"') {
                quoted = 0;
                in++;
            } else if (!quoted && *in == ',') {
                break;
            } else {
                *out++ = *in++;
            }
        }
        int more = *in == ',';
        *out++ = '\0';
        if (!more)
            return;
        in++;
    }
}

int td_csv_next(FILE *f, td_csv_record *rec)
{
    ssize_t len = getline(&rec->line, &rec->cap, f);
    if (len < 0)
        return 0;
    while (len > 0 && (rec->line[len - 1] == '\n' || rec->line[len - 1] == '\r'))
        rec->line[--len] = '\0';
    split_fields(rec);
    return 1;
}

void td_csv_free(td_csv_record *rec)
{
    free(rec->line);
    memset(rec, 0, sizeof *rec);
}
