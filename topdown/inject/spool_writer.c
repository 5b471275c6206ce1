#include "spool_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int spool_fd = -1;

int td_sw_open(const char *path)
{
    spool_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    return spool_fd < 0 ? -1 : 0;
}

int td_sw_is_open(void)
{
    return spool_fd >= 0;
}

cJSON *td_sw_record(const char *type)
{
    cJSON *rec = cJSON_CreateObject();
    if (!rec)
        return NULL;
    cJSON_AddStringToObject(rec, "type", type);
    cJSON_AddNumberToObject(rec, "pid", (double)getpid());
    return rec;
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

void td_sw_emit(cJSON *rec)
{
    if (!rec)
        return;
    char *text = spool_fd >= 0 ? cJSON_PrintUnformatted(rec) : NULL;
    cJSON_Delete(rec);
    if (!text)
        return;
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (!line) {
        free(text);
        return;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    write_all(line, len + 1); /* one write: the line stays whole */
    free(line);
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
