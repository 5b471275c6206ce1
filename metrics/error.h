/* Errors are values: a function that can fail returns 0 on success or -1
 * after writing one line (no newline) into a td_error. Only main prints. */
#ifndef TD_ERROR_H
#define TD_ERROR_H

#include <stddef.h>

typedef struct td_error {
    char msg[1024];
} td_error;

/* Formats the message into err (if not NULL) and returns -1. */
int td_fail(td_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes an existing message: "context: old message". Returns -1. */
int td_fail_context(td_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
