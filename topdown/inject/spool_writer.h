/* Writing the spool (format: docs/COLLECTION.md). Each record is one JSON
 * line written with a single write(2) on an O_APPEND descriptor: lines of
 * several threads or processes never interleave, and a crash loses at most
 * the line being written. No lock, so a signal handler may write too. */
#ifndef TD_SPOOL_WRITER_H
#define TD_SPOOL_WRITER_H

#include <cjson/cJSON.h>

/* Opens $TOPDOWN_SPOOL for appending; 0 on success. */
int td_sw_open(const char *path);
int td_sw_is_open(void);

/* A record of the given type, with "type" and "pid" filled in. */
cJSON *td_sw_record(const char *type);
/* Writes rec as one line and deletes it. */
void td_sw_emit(cJSON *rec);

/* Shorthands for records with a message. */
void td_sw_error(const char *code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void td_sw_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
