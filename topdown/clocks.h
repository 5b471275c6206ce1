/* --clock-control base: the launcher locks the GPU clocks to their base
 * (rated TDP) frequency while the app runs and always gives back what it
 * changed (docs/COLLECTION.md, "Measurement conditions"). The policy here
 * (what to lock, what to restore, in which order, what to say) is written
 * against a small interface, td_clock_ops, so that a unit test drives it
 * with a fake; nvml_clocks.c is the real one (NVML, loaded with dlopen). */
#ifndef TD_CLOCKS_H
#define TD_CLOCKS_H

#include <stddef.h>

#include "metrics/error.h"

/* What an operation of td_clock_ops returns. */
typedef enum td_clk_status {
    TD_CLK_OK = 0,
    TD_CLK_NO_PERMISSION, /* NVML_ERROR_NO_PERMISSION: needs root */
    TD_CLK_NOT_SUPPORTED, /* the GPU (or MIG, or vGPU) cannot lock clocks */
    TD_CLK_NO_LIBRARY,    /* no libnvidia-ml.so.1: no driver here */
    TD_CLK_ERROR          /* anything else */
} td_clk_status;

typedef struct td_clock_ops {
    void *ctx;
    /* Starts the library and picks the GPUs the app can use. */
    td_clk_status (*open)(void *ctx, size_t *n_gpus);
    /* Whether someone (nvidia-smi -lgc, another tool) has set the clocks. */
    td_clk_status (*is_locked)(void *ctx, size_t gpu, int *locked);
    td_clk_status (*lock_base)(void *ctx, size_t gpu);
    /* The graphics clock now, MHz. */
    td_clk_status (*clock_mhz)(void *ctx, size_t gpu, unsigned *mhz);
    td_clk_status (*reset)(void *ctx, size_t gpu);
    /* The library's words for the last failure ("Insufficient Permissions"). */
    const char *(*last_error)(void *ctx);
    void (*close)(void *ctx);
} td_clock_ops;

#define TD_CLOCK_MAX_GPUS 64

typedef struct td_clock_lock {
    const td_clock_ops *ops;
    size_t n_gpus;
    unsigned char ours[TD_CLOCK_MAX_GPUS]; /* 1: locked by topdown, to reset */
    size_t n_preset;  /* GPUs found locked by someone else, left as they were */
    unsigned mhz;     /* the first GPU's clock once locked; 0 unknown */
    int open;
    char notice[512]; /* one line for the user ("" none): GPUs left as found */
} td_clock_lock;

/* Locks every GPU of the app to base. A GPU already locked by someone is
 * left alone (and said in notice). On any failure, the GPUs locked so far
 * are reset before it returns -1 with one line naming the fix
 * (run as root, or --clock-control none). */
int td_clocks_lock(td_clock_lock *lk, const td_clock_ops *ops, td_error *err);

/* Resets the GPUs topdown locked, and only those; idempotent (a second
 * call does nothing). -1 with a line naming `nvidia-smi -rgc` when a
 * reset failed: the clocks are then left locked. */
int td_clocks_restore(td_clock_lock *lk, td_error *err);

/* The result's clock_control: "base" (topdown locked them), "preset" (they
 * were locked by someone else: left as found). */
const char *td_clocks_condition(const td_clock_lock *lk);

/* CUDA_VISIBLE_DEVICES as CUDA reads it: the entries up to the first
 * invalid one. Each is an index (>= 0, into *index) or a UUID ("GPU-..."
 * or "MIG-...", copied into uuid). Returns the number of entries written,
 * at most max; -1 when env is NULL (every GPU is visible). */
typedef struct td_visible_gpu {
    long index;     /* -1: by uuid */
    char uuid[96];
} td_visible_gpu;
int td_clocks_visible(const char *env, td_visible_gpu *out, size_t max);

/* The NVML implementation (nvml_clocks.c). */
const td_clock_ops *td_nvml_clock_ops(void);

#endif
