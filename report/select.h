/* Naming kernels of a result: "#N" is the N-th heaviest kernel, the number
 * the report prints ("Kernel N/M"); anything else is matched as the
 * collector's -k is (metrics/kmatch.h: "regex:RE" or a Perl-style RE,
 * searched for in each kernel's name under --kernel-name-base). */
#ifndef TD_REPORT_SELECT_H
#define TD_REPORT_SELECT_H

#include <stddef.h>

#include "levels/aggregate.h"
#include "metrics/kmatch.h"
#include "metrics/result/result.h"

/* 1 and the kernel's index when selector is "#N" (N from 1 to the number
 * of kernels), 0 when it is not of that form; -1 when N is out of range. */
int td_kernel_rank(const td_summary *s, const char *selector, size_t *index, td_error *err);

/* Kernel k's name as the report's title shows it: its label, or, where
 * "Kernel K/N: " and the label pass TD_TEXT_WIDTH columns, the label
 * elided in the middle and its rank (" #K": names alike at both ends stay
 * apart). */
void td_kernel_shown(const char *label, size_t k, size_t n_kernels, char *out, size_t size);

/* keep[k] = 1 (keep: n_kernels bytes, cleared first) for each kernel that
 * selector names as a whole: its demangled or mangled name, or its label
 * under any name base, whole or as the report's title shows it
 * (td_kernel_shown); failing those, with each "..." standing for any
 * characters. *n_kept of them (0: none). */
int td_kernel_by_name(const td_summary *s, const td_result *res, const char *selector,
                      unsigned char *keep, size_t *n_kept, td_error *err);

/* keep[k] = 1 for each kernel the selector names (keep: n_kernels bytes):
 * its rank, or the kernels it names whole (td_kernel_by_name) and those
 * it matches as a pattern; *n_kept of them. Names are taken under base; res (may be NULL) gives
 * the mangled ones. Fails on a bad regex, an out-of-range rank, or when
 * nothing matches (the message lists the heaviest names). */
int td_kernel_select(const td_summary *s, const td_result *res, const char *selector,
                     td_name_base base, unsigned char *keep, size_t *n_kept, td_error *err);

/* The error for a selector that names no kernel: the heaviest kernels by
 * rank and label (under base), in a few lines. Returns -1. */
int td_kernel_no_match(const td_summary *s, const td_result *res, const char *selector,
                       td_name_base base, td_error *err);

/* 1 when kernel k of s matches m (its mangled name from res, may be NULL). */
int td_kernel_matches(const td_summary *s, const td_result *res, size_t k,
                      const td_kmatch *m);

/* Appends to buf (size bytes, NUL-terminated) the candidates' ranks and
 * names, each shown from shortly before where the candidates start to
 * differ: '#3 "...<float, 4>(at::Tensor..."'. */
void td_kernel_candidates(const td_summary *s, const size_t *which, size_t n, char *buf,
                          size_t size);

#endif
