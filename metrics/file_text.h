/* Whole-file reads for the JSON readers (arch tables, results, spools). */
#ifndef TD_FILE_TEXT_H
#define TD_FILE_TEXT_H

#include <stddef.h>

#include "metrics/error.h"

/* Reads path ("-": standard input) into a NUL-terminated buffer the
 * caller frees; *len excludes the NUL. Works on pipes and growing files too (no fseek). A folder or a
 * device is an error, and so is a FIFO no program writes to (instead of
 * waiting for one forever). */
int td_read_text_file(const char *path, char **text, size_t *len, td_error *err);

#endif
