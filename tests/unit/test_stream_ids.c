/* The collector's stream ids by stream handle (topdown/inject/stream_ids.c):
 * CUPTI is asked once per stream, a per-thread default stream every time
 * (each host thread has its own), a destroyed stream's handle anew, a
 * failed answer not kept, and handles sharing a slot each get their own. */
#include <stdint.h>

#include "../check.h"
#include "topdown/inject/stream_ids.h"

static int asked;
static int fail_next;
static uint32_t next_id = 7;

/* A fake CUPTI: a new id at each question, as a new stream would get. */
static int fake_ask(void *ctx, void *stream, int per_thread, uint32_t *id)
{
    (void)ctx;
    (void)stream;
    (void)per_thread;
    asked++;
    if (fail_next) {
        fail_next = 0;
        return 1;
    }
    *id = next_id++;
    return 0;
}

static uint32_t id_of(td_stream_ids *ids, void *stream, int per_thread)
{
    uint32_t id = 0;
    CHECK(td_stream_id(ids, fake_ask, NULL, stream, per_thread, &id) == 0);
    return id;
}

int main(void)
{
    static td_stream_ids ids;
    static char handles[64 * 16 * 2];
    void *a = &handles[16], *b = &handles[16 + TD_STREAM_SLOTS * 16];
    uint32_t first = id_of(&ids, a, 0);
    CHECK(id_of(&ids, a, 0) == first && asked == 1);
    /* the legacy default stream (NULL) is the context's: kept too */
    uint32_t legacy = id_of(&ids, NULL, 0);
    CHECK(id_of(&ids, NULL, 0) == legacy && asked == 2);
    /* per-thread default streams: asked each time */
    id_of(&ids, NULL, 1);
    id_of(&ids, NULL, 1);
    id_of(&ids, (void *)0x2, 0);
    CHECK(asked == 5);
    /* b shares a's slot: each its own id, asked again after the other */
    uint32_t of_b = id_of(&ids, b, 0);
    CHECK(of_b != first && asked == 6);
    CHECK(id_of(&ids, a, 0) != first && asked == 7); /* a's answer is asked anew */
    /* a destroyed stream: its handle asked again */
    uint32_t before = id_of(&ids, a, 0);
    CHECK(asked == 7);
    td_stream_forget(&ids, a);
    CHECK(id_of(&ids, a, 0) != before && asked == 8);
    td_stream_forget(&ids, b); /* not in the slot: nothing happens */
    CHECK(id_of(&ids, a, 0) != 0 && asked == 8);
    /* a failure is not kept */
    td_stream_forget(&ids, a);
    uint32_t id = 12345;
    fail_next = 1;
    CHECK(td_stream_id(&ids, fake_ask, NULL, a, 0, &id) != 0 && id == 12345);
    CHECK(id_of(&ids, a, 0) != 12345 && asked == 10);
    return td_check_summary();
}
