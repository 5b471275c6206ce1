#include "topdown/inject/kernel_times.h"

#include "metrics/intern.h"
#include "metrics/result/result.h" /* td_threads_size_class */

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
    struct td_kclass *classes; /* TD_KTIME_CLASSES; NULL when out of memory */
};

struct td_kclass {
    double ns_sum, thread_sum;
    uint64_t launches;
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
            entries[n_entries] = (struct td_ktime){
                .mangled = copy, .hash = hash,
                .classes = calloc(TD_KTIME_CLASSES, sizeof(struct td_kclass))};
            slot_entry[slot] = (int)(n_entries + 1);
            __atomic_store_n(&n_entries, n_entries + 1, __ATOMIC_RELEASE);
        }
    }
    if (slot_entry[slot]) {
        struct td_ktime *e = &entries[slot_entry[slot] - 1];
        e->ns_sum += (double)duration_ns;
        e->thread_sum += threads;
        if (e->classes) {
            struct td_kclass *c = &e->classes[td_threads_size_class(threads) % TD_KTIME_CLASSES];
            c->ns_sum += (double)duration_ns;
            c->thread_sum += threads;
            c->launches++;
        }
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

size_t td_ktimes_kernels(void)
{
    return __atomic_load_n(&n_entries, __ATOMIC_ACQUIRE);
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

/* The class with records nearest to cls; -1: none. */
static int nearest_recorded(const struct td_kclass *classes, int cls)
{
    for (int d = 1; d < TD_KTIME_CLASSES; d++) {
        if (cls - d >= 0 && classes[cls - d].launches)
            return cls - d;
        if (cls + d < TD_KTIME_CLASSES && classes[cls + d].launches)
            return cls + d;
    }
    return -1;
}

double td_launch_scaled_ns(double ref_ns, double ref_threads, double threads,
                           double full_threads)
{
    if (!(ref_threads > 0) || !(threads > 0))
        return 0;
    double from = ref_threads > full_threads ? ref_threads : full_threads;
    double to = threads > full_threads ? threads : full_threads;
    return ref_ns * to / from;
}

double td_ktimes_queued_ns(const td_ktime *t, const td_kqueued *queued, double full_threads)
{
    if (!t || !queued)
        return 0;
    double ns = 0;
    pthread_mutex_lock(&lock);
    for (int c = 0; t->classes && c < TD_KTIME_CLASSES; c++) {
        if (!queued[c].launches)
            continue;
        const struct td_kclass *own = &t->classes[c];
        if (own->launches) {
            ns += (double)queued[c].launches * own->ns_sum / (double)own->launches;
            continue;
        }
        int near = nearest_recorded(t->classes, c);
        if (near < 0) {
            ns = 0; /* no record of the kernel yet */
            break;
        }
        const struct td_kclass *other = &t->classes[near];
        double each = td_launch_scaled_ns(other->ns_sum / (double)other->launches,
                                          other->thread_sum / (double)other->launches,
                                          queued[c].threads / (double)queued[c].launches,
                                          full_threads);
        ns += (double)queued[c].launches * each;
    }
    pthread_mutex_unlock(&lock);
    return ns;
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
    for (size_t i = 0; i < n_entries; i++) {
        free(entries[i].mangled);
        free(entries[i].classes);
    }
    memset(entries, 0, sizeof entries);
    memset(slot_entry, 0, sizeof slot_entry);
    n_entries = 0;
    n_records = 0;
    pthread_mutex_unlock(&lock);
}
