/* A small RFC 4180 reader: one record per call, quoted fields with commas
 * and doubled quotes. Used by the importers. */
#ifndef TD_CSV_READ_H
#define TD_CSV_READ_H

#include <stddef.h>
#include <stdio.h>

#define TD_CSV_MAX_FIELDS 256

typedef struct td_csv_record {
    char *fields[TD_CSV_MAX_FIELDS]; /* point into line */
    size_t count;
    char *line;                      /* owned */
    size_t cap;
} td_csv_record;

/* Reads the next record. Returns 1 on a record, 0 at end of file. Lines
 * that do not start a CSV record (nvprof's "==PID==" banners) are returned
 * as a single field. */
int td_csv_next(FILE *f, td_csv_record *rec);
void td_csv_free(td_csv_record *rec);

#endif
