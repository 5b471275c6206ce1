#include "topdown/inject/spool_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* FLUSH_NS: a line added this long after the last write writes the
 * buffer, so the launcher's progress line (and what a SIGKILL loses) lags
 * little while the app runs. */
enum { BUFFER_SIZE = 64 << 10 };
#define FLUSH_NS 500000000ll

#ifdef CLOCK_MONOTONIC_COARSE
#define WRITER_CLOCK CLOCK_MONOTONIC_COARSE /* a few ns: read per line */
#else
#define WRITER_CLOCK CLOCK_MONOTONIC
#endif

static int spool_fd = -1;
static long spool_pid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int holding; /* this thread holds lock */
static char buffer[BUFFER_SIZE];  /* whole lines only */
static size_t used;
static int unbuffered;
static int locked_for_fork;
static long long flushed_ns; /* when the buffer was last written */

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(WRITER_CLOCK, &ts);
    return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* 0 when this thread already holds the lock: a signal handler interrupted
 * the writer, and must leave its state alone. */
static int take_lock(void)
{
    if (holding)
        return 0;
    pthread_mutex_lock(&lock);
    holding = 1;
    return 1;
}

static void drop_lock(void)
{
    holding = 0;
    pthread_mutex_unlock(&lock);
}

static void write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(spool_fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* a full disk must not stop the app */
        buf += n;
        len -= (size_t)n;
    }
}

static void flush_locked(void)
{
    if (used && spool_fd >= 0)
        write_all(buffer, used); /* one write: the lines stay whole */
    used = 0;
    flushed_ns = now_ns();
}

/* A fork flushes first and the child starts empty with its own pid: the
 * parent's lines are written once. */
static void before_fork(void)
{
    locked_for_fork = take_lock();
    if (locked_for_fork)
        flush_locked();
}

static void after_fork_parent(void)
{
    if (locked_for_fork)
        drop_lock();
}

static void after_fork_child(void)
{
    used = 0;
    spool_pid = (long)getpid();
    if (locked_for_fork) {
        holding = 0;
        pthread_mutex_init(&lock, NULL); /* the child's only thread held it */
    }
}

int td_sw_open(const char *path)
{
    static int hooked;
    if (spool_fd >= 0 && take_lock()) { /* a second spool: the first one finished */
        flush_locked();
        close(spool_fd);
        spool_fd = -1;
        drop_lock();
    }
    spool_pid = (long)getpid();
    spool_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (spool_fd >= 0 && !hooked++)
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    return spool_fd < 0 ? -1 : 0;
}

int td_sw_is_open(void)
{
    return spool_fd >= 0;
}

long td_sw_pid(void)
{
    return spool_pid;
}

/* Adds text and a newline as one line; 0 when taken. A line longer than
 * the buffer is written on its own. */
static int add_line(const char *text, size_t len, int has_newline)
{
    size_t total = len + !has_newline;
    if (spool_fd < 0 || !take_lock())
        return -1;
    if (used + total > BUFFER_SIZE)
        flush_locked();
    if (total > BUFFER_SIZE || unbuffered) {
        /* alone: text and newline in one write, from the (empty) buffer
         * when it fits, else from a copy */
        char *line = total > BUFFER_SIZE ? malloc(total) : buffer;
        if (line) {
            memcpy(line, text, len);
            line[total - 1] = '\n';
            write_all(line, total);
            if (line != buffer)
                free(line);
        }
        drop_lock();
        return line ? 0 : -1;
    }
    memcpy(buffer + used, text, len);
    buffer[used + total - 1] = '\n';
    used += total;
    if (now_ns() - flushed_ns >= FLUSH_NS)
        flush_locked();
    drop_lock();
    return 0;
}

void td_sw_flush(void)
{
    if (!take_lock())
        return;
    flush_locked();
    drop_lock();
}

void td_sw_unbuffer(void)
{
    if (!take_lock())
        return;
    flush_locked();
    unbuffered = 1;
    drop_lock();
}

cJSON *td_sw_record(const char *type)
{
    cJSON *rec = cJSON_CreateObject();
    if (!rec)
        return NULL;
    cJSON_AddStringToObject(rec, "type", type);
    cJSON_AddNumberToObject(rec, "pid", (double)spool_pid);
    return rec;
}

int td_sw_emit(cJSON *rec)
{
    if (!rec)
        return -1;
    char *text = spool_fd >= 0 ? cJSON_PrintUnformatted(rec) : NULL;
    cJSON_Delete(rec);
    if (!text)
        return -1;
    int rc = add_line(text, strlen(text), 0);
    free(text);
    return rc;
}

/* The two lines every launch writes are built by hand: snprintf's 12
 * conversions took about half of a traced launch's 0.7-1.1 us spool line
 * on an H200 (trace_probe_NVIDIA_H200_2026-11-26.txt). The text is
 * snprintf's to the byte (test_spool_writer). */
typedef struct line_out {
    char *at, *end; /* the next byte, the end of the buffer; at NULL: full */
} line_out;

