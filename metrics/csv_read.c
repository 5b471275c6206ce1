#include "metrics/csv_read.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>

/* Fields are kept as written: no space trimmed around unquoted ones. */
static int no_spaces(unsigned char c)
{
    (void)c;
    return 0;
}

/* libcsv's field callback: the field, NUL-terminated, appended to text. */
static void on_field(void *data, size_t len, void *arg)
{
    td_csv_record *rec = arg;
    if (rec->failed)
        return;
    if (rec->used + len + 1 > rec->cap) {
        size_t cap = (rec->used + len + 1) * 2;
        char *bigger = realloc(rec->text, cap);
        if (!bigger) {
            rec->failed = 1;
            return;
        }
        rec->text = bigger;
        rec->cap = cap;
    }
    if (rec->count < TD_CSV_MAX_FIELDS)
        rec->offsets[rec->count++] = rec->used;
    else
        return;
    if (len)
        memcpy(rec->text + rec->used, data, len);
    rec->text[rec->used + len] = '\0';
    rec->used += len + 1;
}

static void on_record(int terminator, void *arg)
{
    (void)terminator;
    td_csv_record *rec = arg;
    rec->done = 1;
}

/* A fresh record, the parser made on first use. */
static int start_record(td_csv_record *rec)
{
    if (!rec->parser) {
        rec->parser = malloc(sizeof *rec->parser);
        if (!rec->parser || csv_init(rec->parser, 0) != 0) {
            free(rec->parser);
            rec->parser = NULL;
            return -1;
        }
        csv_set_space_func(rec->parser, no_spaces);
    }
    rec->count = 0;
    rec->used = 0;
    rec->done = 0;
    rec->line = 0;
    return 0;
}

int td_csv_next(FILE *f, td_csv_record *rec)
{
    if (rec->failed || start_record(rec))
        return 0;
    /* A byte at a time: the record ends where libcsv says, and the next
     * one stays in the stream. */
    int c;
    while (!rec->done && (c = getc(f)) != EOF) {
        unsigned char byte = (unsigned char)c;
        if (rec->line == 0 && byte != '\n' && byte != '\r')
            rec->line = rec->lines_read + 1;
        rec->lines_read += byte == '\n';
        if (csv_parse(rec->parser, &byte, 1, on_field, on_record, rec) != 1)
            rec->failed = 1;
    }
    if (!rec->done)
        csv_fini(rec->parser, on_field, on_record, rec);
    if (rec->failed || !rec->done)
        return 0;
    for (size_t i = 0; i < rec->count; i++)
        rec->fields[i] = rec->text + rec->offsets[i];
    return 1;
}

void td_csv_free(td_csv_record *rec)
{
    if (rec->parser) {
        csv_free(rec->parser);
        free(rec->parser);
    }
    free(rec->text);
    memset(rec, 0, sizeof *rec);
}
