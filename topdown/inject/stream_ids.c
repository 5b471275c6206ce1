#include "topdown/inject/stream_ids.h"

#include <stddef.h>

/* cuda.h's CU_STREAM_PER_THREAD, without cuda.h (the tests build without
 * the toolkit's headers). */
#define TD_STREAM_PER_THREAD_HANDLE ((void *)0x2)

static td_stream_slot *slot_of(td_stream_ids *ids, const void *stream)
{
    return &ids->slot[((uintptr_t)stream >> 4) % TD_STREAM_SLOTS];
}

int td_stream_id(td_stream_ids *ids, td_stream_ask ask, void *ctx, void *stream, int per_thread,
                 uint32_t *id)
{
    if (per_thread || stream == TD_STREAM_PER_THREAD_HANDLE)
        return ask(ctx, stream, per_thread, id);
    td_stream_slot *s = slot_of(ids, stream);
    if (s->used && s->stream == stream) {
        *id = s->id;
        return 0;
    }
    int failed = ask(ctx, stream, per_thread, id);
    if (!failed)
        *s = (td_stream_slot){.stream = stream, .id = *id, .used = 1};
    return failed;
}

void td_stream_forget(td_stream_ids *ids, const void *stream)
{
    td_stream_slot *s = slot_of(ids, stream);
    if (s->used && s->stream == stream)
        s->used = 0;
}
