/* --source: CUPTI's PC sampling API in continuous mode (no replay, no
 * serialisation) on every context, its records for the kernels the
 * kernel-name filter selects written to the spool ("pcsamp_config",
 * "pcsamp"), and every loaded module's cubin saved for the offline
 * source correlation of `topdown source` (docs/SOURCE.md). Callers hold
 * the injection's lock. Nothing here may make the app fail: a CUPTI
 * refusal becomes one warning record and sampling stays off. */
#ifndef TD_PCSAMPLING_H
#define TD_PCSAMPLING_H

#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

#include "topdown/inject/collect_opts.h"

/* Whether the kernel of this (mangled) function name is selected. */
typedef int (*td_pcs_selected_fn)(const char *function);

/* From the options' source, source_only, pc_period and the cubin folder
 * (cubin_dir, else next to the result: the spool without ".XXXXXX.spool",
 * plus ".cubins"). */
void td_pcs_init(td_pcs_selected_fn selected, const td_collect_opts *o);
int td_pcs_enabled(void);
/* --source-only (the options' source_only): no Range Profiler, PC samples only. */
int td_pcs_only(void);

/* A context's first launch: enable and configure sampling on it. */
void td_pcs_context_start(CUcontext ctx, uint32_t uid);
/* Collect what CUPTI has decoded (every so many launches: no sync). */
void td_pcs_tick(CUcontext ctx, uint32_t uid);
/* Before a module is unloaded or the context destroyed: collect all. */
void td_pcs_collect(CUcontext ctx, uint32_t uid);
/* The context goes away (or the process ends): collect, disable. */
void td_pcs_context_end(CUcontext ctx, uint32_t uid);
void td_pcs_end_all(void);

/* CUPTI_CBID_RESOURCE_MODULE_LOADED: save the cubin as <crc>.cubin. */
void td_pcs_module_loaded(uint32_t uid, const void *cubin, size_t size);

#endif
