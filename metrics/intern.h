/* Interning: each distinct string (kernel names) or fixed-size record
 * (launch configurations, spool kernel ids) stored once, found by hash.
 * A million launches of fifty kernels hold fifty names. */
#ifndef TD_INTERN_H
#define TD_INTERN_H

#include <stddef.h>
#include <stdint.h>

/* Distinct strings; the pointers returned stay valid until td_names_free. */
typedef struct td_names {
    char **slots;  /* open addressing, NULL = empty */
    size_t cap;    /* power of two, or 0 */
    size_t count;
} td_names;

/* The table's copy of s (added on first sight); NULL when out of memory. */
const char *td_names_intern(td_names *t, const char *s);
void td_names_free(td_names *t);

/* Distinct records of key_size bytes, numbered 0, 1, ... in order of first
 * sight. Keys are compared byte for byte: zero their padding. */
typedef struct td_keyset {
    size_t key_size;
    unsigned char *keys; /* count * key_size */
    size_t count;
    size_t *slots;       /* index + 1, 0 = empty */
    size_t cap;          /* power of two, or 0 */
} td_keyset;

void td_keyset_init(td_keyset *s, size_t key_size);
/* Index of key, added when new (*added = 1); -1 when out of memory. */
long td_keyset_add(td_keyset *s, const void *key, int *added);
/* Index of key, or -1. */
long td_keyset_find(const td_keyset *s, const void *key);
const void *td_keyset_key(const td_keyset *s, size_t index);
void td_keyset_free(td_keyset *s);

uint64_t td_hash_bytes(const void *data, size_t len);

#endif
