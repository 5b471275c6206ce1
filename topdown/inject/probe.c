#include "topdown/inject/probe.h"
#include "topdown/inject/clock.h"

#include <stdint.h>

#include "topdown/inject/debug.h"

static const char *const step_names[TD_PROBE_STEPS] = {
    "lock",   "shape",      "context",       "stream id",     "name", "kernel", "module load",
    "choice", "budget",     "not measured",  "in the driver", "emit", "tail"};

static const char *const span_names[TD_SPANS] = {
    "GPU waits", "configurations selected", "Start", "PushRange", "PopRange", "Stop",
    "decodes", "ranges evaluated", "replayed launches", "launches in counter groups"};

static _Thread_local uint64_t last_ns, pending[TD_PROBE_STEPS];
static uint64_t total_ns[TD_PROBE_STEPS], launches;
static uint64_t span_ns[TD_SPANS], span_calls[TD_SPANS];

unsigned long long td_probe_now(void)
{
    return td_debug_on() ? now_ns() : 0;
}

void td_probe_count(td_probe_span span, unsigned long long since)
{
    if (!td_debug_on() || !since)
        return;
    __atomic_fetch_add(&span_ns[span], now_ns() - since, __ATOMIC_RELAXED);
    __atomic_fetch_add(&span_calls[span], 1, __ATOMIC_RELAXED);
}

void td_probe_start(void)
{
    if (!td_debug_on())
        return;
    for (int s = 0; s < TD_PROBE_STEPS; s++)
        pending[s] = 0;
    last_ns = now_ns();
}

void td_probe_mark(td_probe_step step)
{
    if (!td_debug_on())
        return;
    uint64_t now = now_ns();
    pending[step] += now - last_ns;
    last_ns = now;
}

void td_probe_commit(void)
{
    if (!td_debug_on())
        return;
    for (int s = 0; s < TD_PROBE_STEPS; s++)
        __atomic_fetch_add(&total_ns[s], pending[s], __ATOMIC_RELAXED);
    __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED);
}

void td_probe_report(void)
{
    if (!td_debug_on())
        return;
    for (int s = 0; s < TD_SPANS; s++)
        if (span_calls[s])
            td_debug("probe", "%s: %llu, %.1f ms in all, %.3f ms each", span_names[s],
                     (unsigned long long)span_calls[s], 1e-6 * (double)span_ns[s],
                     1e-6 * (double)span_ns[s] / (double)span_calls[s]);
    if (!launches)
        return;
    for (int s = 0; s < TD_PROBE_STEPS; s++)
        td_debug("probe", "traced launches: %s %.0f ns a launch (%llu launches)", step_names[s],
                 (double)total_ns[s] / (double)launches, (unsigned long long)launches);
}
