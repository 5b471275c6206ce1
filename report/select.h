/* Naming kernels of a result: "#N" is the N-th heaviest kernel, the number
 * the report prints ("Kernel N/M"); anything else is matched as the
 * collector's -k is (metrics/kmatch.h: "regex:RE" or a Perl-style RE,
 * searched for in each kernel's name under --kernel-name-base). */
#ifndef TD_REPORT_SELECT_H
#define TD_REPORT_SELECT_H

#include <stddef.h>

#include "levels/aggregate.h"
#include "metrics/kmatch.h"
#include "metrics/result.h"

/* 1 and the kernel's index when selector is "#N" (N from 1 to the number
 * of kernels), 0 when it is not of that form; -1 when N is out of range. */
int td_kernel_rank(const td_summary *s, const char *selector, size_t *index, td_error *err);

/* keep[k] = 1 for each kernel the selector names (keep: n_kernels bytes);
 * *n_kept of them. Names are taken under base; res (may be NULL) gives
 * the mangled ones. Fails on a bad regex, an out-of-range rank, or when
 * nothing matches (the message lists the heaviest names). */
int td_kernel_select(const td_summary *s, const td_result *res, const char *selector,
                     td_name_base base, unsigned char *keep, size_t *n_kept, td_error *err);

/* 1 when kernel k of s matches m (its mangled name from res, may be NULL). */
int td_kernel_matches(const td_summary *s, const td_result *res, size_t k,
                      const td_kmatch *m);

/* Appends to buf (size bytes, NUL-terminated) the candidates' ranks and
 * names, each shown from shortly before where the candidates start to
 * differ: '#3 "...<float, 4>(at::Tensor..."'. */
void td_kernel_candidates(const td_summary *s, const size_t *which, size_t n, char *buf,
                          size_t size);

#endif
