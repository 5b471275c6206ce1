/* The driver calls whose callbacks the collector takes: kernel launches
 * (plain, Ex and cooperative, each with its per-thread default stream
 * variant) and CUDA graph launches. benchmarks/cupti_floor.c subscribes
 * to the same list, so that CUPTI's own floor is measured on the
 * callbacks topdown takes. */
#ifndef TD_LAUNCH_CALLBACKS_H
#define TD_LAUNCH_CALLBACKS_H

#include <cupti.h>

static const CUpti_CallbackId td_launch_callbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

#define TD_N_LAUNCH_CALLBACKS (sizeof td_launch_callbacks / sizeof *td_launch_callbacks)

#endif
