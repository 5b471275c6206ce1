/* Compressed result files: .json.xz (liblzma) and .json.gz (zlib) are read
 * by their first bytes, whatever their name, and written when the name
 * ends in .xz or .gz. */
#ifndef TD_COMPRESS_H
#define TD_COMPRESS_H

#include <stddef.h>

#include "metrics/error.h"

/* Decompressed text is refused beyond this (a damaged or hostile file). */
#define TD_MAX_DECOMPRESSED ((size_t)4 << 30)

/* When *text (len bytes, read from name) starts like an xz or gzip stream,
 * replaces it by its decompressed text (NUL-terminated); else leaves it.
 * A name ending in .xz or .gz whose bytes are not that format fails. */
int td_decompress_text(const char *name, char **text, size_t *len, td_error *err);

/* The compression a file name asks for: 'x' (.xz), 'g' (.gz) or 0. */
int td_compression_of(const char *path);

/* text compressed as `kind` asks into *out (malloc'd). */
int td_compress_text(int kind, const char *text, size_t len, char **out, size_t *out_len,
                     td_error *err);

#endif
