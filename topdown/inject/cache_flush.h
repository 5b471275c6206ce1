/* --cache-control all: the context's L2 (and each SM's L1) emptied of the
 * app's data before a profiled pass, by reading a buffer twice the size of
 * the L2 (docs/COLLECTION.md, "Measurement conditions"). */
#ifndef TD_CACHE_FLUSH_H
#define TD_CACHE_FLUSH_H

#include <cuda.h>
#include <stddef.h>

typedef struct td_flush {
    CUdeviceptr buf;   /* 2 x L2 bytes, only ever read */
    size_t words;      /* 32-bit words in buf */
    CUdeviceptr sink;  /* where the kernel writes when its xor hits a magic value */
    CUmodule module;
    CUfunction kernel;
    CUstream stream;   /* topdown's own: never the app's */
    unsigned blocks;
    int ready;
} td_flush;

/* Sets the flush up in the current context (device dev); -1 with why
 * (one line) when it cannot (no memory for the buffer, JIT refused). */
int td_flush_open(td_flush *f, CUdevice dev, char *why, size_t size);
/* Runs the flush and waits for it; -1 when the launch failed. The caller
 * has drained the context first (the app's kernels must not refill the L2
 * while it runs) and keeps the callbacks out (td_flush_active). */
int td_flush_run(td_flush *f);
void td_flush_close(td_flush *f);

/* Nonzero while this thread launches the flush: the injection library's
 * callbacks ignore it (it is not the app's launch). */
extern _Thread_local int td_flush_active;

/* The flush kernel's name, left out of the kernel timing records. */
#define TD_FLUSH_KERNEL "td_flush_l2"

#endif
