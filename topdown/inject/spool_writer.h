/* Writing the spool (format: docs/COLLECTION.md). Records are JSON lines
 * appended to a 64 KiB buffer under the writer's own lock (any thread may
 * emit) and written with one write(2) of whole lines on an O_APPEND
 * descriptor when the buffer is full, with the first line 0.5 s after the
 * last write, on td_sw_flush() and at unload: lines of several processes
 * never interleave, and a crash loses at most the unflushed buffer (and
 * cuts at most the last line). Errors and warnings are flushed at once. A
 * fork flushes first, so a child never repeats its parent's lines. Write
 * errors drop data; nothing here blocks the app for longer than a write. */
#ifndef TD_SPOOL_WRITER_H
#define TD_SPOOL_WRITER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Opens path (the options' spool) for appending; 0 on success. */
int td_sw_open(const char *path);
int td_sw_is_open(void);
/* This process's pid (kept across fork: records of a child carry its own). */
long td_sw_pid(void);

/* A record of the given type, with "type" and "pid" filled in. */
cJSON *td_sw_record(const char *type);
/* Adds rec as one line and deletes it; 0 when the line was taken. */
int td_sw_emit(cJSON *rec);

/* A launch that was only timed (no counters, no region): its record
 * names its kernel by k, a kernel record of this process. */
typedef struct td_sw_launch {
    uint32_t context;
    uint64_t id;
    uint32_t corr;
    uint64_t k;
    unsigned grid[3], block[3];
    uint32_t stream;
} td_sw_launch;

/* The launch's line, '\n' included, into buf; its length, or 0 when it
 * does not fit. */
size_t td_sw_format_launch(char *buf, size_t size, long pid, const td_sw_launch *l);
/* Adds it with no allocation; 0 when the line was taken. */
int td_sw_emit_launch(const td_sw_launch *l);
/* What a launch held on the SM, from CUPTI's kernel record: registers per
 * thread, static and dynamic shared memory per block, and the shared
 * memory the driver configured the SM with (docs/COLLECTION.md, "res"). */
#define TD_SW_RES_FIELDS 4
/* A kernel_time record's line (CUPTI's activity record of a launch),
 * likewise; res (TD_SW_RES_FIELDS values, or NULL: none) last. */
size_t td_sw_format_kernel_time(char *buf, size_t size, long pid, uint32_t context,
                                uint32_t corr, uint64_t start_ns, uint64_t duration_ns,
                                const uint32_t *res);
/* A kernel_time record, likewise. */
int td_sw_emit_kernel_time(uint32_t context, uint32_t corr, uint64_t start_ns,
                           uint64_t duration_ns, const uint32_t *res);
/* The kernel record of k (once per kernel and process, before its first
 * launch); 0 when the line was taken. */
int td_sw_emit_kernel(uint64_t k, const char *name, const char *mangled);

/* Writes the buffered lines out. Safe in a signal handler that
 * interrupted the writer: it then does nothing. */
void td_sw_flush(void);
/* Flushes, and writes every later line at once (the process is ending:
 * no later flush may come). */
void td_sw_unbuffer(void);

/* Shorthands for records with a message; flushed at once. */
void td_sw_error(const char *code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void td_sw_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
