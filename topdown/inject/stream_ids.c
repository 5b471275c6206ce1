#include "topdown/inject/stream_ids.h"

#include <stdatomic.h>

static _Atomic uint64_t generation = 1;

uint64_t td_stream_generation(void)
{
    return atomic_load_explicit(&generation, memory_order_acquire);
}

void td_stream_destroyed(void)
{
    atomic_fetch_add_explicit(&generation, 1, memory_order_acq_rel);
}

int td_stream_ids_find(const td_stream_ids *ids, const void *stream, uint64_t now, uint32_t *id)
{
    for (unsigned i = 0; i < TD_STREAM_IDS; i++)
        if (ids->generation[i] == now && ids->stream[i] == stream) {
            *id = ids->id[i];
            return 1;
        }
    return 0;
}

void td_stream_ids_keep(td_stream_ids *ids, const void *stream, uint32_t id, uint64_t asked)
{
    unsigned slot = TD_STREAM_IDS;
    for (unsigned i = 0; i < TD_STREAM_IDS && slot == TD_STREAM_IDS; i++)
        if (ids->stream[i] == stream || ids->generation[i] != asked)
            slot = i; /* its old entry, or a stale one */
    if (slot == TD_STREAM_IDS)
        slot = ids->next++ % TD_STREAM_IDS;
    ids->stream[slot] = stream;
    ids->id[slot] = id;
    ids->generation[slot] = asked;
}
