/* Kernel names as people read them: the base function name of a demangled
 * C++ name (metrics/kernel_base.h), like ncu's --print-kernel-base function
 * ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<...>(...)"
 * -> "multi_tensor_apply_kernel"), and labels that stay distinct when
 * several kernels share a base name. */
#ifndef TD_REPORT_KNAME_H
#define TD_REPORT_KNAME_H

#include <stddef.h>

#include "metrics/error.h"
#include "metrics/kernel_base.h"
#include "metrics/result/result.h"

/* The kernel's mangled name in res, or name itself when none is recorded. */
const char *td_kernel_mangled(const td_result *res, const char *name);

/* One label per name under mode: for TD_NAME_FUNCTION, names whose base
 * names collide keep the part of their full names that differs
 * ("multi_tensor_apply_kernel [...Metadata<2>...]"), elided in the middle
 * to 36 characters, or more where the group's labels would be alike,
 * numbered when even the whole part collides. res (may be NULL) gives the
 * mangled names. *labels is an array of n malloc'd strings; free with
 * td_kernel_labels_free. */
int td_kernel_labels(const char *const *names, size_t n, td_name_base mode,
                     const td_result *res, char ***labels, td_error *err);
/* The same; wide: the differing parts whole (--wide). */
int td_kernel_labels_wide(const char *const *names, size_t n, td_name_base mode,
                          const td_result *res, int wide, char ***labels, td_error *err);
void td_kernel_labels_free(char **labels, size_t n);

/* label in at most max characters: a long base name is cut before its
 * " [differing part]", which stays; other labels lose their end ("..."). */
void td_label_fit(const char *label, size_t max, char *out, size_t size);

#endif
