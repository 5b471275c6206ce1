/* Kernel-name selection with ncu's habits, the same in the collector
 * (-k as kernel_regex, topdown/inject/kernels.c) and in the offline
 * commands (report -k, --timeline): "regex:RE" (ncu's form) or a plain RE,
 * Perl-style (PCRE2), searched for in the kernel's name under a name base
 * (metrics/kernel_base.h; function by default, as ncu). A plain argument
 * also matches a name equal to it, so a full name copied from a report
 * (parentheses, templates and all) selects that kernel. */
#ifndef TD_KMATCH_H
#define TD_KMATCH_H

#include "metrics/error.h"
#include "metrics/kernel_base.h"

typedef struct td_kmatch td_kmatch;

/* Compiles arg for names under base; -1 with a one-line message on a bad
 * regex or an empty one. Free with td_kmatch_free. */
int td_kmatch_compile(const char *arg, td_name_base base, td_kmatch **out, td_error *err);

/* 1 when the kernel of these names matches, else 0. demangled is required;
 * mangled may be NULL (the demangled name stands in for it). */
int td_kmatch_test(const td_kmatch *m, const char *demangled, const char *mangled);

/* The base the names are matched under. */
td_name_base td_kmatch_base(const td_kmatch *m);

void td_kmatch_free(td_kmatch *m);

#endif
