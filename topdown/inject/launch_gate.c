#define _GNU_SOURCE /* PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP */
#include "topdown/inject/launch_gate.h"

#include <pthread.h>

#include "topdown/inject/state.h"

static pthread_rwlock_t gate = PTHREAD_RWLOCK_INITIALIZER;
static _Thread_local int depth, exclusive;

void td_gate_init(void)
{
    /* A measured launch waits for the traced ones in the driver, not for
     * the ones still to come. */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&gate, &attr);
    pthread_rwlockattr_destroy(&attr);
}

void td_gate_enter_shared(void)
{
    if (depth++ == 0) {
        pthread_rwlock_rdlock(&gate);
        exclusive = 0;
    }
}

void td_gate_enter_exclusive(void)
{
    if (depth++ == 0) {
        pthread_rwlock_wrlock(&gate);
        exclusive = 1;
    }
}

int td_gate_upgrade(void)
{
    if (exclusive)
        return 0;
    if (depth != 1)
        return -1;
    pthread_rwlock_unlock(&gate);
    pthread_rwlock_wrlock(&gate);
    exclusive = 1;
    return 0;
}

void td_gate_leave(void)
{
    if (depth > 0 && --depth == 0) {
        exclusive = 0;
        pthread_rwlock_unlock(&gate);
    }
}

/* A launch to be measured needs the gate to itself: td_g.lock is let go
 * while the traced launches in the driver finish (their enter callbacks
 * reset what this launch's choice set: kept aside). 0: it cannot (this
 * thread is inside a launch already); it is then only traced. */
int td_gate_measure_alone(void)
{
    double waited = td_g.waited_s, excluded = td_g.excluded_in_launch_s;
    int covers = td_g.launch_covers;
    pthread_mutex_unlock(&td_g.lock);
    int alone = td_gate_upgrade() == 0;
    pthread_mutex_lock(&td_g.lock);
    td_g.waited_s = waited;
    td_g.excluded_in_launch_s = excluded;
    td_g.launch_covers = covers;
    return alone;
}

void td_gate_leave_launch(void)
{
    td_current_ctx = NULL;
    in_our_code = 0;
    holding_launch = 0;
    pthread_mutex_unlock(&td_g.lock);
    td_gate_leave();
}
