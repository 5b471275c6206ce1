/* Whether a cubin's code calls the device heap (malloc, free; device-side
 * new and delete compile to them): kernel replay cannot repeat such
 * kernels faithfully (topdown/inject/measure_policy.c). Pure, tested on the CPU
 * (tests/unit/test_device_heap.c). */
#ifndef TD_DEVICE_HEAP_H
#define TD_DEVICE_HEAP_H

#include <stddef.h>

/* 1 when the cubin's string tables name malloc or free ("\0malloc\0",
 * "\0free\0"); 0 otherwise, and for NULL. A buffer that is not an ELF
 * with string tables is searched whole. */
int td_cubin_uses_device_heap(const char *cubin, size_t size);

#endif
