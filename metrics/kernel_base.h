/* The name bases a kernel is known by (ncu's --kernel-name-base): the base
 * function name of a demangled C++ name, the whole demangled name, or the
 * mangled one. Pure string work, shared by the collector (which matches
 * -k on them) and the report (which names kernels with them). */
#ifndef TD_KERNEL_BASE_H
#define TD_KERNEL_BASE_H

#include <stddef.h>

#include "metrics/error.h"

typedef enum td_name_base {
    TD_NAME_FUNCTION,  /* the base function name (default) */
    TD_NAME_DEMANGLED, /* the whole demangled name */
    TD_NAME_MANGLED    /* the mangled name where it is known */
} td_name_base;

/* "function", "demangled" or "mangled"; -1 with a message otherwise. */
int td_name_base_parse(const char *text, td_name_base *out, td_error *err);

/* The word of a base ("function"...), what td_name_base_parse reads. */
const char *td_name_base_word(td_name_base base);

/* The base function name of a demangled name into out, like ncu's
 * --print-kernel-base function ("void at::native::(anonymous
 * namespace)::multi_tensor_apply_kernel<...>(...)" ->
 * "multi_tensor_apply_kernel"); the whole name when it has none, or when
 * it is words without a parameter list ("CUDA graph 2"). */
void td_kernel_base_name(const char *name, char *out, size_t size);

/* The kernel's name under base: demangled (required) is the demangled
 * name, mangled (NULL or "": unknown, the demangled name stands in) the
 * mangled one. Returns demangled, mangled or buf (filled, size bytes). */
const char *td_kernel_name_in(td_name_base base, const char *demangled, const char *mangled,
                              char *buf, size_t size);

#endif
