/* The importers' CSV reader: libcsv (RFC 4180: quoted fields with commas,
 * doubled quotes and newlines), one record per call from a stream. */
#ifndef TD_CSV_READ_H
#define TD_CSV_READ_H

#include <stddef.h>
#include <stdio.h>

#define TD_CSV_MAX_FIELDS 256 /* fields past this many are dropped */

struct csv_parser;

typedef struct td_csv_record {
    char *fields[TD_CSV_MAX_FIELDS]; /* point into text */
    size_t count;
    long line;                       /* the line the record starts on, from 1 */
    /* the reader's state: zero-initialise, free with td_csv_free */
    char *text;                      /* the fields, each NUL-terminated */
    size_t used, cap;
    size_t offsets[TD_CSV_MAX_FIELDS];
    long lines_read;
    int done, failed;
    struct csv_parser *parser;
} td_csv_record;

/* Reads the next record. Returns 1 on a record, 0 at end of file (or when
 * out of memory). Lines that are no CSV record (nvprof's "==PID=="
 * banners) come as a record of one field; blank lines are skipped, and a
 * quote left open at the end of the file ends there with what it holds. */
int td_csv_next(FILE *f, td_csv_record *rec);
void td_csv_free(td_csv_record *rec);

#endif
