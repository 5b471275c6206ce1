/* The collector's state (state.h): defined here, below every file that
 * reads or changes it, so that none of them has to call back up into the
 * callbacks (inject.c) for it. */
#include <stdatomic.h>
#include <string.h>

#include "topdown/inject/state.h"

td_inject_state td_g;

_Thread_local int in_our_code;
_Thread_local int holding_launch;
_Thread_local launch_rec td_current;
_Thread_local ctx_state *td_current_ctx;
_Thread_local int td_current_profiled;

uint64_t next_launch_id(void)
{
    return atomic_fetch_add(&td_g.next_id, 1);
}

/* A kernel's measurements on this context (each device rotates and covers
 * its kernels on its own); a blank entry when out of memory. */
td_kernel_progress *progress_of(ctx_state *c, const td_kernel *k)
{
    static td_kernel_progress blank;
    td_kernel_progress *p = td_progress_of(&c->progress, k->ordinal, k->matches);
    if (p)
        return p;
    memset(&blank, 0, sizeof blank);
    return &blank;
}

int rotating(const ctx_state *c)
{
    return c->has_rotation && c->rp.active == &c->rotation;
}
