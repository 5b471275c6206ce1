/* The collection spool: what the injection library writes while the app
 * runs, one JSON object per line (format in docs/COLLECTION.md). The
 * launcher turns it into a td_result once the app has ended, and reads it
 * as it grows for the progress line. */
#ifndef TD_SPOOL_H
#define TD_SPOOL_H

#include <stddef.h>

#include "metrics/error.h"
#include "metrics/result/result.h"

#define TD_SPOOL_FORMAT "topdown-spool/2"    /* kernel records, groups, graph nodes */
#define TD_SPOOL_FORMAT_V1 "topdown-spool/1" /* still read */

/* What the spool says beyond the launches themselves. */
typedef struct td_spool_summary {
    int processes;     /* start records (one per CUDA process of the app) */
    int ended;         /* end records: processes that flushed at exit */
    int truncated;     /* the last line was cut short (the app died writing) */
    int last_signal;   /* signal record: the app was stopped by this signal */
    long launches;     /* launch records */
    long profiled;     /* launches with counters */
    long timed;        /* launches with a measured duration */
    long copies;       /* copy records kept (memcpy, memset, peer) */
    int passes;        /* most replay passes any device needed */
    char *errors;      /* error records, joined with "; ", NULL if none */
    char *warnings;    /* warning records, joined with "; ", NULL if none */
    int collector_failed; /* an error record of code profiler_failed or
                             cupti_failed: counters are missing because
                             topdown's collection failed, not for the app */
} td_spool_summary;

/* Reads a spool file into res (devices and launches; the caller fills the
 * app fields). A missing file is not an error: it gives an empty result
 * (the app never initialised CUDA). A cut last line is dropped and counted
 * in sum->truncated; any other bad line is an error naming it. */
int td_spool_load(const char *path, td_result *res, td_spool_summary *sum,
                  td_error *err);
/* The same from memory; name is used in messages only. */
int td_spool_parse(const char *text, size_t len, const char *name,
                   td_result *res, td_spool_summary *sum, td_error *err);
/* 1 when every process that started also wrote its end record. */
int td_spool_complete(const td_spool_summary *sum);
void td_spool_summary_free(td_spool_summary *sum);

/* Progress while the app runs: each call reads the complete lines appended
 * since the last one. Start from a zeroed struct. */
typedef struct td_spool_progress {
    long offset;       /* bytes consumed so far */
    long launches;
    long profiled;
    int passes;
} td_spool_progress;

int td_spool_progress_update(const char *path, td_spool_progress *p);

#endif
