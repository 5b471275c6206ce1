#include "metrics/intern.h"

#include <stdlib.h>
#include <string.h>

uint64_t td_hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

/* ---- strings ------------------------------------------------------------ */

static size_t name_slot(char *const *slots, size_t cap, const char *s)
{
    size_t h = td_hash_bytes(s, strlen(s)) & (cap - 1);
    while (slots[h] && strcmp(slots[h], s) != 0)
        h = (h + 1) & (cap - 1);
    return h;
}

static int names_grow(td_names *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    char **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i])
            slots[name_slot(slots, cap, t->slots[i])] = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

const char *td_names_intern(td_names *t, const char *s)
{
    if ((t->count + 1) * 2 > t->cap && names_grow(t))
        return NULL;
    size_t h = name_slot(t->slots, t->cap, s);
    if (t->slots[h])
        return t->slots[h];
    size_t len = strlen(s) + 1;
    char *copy = malloc(len);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    t->slots[h] = copy;
    t->count++;
    return copy;
}

void td_names_free(td_names *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i]);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* ---- records ------------------------------------------------------------ */

void td_keyset_init(td_keyset *s, size_t key_size)
{
    memset(s, 0, sizeof *s);
    s->key_size = key_size;
}

const void *td_keyset_key(const td_keyset *s, size_t index)
{
    return s->keys + index * s->key_size;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t key_slot(const td_keyset *s, const size_t *slots, size_t cap, const void *key)
{
    size_t h = td_hash_bytes(key, s->key_size) & (cap - 1);
    while (slots[h] && memcmp(td_keyset_key(s, slots[h] - 1), key, s->key_size) != 0)
        h = (h + 1) & (cap - 1);
    return h;
}

static int keyset_grow(td_keyset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    size_t *slots = calloc(cap, sizeof *slots);
    unsigned char *keys = realloc(s->keys, cap / 2 * s->key_size);
    if (!slots || !keys) {
        free(slots);
        if (keys)
            s->keys = keys;
        return -1;
    }
    s->keys = keys;
    for (size_t i = 0; i < s->count; i++)
        slots[key_slot(s, slots, cap, td_keyset_key(s, i))] = i + 1;
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

long td_keyset_add(td_keyset *s, const void *key, int *added)
{
    *added = 0;
    if ((s->count + 1) * 2 > s->cap && keyset_grow(s))
        return -1;
    size_t h = key_slot(s, s->slots, s->cap, key);
    if (s->slots[h])
        return (long)(s->slots[h] - 1);
    memcpy(s->keys + s->count * s->key_size, key, s->key_size);
    s->slots[h] = ++s->count;
    *added = 1;
    return (long)(s->count - 1);
}

long td_keyset_find(const td_keyset *s, const void *key)
{
    if (!s->cap)
        return -1;
    size_t h = key_slot(s, s->slots, s->cap, key);
    return s->slots[h] ? (long)(s->slots[h] - 1) : -1;
}

void td_keyset_free(td_keyset *s)
{
    free(s->keys);
    free(s->slots);
    s->keys = NULL;
    s->slots = NULL;
    s->count = s->cap = 0;
}
