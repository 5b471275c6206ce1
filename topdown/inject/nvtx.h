/* NVTX ranges of the app, from CUPTI's NVTX callback domain: each thread's
 * push/pop stacks (per NVTX domain), the process's open start/end ranges,
 * domain names and registered strings. A launch asks for the region it is
 * made in (its name, topdown/inject/nvtx_filter.h) and whether --nvtx-include /
 * --nvtx-exclude let it be profiled. NVTX reaches CUPTI only when
 * NVTX_INJECTION64_PATH names libcupti (the launcher sets it). */
#ifndef TD_INJECT_NVTX_H
#define TD_INJECT_NVTX_H

#include <cupti.h>

/* The filter of the options' nvtx_include / nvtx_exclude (one spec per
 * line, NULL: none); -1 with msg on a bad spec (the filter is then off). */
int td_nvtx_setup(const char *include, const char *exclude, char *msg, size_t size);

/* Turns the NVTX callbacks of the subscriber on. */
void td_nvtx_enable(CUpti_SubscriberHandle subscriber);

/* One NVTX callback (CUPTI_CB_DOMAIN_NVTX). */
void td_nvtx_callback(CUpti_CallbackId cbid, const CUpti_NvtxData *data);

/* The region the calling thread launches in: a name kept for the life of
 * the process, NULL when no range is open. *allowed: whether the NVTX
 * filter lets the launch be profiled (1 without a filter). */
const char *td_nvtx_launch_region(int *allowed);

/* 1 when a filter was given (a launch outside it is only timed). */
int td_nvtx_filtering(void);

#endif
