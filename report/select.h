/* Naming kernels of a result: "#N" is the N-th heaviest kernel, the number
 * the report prints ("Kernel N/M"); anything else is a POSIX ERE on the
 * demangled name (report -k) or a part of it (--timeline). */
#ifndef TD_REPORT_SELECT_H
#define TD_REPORT_SELECT_H

#include <stddef.h>

#include "levels/aggregate.h"

/* 1 and the kernel's index when selector is "#N" (N from 1 to the number
 * of kernels), 0 when it is not of that form; -1 when N is out of range. */
int td_kernel_rank(const td_summary *s, const char *selector, size_t *index, td_error *err);

/* keep[k] = 1 for each kernel the selector names (keep: n_kernels bytes);
 * *n_kept of them. Fails on a bad regex, an out-of-range rank, or when
 * nothing matches (the message lists the heaviest names). */
int td_kernel_select(const td_summary *s, const char *selector, unsigned char *keep,
                     size_t *n_kept, td_error *err);

/* Appends to buf (size bytes, NUL-terminated) the candidates' ranks and
 * names, each shown from shortly before where the candidates start to
 * differ: '#3 "...<float, 4>(at::Tensor..."'. */
void td_kernel_candidates(const td_summary *s, const size_t *which, size_t n, char *buf,
                          size_t size);

#endif
