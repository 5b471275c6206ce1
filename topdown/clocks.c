/* The clock-locking policy of --clock-control base (clocks.h). */
#include "topdown/clocks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *why(const td_clock_lock *lk)
{
    const char *text = lk->ops->last_error ? lk->ops->last_error(lk->ops->ctx) : NULL;
    return text && *text ? text : "unknown error";
}

/* The one line for a refusal: what failed, and the fix. */
static int refused(const td_clock_lock *lk, td_clk_status st, const char *what, size_t gpu,
                   td_error *err)
{
    switch (st) {
    case TD_CLK_NO_PERMISSION:
        return td_fail(err, "--clock-control base: %s GPU %zu needs administrator rights "
                       "(NVML: %s): run topdown as root, or use --clock-control none", what,
                       gpu, why(lk));
    case TD_CLK_NOT_SUPPORTED:
        return td_fail(err, "--clock-control base: GPU %zu cannot lock its clocks (NVML: %s; "
                       "MIG instances and some vGPUs cannot): use --clock-control none", gpu,
                       why(lk));
    case TD_CLK_NO_LIBRARY:
        return td_fail(err, "--clock-control base: the NVIDIA management library "
                       "(libnvidia-ml.so.1) cannot be loaded: install the NVIDIA driver, or "
                       "use --clock-control none");
    default:
        return td_fail(err, "--clock-control base: %s GPU %zu failed (NVML: %s): use "
                       "--clock-control none", what, gpu, why(lk));
    }
}

/* Gives back what was locked so far and closes the library; keeps the
 * first message (the reason the lock failed). */
static void undo(td_clock_lock *lk)
{
    td_error ignored;
    td_clocks_restore(lk, &ignored);
}

static void say_preset(td_clock_lock *lk, size_t gpu)
{
    size_t len = strlen(lk->notice);
    if (lk->n_preset == 1)
        snprintf(lk->notice, sizeof lk->notice, "--clock-control base: the clocks of GPU %zu "
                 "were already locked by someone else (nvidia-smi -lgc?): left as they are, "
                 "and not reset after the run", gpu);
    else if (len + 16 < sizeof lk->notice)
        snprintf(lk->notice, sizeof lk->notice, "--clock-control base: the clocks of %zu "
                 "GPUs were already locked by someone else (nvidia-smi -lgc?): left as "
                 "they are, and not reset after the run", lk->n_preset);
}

/* One GPU: left alone when someone locked it, else locked to base. */
static int lock_one(td_clock_lock *lk, size_t gpu, td_error *err)
{
    const td_clock_ops *ops = lk->ops;
    int locked = 0;
    td_clk_status st = ops->is_locked(ops->ctx, gpu, &locked);
    if (st != TD_CLK_OK)
        return refused(lk, st, "reading the clock state of", gpu, err);
    if (locked) {
        lk->n_preset++;
        say_preset(lk, gpu);
        return 0;
    }
    st = ops->lock_base(ops->ctx, gpu);
    if (st != TD_CLK_OK)
        return refused(lk, st, "locking the clocks of", gpu, err);
    lk->ours[gpu] = 1;
    return 0;
}

int td_clocks_lock(td_clock_lock *lk, const td_clock_ops *ops, td_error *err)
{
    memset(lk, 0, sizeof *lk);
    lk->ops = ops;
    size_t n = 0;
    td_clk_status st = ops->open(ops->ctx, &n);
    if (st != TD_CLK_OK) {
        refused(lk, st, "starting NVML for", 0, err);
        ops->close(ops->ctx); /* what open started, it closes */
        return -1;
    }
    lk->open = 1;
    if (n == 0 || n > TD_CLOCK_MAX_GPUS) {
        undo(lk);
        return td_fail(err, "--clock-control base: %zu GPUs visible to NVML (1 to %d "
                       "handled): check CUDA_VISIBLE_DEVICES, or use --clock-control none",
                       n, TD_CLOCK_MAX_GPUS);
    }
    lk->n_gpus = n;
    for (size_t gpu = 0; gpu < n; gpu++)
        if (lock_one(lk, gpu, err)) {
            undo(lk);
            return -1;
        }
    unsigned mhz = 0;
    if (ops->clock_mhz(ops->ctx, 0, &mhz) == TD_CLK_OK)
        lk->mhz = mhz;
    return 0;
}

int td_clocks_restore(td_clock_lock *lk, td_error *err)
{
    if (!lk->open)
        return 0;
    const td_clock_ops *ops = lk->ops;
    int rc = 0;
    for (size_t gpu = 0; gpu < lk->n_gpus; gpu++) {
        if (!lk->ours[gpu])
            continue;
        td_clk_status st = ops->reset(ops->ctx, gpu);
        if (st != TD_CLK_OK && rc == 0)
            rc = td_fail(err, "could not unlock the clocks of GPU %zu after the run (NVML: "
                         "%s): `sudo nvidia-smi -rgc` resets them", gpu, why(lk));
        lk->ours[gpu] = 0;
    }
    ops->close(ops->ctx);
    lk->open = 0;
    return rc;
}

const char *td_clocks_condition(const td_clock_lock *lk)
{
    return lk->n_preset ? "preset" : "base";
}

/* ---- CUDA_VISIBLE_DEVICES ---------------------------------------------- */

static int parse_entry(const char *text, size_t len, td_visible_gpu *out)
{
    while (len && isspace((unsigned char)*text))
        text++, len--;
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    if (len == 0)
        return -1;
    if ((len > 4 && (strncmp(text, "GPU-", 4) == 0 || strncmp(text, "MIG-", 4) == 0))) {
        if (len >= sizeof out->uuid)
            return -1;
        out->index = -1;
        memcpy(out->uuid, text, len);
        out->uuid[len] = '\0';
        return 0;
    }
    long value = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)text[i]) || value > 1000000)
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    out->index = value;
    out->uuid[0] = '\0';
    return 0;
}

int td_clocks_visible(const char *env, td_visible_gpu *out, size_t max)
{
    if (!env)
        return -1;
    size_t n = 0;
    const char *p = env;
    while (*p && n < max) {
        size_t len = strcspn(p, ",");
        if (parse_entry(p, len, &out[n]))
            break; /* CUDA stops at the first invalid entry */
        n++;
        p += len + (p[len] == ',');
    }
    return (int)n;
}
