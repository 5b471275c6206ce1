/* -o name patterns, as ncu's: one result per process of a parallel job.
 *   %p     the pid of the app process topdown starts (its child)
 *   %h     the host name
 *   %q{V}  the value of environment variable V (an unset one is an error)
 *   %i     a sequence number: the first, from 1, whose name is free
 *   %%     a '%'
 * Any other '%' is an error, so a typo never names a file. */
#ifndef TD_REPORT_OUTNAME_H
#define TD_REPORT_OUTNAME_H

#include <stddef.h>

#include "metrics/error.h"

/* Whether pattern holds %i (the caller then tries 1, 2, ... until a name
 * is free). */
int td_outname_has_seq(const char *pattern);

/* Writes pattern into out with pid and seq put in; 0, or -1 naming the
 * bad part of the pattern (an unknown %x, an unterminated %q{, an unset
 * variable, a name too long). */
int td_outname_expand(const char *pattern, long pid, long seq, char *out, size_t size,
                      td_error *err);

#endif
