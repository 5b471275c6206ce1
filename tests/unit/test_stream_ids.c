/* The stream-id cache (topdown/inject/stream_ids.c): an id is found only
 * in the generation it was asked in; a destroyed stream (any) makes every
 * entry stale, so a handle that comes back for another stream is asked
 * again; an id asked across a destruction is never found; eight streams
 * are kept, the ninth takes the oldest entry; and the generation counts
 * every destruction of several threads at once. */
#include <pthread.h>
#include <stdint.h>

#include "../check.h"
#include "topdown/inject/stream_ids.h"

static const void *handle(uintptr_t n)
{
    return (const void *)(n * 64);
}

static void test_find_and_stale(void)
{
    td_stream_ids ids = {0};
    uint32_t id = 0;
    uint64_t g = td_stream_generation();
    CHECK(g >= 1);
    CHECK(!td_stream_ids_find(&ids, handle(1), g, &id)); /* empty */
    CHECK(!td_stream_ids_find(&ids, NULL, g, &id));      /* NULL is a handle too */
    td_stream_ids_keep(&ids, handle(1), 7, g);
    CHECK(td_stream_ids_find(&ids, handle(1), g, &id) && id == 7);
    CHECK(!td_stream_ids_find(&ids, handle(2), g, &id));
    td_stream_ids_keep(&ids, NULL, 3, g); /* the legacy default stream */
    CHECK(td_stream_ids_find(&ids, NULL, g, &id) && id == 3);
    td_stream_destroyed();
    uint64_t after = td_stream_generation();
    CHECK(after == g + 1);
    CHECK(!td_stream_ids_find(&ids, handle(1), after, &id)); /* stale: asked again */
    td_stream_ids_keep(&ids, handle(1), 9, after); /* the handle came back: another stream */
    CHECK(td_stream_ids_find(&ids, handle(1), after, &id) && id == 9);
    /* asked before a destruction, kept after it: stamped with the old one */
    uint64_t asked = td_stream_generation();
    td_stream_destroyed();
    td_stream_ids_keep(&ids, handle(4), 11, asked);
    CHECK(!td_stream_ids_find(&ids, handle(4), td_stream_generation(), &id));
}

static void test_eight_kept(void)
{
    td_stream_ids ids = {0};
    uint64_t g = td_stream_generation();
    uint32_t id = 0;
    for (uintptr_t s = 1; s <= TD_STREAM_IDS; s++)
        td_stream_ids_keep(&ids, handle(s), (uint32_t)(100 + s), g);
    for (uintptr_t s = 1; s <= TD_STREAM_IDS; s++)
        CHECK(td_stream_ids_find(&ids, handle(s), g, &id) && id == 100 + s);
    td_stream_ids_keep(&ids, handle(1), 200, g); /* asked again: its own entry */
    for (uintptr_t s = 2; s <= TD_STREAM_IDS; s++)
        CHECK(td_stream_ids_find(&ids, handle(s), g, &id) && id == 100 + s);
    CHECK(td_stream_ids_find(&ids, handle(1), g, &id) && id == 200);
    td_stream_ids_keep(&ids, handle(99), 999, g); /* a ninth takes one entry */
    CHECK(td_stream_ids_find(&ids, handle(99), g, &id) && id == 999);
    unsigned kept = 0;
    for (uintptr_t s = 1; s <= TD_STREAM_IDS; s++)
        kept += (unsigned)td_stream_ids_find(&ids, handle(s), g, &id);
    CHECK(kept == TD_STREAM_IDS - 1);
    /* after a destruction a new stream takes a stale entry, not a live one */
    td_stream_destroyed();
    uint64_t now = td_stream_generation();
    td_stream_ids_keep(&ids, handle(50), 50, now);
    td_stream_ids_keep(&ids, handle(51), 51, now);
    CHECK(td_stream_ids_find(&ids, handle(50), now, &id) && id == 50);
    CHECK(td_stream_ids_find(&ids, handle(51), now, &id) && id == 51);
}

enum { THREADS = 4, EACH = 10000 };

static void *destroy_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < EACH; i++)
        td_stream_destroyed();
    return NULL;
}

static void test_threads_count(void)
{
    uint64_t before = td_stream_generation();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, destroy_many, NULL) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(td_stream_generation() == before + (uint64_t)THREADS * EACH);
}

int main(void)
{
    test_find_and_stale();
    test_eight_kept();
    test_threads_count();
    return td_check_summary();
}
