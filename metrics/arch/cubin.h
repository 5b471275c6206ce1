/* A cubin on the host (CUPTI, no GPU): its CRC as the PC sampling API
 * reports it, and the source line of a PC offset in one of its functions
 * (cuptiGetSassToSourceCorrelation; needs a cubin built with -lineinfo or
 * -G). Used by `topdown source` on the cubins saved beside a result. */
#ifndef TD_CUBIN_H
#define TD_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"

int td_cubin_crc(const void *cubin, size_t size, uint64_t *crc, td_error *err);

/* The source of (function, pc): file (with its directory when CUPTI gives
 * one) into file, and the line. Returns 1 when found, 0 when the cubin has
 * no line information there (or does not hold the function), -1 on an
 * error (err set). */
int td_cubin_source_line(const void *cubin, size_t size, const char *function, uint64_t pc,
                         char *file, size_t file_size, unsigned *line, td_error *err);

/* Reads a whole file (a saved cubin); *data is malloc'd. */
int td_cubin_read(const char *path, void **data, size_t *size, td_error *err);

#endif
