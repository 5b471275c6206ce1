#include "topdown/inject/kernel_times.h"

#include "metrics/intern.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Entries never move (the launching threads keep pointers to them); the
 * table is open addressing over them, by the mangled name's hash. */
enum { CAPACITY = 8192, SLOTS = 2 * CAPACITY };

struct td_ktime {
    char *mangled;
    uint64_t hash;
    double ns_sum, thread_sum;
};

static struct td_ktime entries[CAPACITY];
static int slot_entry[SLOTS]; /* entry index + 1; 0: empty */
static size_t n_entries;
static uint64_t n_records;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot of this name: its entry's, or the empty one it would take. */
static size_t slot_of(const char *mangled, uint64_t hash)
{
    size_t i = hash & (SLOTS - 1);
    while (slot_entry[i]) {
        const struct td_ktime *e = &entries[slot_entry[i] - 1];
        if (e->hash == hash && strcmp(e->mangled, mangled) == 0)
            break;
        i = (i + 1) & (SLOTS - 1);
    }
    return i;
}

void td_ktimes_add(const char *mangled, double threads, uint64_t duration_ns)
{
    if (!mangled || !(threads > 0))
        return;
    uint64_t hash = td_hash_bytes(mangled, strlen(mangled));
    pthread_mutex_lock(&lock);
    size_t slot = slot_of(mangled, hash);
    if (!slot_entry[slot] && n_entries < CAPACITY) {
        char *copy = strdup(mangled);
        if (copy) {
            entries[n_entries] = (struct td_ktime){.mangled = copy, .hash = hash};
            slot_entry[slot] = (int)++n_entries;
        }
    }
    if (slot_entry[slot]) {
        struct td_ktime *e = &entries[slot_entry[slot] - 1];
        e->ns_sum += (double)duration_ns;
        e->thread_sum += threads;
        n_records++;
    }
    pthread_mutex_unlock(&lock);
}

const td_ktime *td_ktimes_find(const char *mangled)
{
    if (!mangled)
        return NULL;
    uint64_t hash = td_hash_bytes(mangled, strlen(mangled));
    pthread_mutex_lock(&lock);
    size_t slot = slot_of(mangled, hash);
    const td_ktime *found = slot_entry[slot] ? &entries[slot_entry[slot] - 1] : NULL;
    pthread_mutex_unlock(&lock);
    return found;
}

double td_ktimes_ns_per_thread(const td_ktime *t)
{
    if (!t)
        return 0;
    pthread_mutex_lock(&lock);
    double v = t->thread_sum > 0 ? t->ns_sum / t->thread_sum : 0;
    pthread_mutex_unlock(&lock);
    return v;
}

uint64_t td_ktimes_records(void)
{
    pthread_mutex_lock(&lock);
    uint64_t n = n_records;
    pthread_mutex_unlock(&lock);
    return n;
}

void td_ktimes_reset(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_entries; i++)
        free(entries[i].mangled);
    memset(entries, 0, sizeof entries);
    memset(slot_entry, 0, sizeof slot_entry);
    n_entries = 0;
    n_records = 0;
    pthread_mutex_unlock(&lock);
}
