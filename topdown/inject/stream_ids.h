/* Each context's CUPTI stream ids by stream handle, for the launch records
 * (pure: the id comes from a function given, tests/unit/test_stream_ids.c).
 * cuptiGetStreamIdEx costs a traced launch 0.3-0.6 us (H200: td_tiny and
 * PyTorch), asked at every launch; a stream's id does not change while it
 * lives. */
#ifndef TD_STREAM_IDS_H
#define TD_STREAM_IDS_H

#include <stdint.h>

#define TD_STREAM_SLOTS 64

/* The id of a stream of a context (cuptiGetStreamIdEx's arguments); 0: *id set. */
typedef int (*td_stream_ask)(void *ctx, void *stream, int per_thread, uint32_t *id);

typedef struct td_stream_slot {
    void *stream;
    uint32_t id;
    unsigned char used;
} td_stream_slot;

typedef struct td_stream_ids {
    td_stream_slot slot[TD_STREAM_SLOTS];
} td_stream_ids;

/* The id of the context's stream: the one cached for its handle, else
 * ask's, then cached. A per-thread default stream (per_thread, or the
 * handle CU_STREAM_PER_THREAD) is each host thread's own: asked every
 * time. 0: *id set; else ask's failure, nothing cached. */
int td_stream_id(td_stream_ids *ids, td_stream_ask ask, void *ctx, void *stream, int per_thread,
                 uint32_t *id);
/* The stream is being destroyed: its handle may come back for another. */
void td_stream_forget(td_stream_ids *ids, const void *stream);

#endif
