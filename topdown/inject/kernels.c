#define _GNU_SOURCE /* RTLD_NOLOAD */
#include "topdown/inject/kernels.h"

#include "metrics/intern.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- demangling --------------------------------------------------------- */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

#ifdef TD_HAVE_CUFILT
/* The toolkit's own demangler (libcufilt.a) knows CUDA's extensions. */
char *__cu_demangle(const char *id, char *buf, size_t *len, int *status);
#endif

/* libstdc++'s __cxa_demangle, found at run time: the app has usually
 * loaded libstdc++ already, and a C library should not link it. */
static demangle_fn cxa_demangle(void)
{
    static int looked;
    static demangle_fn fn;
    if (looked)
        return fn;
    looked = 1;
    void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib)
        lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (lib)
        *(void **)&fn = dlsym(lib, "__cxa_demangle");
    return fn;
}

char *td_demangle(const char *mangled)
{
    if (!mangled)
        return strdup("?");
    if (strncmp(mangled, "_Z", 2) != 0)
        return strdup(mangled);
    int status = -1;
    char *out = NULL;
#ifdef TD_HAVE_CUFILT
    out = __cu_demangle(mangled, NULL, NULL, &status);
#else
    demangle_fn fn = cxa_demangle();
    if (fn)
        out = fn(mangled, NULL, NULL, &status);
#endif
    if (out && status == 0)
        return out;
    free(out);
    return strdup(mangled);
}

/* ---- the kernel table: open addressing on the mangled name --------------
 * Slots hold pointers: a kernel stays where it is when the table grows, so
 * launches waiting in a batch keep valid pointers to their kernels. */

static td_kernel **table;
static size_t table_cap, table_used;

static td_kernel **slot_for(td_kernel **items, size_t cap, const char *mangled)
{
    size_t i = td_hash_bytes(mangled, strlen(mangled)) & (cap - 1);
    while (items[i] && strcmp(items[i]->mangled, mangled) != 0)
        i = (i + 1) & (cap - 1);
    return &items[i];
}

static int grow_table(void)
{
    size_t cap = table_cap ? table_cap * 2 : 256;
    td_kernel **bigger = calloc(cap, sizeof *bigger);
    if (!bigger)
        return -1;
    for (size_t i = 0; i < table_cap; i++)
        if (table[i])
            *slot_for(bigger, cap, table[i]->mangled) = table[i];
    free(table);
    table = bigger;
    table_cap = cap;
    return 0;
}

td_kernel *td_kernel_get(const char *mangled, const td_filter *f)
{
    if (!mangled)
        mangled = "?";
    if ((table_used + 1) * 2 > table_cap && grow_table())
        return NULL;
    td_kernel **slot = slot_for(table, table_cap, mangled);
    if (*slot)
        return *slot;
    td_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->mangled = strdup(mangled);
    k->name = td_demangle(mangled);
    if (!k->mangled || !k->name) {
        free(k->mangled);
        free(k->name);
        free(k);
        return NULL;
    }
    k->matches = !f->name_match || td_kmatch_test(f->name_match, k->name, k->mangled);
    k->ordinal = table_used++;
    *slot = k;
    return k;
}

/* The kernel of each recent launch's function handle: open addressing
 * over a few slots from a multiplicative hash (direct-mapped by the
 * handle's low bits, handles allocated at a stride of the table's span
 * would share one slot, and each miss hashes the whole mangled name). A
 * handle can come back for another function once its module is unloaded:
 * the name is compared, which costs a fraction of its hash. */
#define TD_HANDLE_BITS 10
#define TD_HANDLE_SLOTS (1u << TD_HANDLE_BITS)
#define TD_HANDLE_PROBES 8
static struct {
    const void *handle;
    td_kernel *kernel;
} by_handle[TD_HANDLE_SLOTS];

static size_t handle_home(const void *handle)
{
    uint64_t h = (uint64_t)(uintptr_t)handle * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> (64 - TD_HANDLE_BITS));
}

td_kernel *td_kernel_of_launch(const void *handle, const char *mangled, const td_filter *f)
{
    if (!handle || !mangled)
        return td_kernel_get(mangled, f);
    size_t home = handle_home(handle), free_slot = home;
    for (size_t p = 0; p < TD_HANDLE_PROBES; p++) {
        size_t i = (home + p) & (TD_HANDLE_SLOTS - 1);
        if (by_handle[i].handle == handle) {
            if (strcmp(by_handle[i].kernel->mangled, mangled) == 0)
                return by_handle[i].kernel;
            free_slot = i; /* the handle now names another function */
            break;
        }
        if (!by_handle[i].handle) { /* slots are only emptied all at once */
            free_slot = i;
            break;
        }
    }
    td_kernel *k = td_kernel_get(mangled, f);
    if (k) { /* all probes taken: the home slot is replaced */
        by_handle[free_slot].handle = handle;
        by_handle[free_slot].kernel = k;
    }
    return k;
}

void td_kernels_reset(void)
{
    memset(by_handle, 0, sizeof by_handle);
    for (size_t i = 0; i < table_cap; i++) {
        if (!table[i])
            continue;
        free(table[i]->mangled);
        free(table[i]->name);
        free(table[i]->queued);
        free(table[i]);
    }
    free(table);
    table = NULL;
    table_cap = table_used = 0;
}

size_t td_kernel_count(void)
{
    return table_used;
}

/* ---- the filter --------------------------------------------------------- */

int td_filter_from_opts(td_filter *f, const td_collect_opts *o, char *msg, size_t size)
{
    memset(f, 0, sizeof *f);
    f->launch_skip = o->launch_skip;
    f->launch_count = o->launch_count;
    f->per_kernel = o->per_kernel;
    td_error err;
    if (o->kernel_regex && td_kmatch_compile(o->kernel_regex, o->name_base, &f->name_match, &err)) {
        snprintf(msg, size, TD_COLLECT_VAR ", kernel_regex: %s", err.msg);
        return -1;
    }
    return 0;
}

void td_filter_release(td_filter *f)
{
    td_kmatch_free(f->name_match);
    f->name_match = NULL;
}

int td_filter_allows(td_filter *f, td_kernel *k, long profiled_here)
{
    k->launches++;
    if (!k->matches)
        return 0;
    long index = f->matched++;
    if (index < f->launch_skip)
        return 0;
    if (f->launch_count >= 0 && f->profiled >= f->launch_count)
        return 0;
    if (f->per_kernel >= 0 && profiled_here >= f->per_kernel)
        return 0;
    return 1;
}

void td_filter_count_profiled(td_filter *f)
{
    f->profiled++;
}
