/* CUPTI's ids of a context's recent streams, kept so that a traced launch
 * need not ask CUPTI (cuptiGetStreamIdEx, 0.1-0.3 us a launch on an H200).
 * A handle may come back for another stream once its stream is destroyed,
 * so every entry is stamped with the generation it was asked in, and the
 * stream-destroy callback bumps the generation: atomically, without
 * topdown's lock. Taking that lock there, inside the driver's
 * cuStreamDestroy, risked a deadlock with a measured launch holding it
 * inside the driver (the caches withdrawn by 4a042af and 4260c28). Pure:
 * tests/unit/test_stream_ids.c. */
#ifndef TD_STREAM_IDS_H
#define TD_STREAM_IDS_H

#include <stdint.h>

#define TD_STREAM_IDS 8

typedef struct td_stream_ids {
    const void *stream[TD_STREAM_IDS]; /* the CUstream handle */
    uint32_t id[TD_STREAM_IDS];
    uint64_t generation[TD_STREAM_IDS]; /* 0: empty (generations start at 1) */
    unsigned next;                      /* the entry a new stream takes */
} td_stream_ids;

/* The generation now: 1 at start, one more for each stream destroyed in
 * the process since. */
uint64_t td_stream_generation(void);
/* A stream is being destroyed (any context, any thread): every entry
 * asked before now is stale. Lock-free. */
void td_stream_destroyed(void);
/* 1 and *id when stream's entry was asked in generation `now`. */
int td_stream_ids_find(const td_stream_ids *ids, const void *stream, uint64_t now, uint32_t *id);
/* Keeps stream's id as asked in generation `asked` (read before asking). */
void td_stream_ids_keep(td_stream_ids *ids, const void *stream, uint32_t id, uint64_t asked);

#endif