static void put_text(line_out *o, const char *text, size_t len)
{
    if (!o->at || (size_t)(o->end - o->at) < len) {
        o->at = NULL;
        return;
    }
    memcpy(o->at, text, len);
    o->at += len;
}

#define PUT(o, literal) put_text((o), (literal), sizeof(literal) - 1)

static void put_u64(line_out *o, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do
        digits[sizeof digits - 1 - n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    put_text(o, digits + sizeof digits - n, n);
}

static void put_long(line_out *o, long v)
{
    if (v < 0) {
        PUT(o, "-");
        put_u64(o, (uint64_t)0 - (uint64_t)v);
        return;
    }
    put_u64(o, (uint64_t)v);
}

static void put_triple(line_out *o, const unsigned v[3])
{
    PUT(o, "[");
    put_u64(o, v[0]);
    PUT(o, ",");
    put_u64(o, v[1]);
    PUT(o, ",");
    put_u64(o, v[2]);
    PUT(o, "]");
}

/* The line's length, or 0 when it did not fit (a NUL after it, as
 * snprintf leaves). */
static size_t line_end(line_out *o, char *buf)
{
    PUT(o, "\n");
    if (!o->at || o->at == o->end)
        return 0;
    *o->at = '\0';
    return (size_t)(o->at - buf);
}

size_t td_sw_format_launch(char *buf, size_t size, long pid, const td_sw_launch *l)
{
    line_out o = {buf, buf + size};
    PUT(&o, "{\"type\":\"launch\",\"pid\":");
    put_long(&o, pid);
    PUT(&o, ",\"context\":");
    put_u64(&o, l->context);
    PUT(&o, ",\"id\":");
    put_u64(&o, l->id);
    PUT(&o, ",\"corr\":");
    put_u64(&o, l->corr);
    PUT(&o, ",\"k\":");
    put_u64(&o, l->k);
    PUT(&o, ",\"grid\":");
    put_triple(&o, l->grid);
    PUT(&o, ",\"block\":");
    put_triple(&o, l->block);
    PUT(&o, ",\"stream\":");
    put_u64(&o, l->stream);
    PUT(&o, "}");
    return line_end(&o, buf);
}

size_t td_sw_format_kernel_time(char *buf, size_t size, long pid, uint32_t context,
                                uint32_t corr, uint64_t start_ns, uint64_t duration_ns,
                                const uint32_t *res)
{
    line_out o = {buf, buf + size};
    PUT(&o, "{\"type\":\"kernel_time\",\"pid\":");
    put_long(&o, pid);
    PUT(&o, ",\"context\":");
    put_u64(&o, context);
    PUT(&o, ",\"corr\":");
    put_u64(&o, corr);
    PUT(&o, ",\"start_ns\":");
    put_u64(&o, start_ns);
    PUT(&o, ",\"duration_ns\":");
    put_u64(&o, duration_ns);
    if (res) {
        PUT(&o, ",\"res\":[");
        for (int i = 0; i < TD_SW_RES_FIELDS; i++) {
            if (i)
                PUT(&o, ",");
            put_u64(&o, res[i]);
        }
        PUT(&o, "]");
    }
    PUT(&o, "}");
    return line_end(&o, buf);
}

int td_sw_emit_launch(const td_sw_launch *l)
{
    char line[320];
    size_t len = td_sw_format_launch(line, sizeof line, spool_pid, l);
    return len ? add_line(line, len, 1) : -1;
}

int td_sw_emit_kernel_time(uint32_t context, uint32_t corr, uint64_t start_ns,
                           uint64_t duration_ns, const uint32_t *res)
{
    char line[256];
    size_t len = td_sw_format_kernel_time(line, sizeof line, spool_pid, context, corr, start_ns,
                                          duration_ns, res);
    return len ? add_line(line, len, 1) : -1;
}

int td_sw_emit_kernel(uint64_t k, const char *name, const char *mangled)
{
    cJSON *rec = td_sw_record("kernel");
    if (!rec)
        return -1;
    cJSON_AddNumberToObject(rec, "k", (double)k);
    cJSON_AddStringToObject(rec, "name", name && name[0] ? name : "?");
    if (mangled && mangled[0])
        cJSON_AddStringToObject(rec, "mangled", mangled);
    return td_sw_emit(rec);
}

static void emit_message(const char *type, const char *code, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    cJSON *rec = td_sw_record(type);
    if (!rec)
        return;
    if (code)
        cJSON_AddStringToObject(rec, "code", code);
    cJSON_AddStringToObject(rec, "message", msg);
    td_sw_emit(rec);
    td_sw_flush(); /* rare, and what a crash report needs */
}

void td_sw_error(const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_message("error", code, fmt, ap);
    va_end(ap);
}

void td_sw_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_message("warning", NULL, fmt, ap);
    va_end(ap);
}

/* The lines still buffered when the library is unloaded (a fork()ed child
 * that exits, a record after at_exit's flush). */
__attribute__((destructor)) static void flush_at_unload(void)
{
    td_sw_flush();
}
