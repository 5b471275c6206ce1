/* NVTX ranges seen through CUPTI (nvtx.h). The callbacks run on the app's
 * threads: push/pop stacks are thread-local (NVTX nests them per thread
 * and domain); domains, registered strings, start/end ranges and the
 * names are shared, under one mutex. Every name is interned for the life
 * of the process, so stacks and launch records hold plain pointers. */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include "topdown/inject/nvtx.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <generated_nvtx_meta.h>

#include "metrics/intern.h"
#include "topdown/inject/nvtx_filter.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/spool_writer.h"

enum {
    MAX_DOMAINS = 32,    /* NVTX domains told apart; later ones share the last */
    MAX_DEPTH = 64,      /* push/pop depth kept per thread and domain */
    MAX_STRINGS = 4096,  /* registered strings remembered */
    MAX_STARTED = 256,   /* open start/end ranges; past it the oldest is
                            dropped (an app that never ends its ranges) */
    REGION_SIZE = 1024,
};

typedef struct started_range {
    uint64_t id;
    int domain;
    const char *name;
} started_range;

static struct {
    pthread_mutex_t lock;
    td_names names;                     /* every range and domain name */
    const void *domain_handle[MAX_DOMAINS]; /* [0]: the default domain (NULL) */
    const char *domain_name[MAX_DOMAINS];
    int n_domains;
    const void *string_handle[MAX_STRINGS];
    const char *string_value[MAX_STRINGS];
    int n_strings;
    started_range *started;
    size_t n_started, cap_started;
    int seen;                            /* some range was opened */
    td_nvtx_filter filter;
} nv = {.lock = PTHREAD_MUTEX_INITIALIZER, .n_domains = 1};

typedef struct thread_stacks {
    const char *name[MAX_DOMAINS][MAX_DEPTH];
    int depth[MAX_DOMAINS];              /* may exceed MAX_DEPTH: not stored */
} thread_stacks;

static _Thread_local thread_stacks *stacks;
static pthread_key_t stacks_key; /* frees a thread's stacks when it exits */
static pthread_once_t stacks_key_once = PTHREAD_ONCE_INIT;

static void make_stacks_key(void)
{
    pthread_key_create(&stacks_key, free);
}


int td_nvtx_setup(const char *include, const char *exclude, char *msg, size_t size)
{
    td_error err = {{0}};
    if (td_nvtx_filter_add_list(&nv.filter, include, 0, &err) == 0 &&
        td_nvtx_filter_add_list(&nv.filter, exclude, 1, &err) == 0)
        return 0;
    td_nvtx_filter_free(&nv.filter);
    snprintf(msg, size, "%s", err.msg);
    return -1;
}

static const char *lib_of(const void *address)
{
    Dl_info info;
    return address && dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?";
}

/* The libraries of the process that hold CUPTI or NVTX, and which
 * libcupti topdown's calls reach. */
static void debug_libraries(CUptiResult rc)
{
    const char *env = getenv("NVTX_INJECTION64_PATH");
    fprintf(stderr, "topdown-debug nvtx: enable domain rc %d; NVTX_INJECTION64_PATH=%s\n",
            (int)rc, env ? env : "(unset)");
    fprintf(stderr, "topdown-debug nvtx: cuptiSubscribe called from %s; global scope: %s\n",
            lib_of((const void *)(uintptr_t)cuptiSubscribe),
            lib_of(dlsym(RTLD_DEFAULT, "cuptiSubscribe")));
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096], last[4096] = "";
    while (maps && fgets(line, sizeof line, maps)) {
        const char *path = strchr(line, '/');
        if (!path || (!strstr(path, "cupti") && !strstr(path, "nvToolsExt") &&
                      !strstr(path, "nvtx")) || strcmp(path, last) == 0)
            continue;
        snprintf(last, sizeof last, "%s", path);
        fprintf(stderr, "topdown-debug nvtx: mapped %s", path);
    }
    if (maps)
        fclose(maps);
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int is_cupti(const char *path)
{
    const char *base = strrchr(path, '/');
    return strncmp(base ? base + 1 : path, "libcupti.so", 11) == 0;
}

/* NVTX hands its calls to the library NVTX_INJECTION64_PATH names, loaded
 * by path on the first NVTX call. The launcher names the libcupti it found
 * beside the injection library, but in the app a libcupti of the same
 * soname loaded before it (PyTorch's wheel brings one) is the one
 * topdown's calls reach: that copy has the subscriber, so NVTX must name
 * it too. Too late for NVTX libraries that were already called. */
static void point_nvtx_at_our_cupti(void)
{
    const char *env = getenv("NVTX_INJECTION64_PATH");
    Dl_info info;
    if (!env || !*env || !is_cupti(env) ||
        !dladdr((const void *)(uintptr_t)cuptiSubscribe, &info) || !info.dli_fname ||
        !is_cupti(info.dli_fname) || same_file(env, info.dli_fname))
        return;
    char ours[PATH_MAX];
    if (!realpath(info.dli_fname, ours))
        snprintf(ours, sizeof ours, "%s", info.dli_fname);
    void *other = dlopen(env, RTLD_LAZY | RTLD_NOLOAD);
    if (other) {
        dlclose(other);
        td_sw_warning("NVTX: %s was loaded before topdown attached, and topdown's CUPTI is %s: "
                      "NVTX calls made before CUDA was initialised are not seen", env, ours);
    }
    setenv("NVTX_INJECTION64_PATH", ours, 1);
}

void td_nvtx_enable(CUpti_SubscriberHandle subscriber)
{
    point_nvtx_at_our_cupti();
    CUptiResult rc = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX);
    if (td_debug_on())
        debug_libraries(rc);
}

int td_nvtx_filtering(void)
{
    return td_nvtx_filter_active(&nv.filter);
}

/* ---- names (callers hold nv.lock) --------------------------------------- */

static const char *intern(const char *s)
{
    const char *name = td_names_intern(&nv.names, s && *s ? s : "?");
    return name ? name : "?";
}

/* A wide string as UTF-8 would be best; NVTX's W forms are rare, so
 * characters outside ASCII become '?'. */
static const char *intern_wide(const wchar_t *w)
{
    char text[256];
    size_t i = 0;
    for (; w && w[i] && i + 1 < sizeof text; i++)
        text[i] = w[i] > 0 && w[i] < 128 ? (char)w[i] : '?';
    text[i] = '\0';
    return intern(text);
}

static int domain_index(const void *handle)
{
    if (!handle)
        return 0;
    for (int d = 1; d < nv.n_domains; d++)
        if (nv.domain_handle[d] == handle)
            return d;
    /* A domain created before CUPTI attached: named by its handle. */
    char name[64];
    snprintf(name, sizeof name, "domain %p", handle);
    if (nv.n_domains == MAX_DOMAINS)
        return MAX_DOMAINS - 1;
    nv.domain_handle[nv.n_domains] = handle;
    nv.domain_name[nv.n_domains] = intern(name);
    return nv.n_domains++;
}

static void add_domain(const void *handle, const char *name)
{
    if (!handle)
        return;
    int d = domain_index(handle);
    nv.domain_name[d] = name;
}

static void add_string(const void *handle, const char *value)
{
    for (int i = 0; i < nv.n_strings; i++)
        if (nv.string_handle[i] == handle) {
            nv.string_value[i] = value;
            return;
        }
    if (nv.n_strings == MAX_STRINGS)
        return;
    nv.string_handle[nv.n_strings] = handle;
    nv.string_value[nv.n_strings++] = value;
}

static const char *registered(const void *handle)
{
    for (int i = 0; i < nv.n_strings; i++)
        if (nv.string_handle[i] == handle)
            return nv.string_value[i];
    return "?";
}

static const char *attrib_message(const nvtxEventAttributes_t *a)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message)
        return "?";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return intern(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return intern_wide(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return registered(a->message.registered);
    default:
        return "?";
    }
}

/* ---- ranges ---------------------------------------------------------------- */

static void push(int domain, const char *name)
{
    if (!stacks) {
        if (!(stacks = calloc(1, sizeof *stacks)))
            return;
        pthread_once(&stacks_key_once, make_stacks_key);
        pthread_setspecific(stacks_key, stacks);
    }
    int depth = stacks->depth[domain]++;
    if (depth < MAX_DEPTH)
        stacks->name[domain][depth] = name;
    nv.seen = 1;
}

static void pop(int domain)
{
    /* A pop without its push (pushed before CUPTI attached) is ignored. */
    if (stacks && stacks->depth[domain] > 0)
        stacks->depth[domain]--;
}

static void start(int domain, const char *name, const void *ret)
{
    if (!ret)
        return;
    if (nv.n_started == MAX_STARTED) {
        memmove(&nv.started[0], &nv.started[1], (nv.n_started - 1) * sizeof *nv.started);
        nv.n_started--;
    }
    if (nv.n_started == nv.cap_started) {
        size_t cap = nv.cap_started ? nv.cap_started * 2 : 16;
        started_range *bigger = realloc(nv.started, cap * sizeof *bigger);
        if (!bigger)
            return;
        nv.started = bigger;
        nv.cap_started = cap;
    }
    started_range r = {*(const nvtxRangeId_t *)ret, domain, name};
    nv.started[nv.n_started++] = r;
    nv.seen = 1;
}

static void end(uint64_t id)
{
    for (size_t i = 0; i < nv.n_started; i++)
        if (nv.started[i].id == id) {
            memmove(&nv.started[i], &nv.started[i + 1],
                    (nv.n_started - i - 1) * sizeof *nv.started);
            nv.n_started--;
            return;
        }
}

static void on_range(CUpti_CallbackId cbid, const void *p, const void *ret)
{
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        push(0, intern(((const nvtxRangePushA_params *)p)->message));
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
        push(0, intern_wide(((const nvtxRangePushW_params *)p)->message));
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        push(0, attrib_message(((const nvtxRangePushEx_params *)p)->eventAttrib));
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const nvtxDomainRangePushEx_params *q = p;
        push(domain_index(q->domain), attrib_message(q->core.eventAttrib));
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
        pop(0);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        pop(domain_index(((const nvtxDomainRangePop_params *)p)->domain));
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
        start(0, intern(((const nvtxRangeStartA_params *)p)->message), ret);
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
        start(0, intern_wide(((const nvtxRangeStartW_params *)p)->message), ret);
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
        start(0, attrib_message(((const nvtxRangeStartEx_params *)p)->eventAttrib), ret);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
        const nvtxDomainRangeStartEx_params *q = p;
        start(domain_index(q->domain), attrib_message(q->core.eventAttrib), ret);
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
        end(((const nvtxRangeEnd_params *)p)->id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        end(((const nvtxDomainRangeEnd_params *)p)->core.id);
        break;
    default:
        break;
    }
}

static void on_names(CUpti_CallbackId cbid, const void *p, const void *ret)
{
    if (!ret)
        return;
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxDomainCreateA:
        add_domain(*(const nvtxDomainHandle_t *)ret,
                   intern(((const nvtxDomainCreateA_params *)p)->name));
        break;
    /* nvtxDomainCreateW has no params struct in CUPTI's header: such a
     * domain is named by its handle (domain_index). */
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
        add_string(*(const nvtxStringHandle_t *)ret,
                   intern(((const nvtxDomainRegisterStringA_params *)p)->string));
        break;
    default:
        break;
    }
}

void td_nvtx_callback(CUpti_CallbackId cbid, const CUpti_NvtxData *data)
{
    if (!data)
        return;
    pthread_mutex_lock(&nv.lock);
    static int said;
    if (td_debug_on() && said < 16) {
        said++;
        fprintf(stderr, "topdown-debug nvtx: callback %d (%s)\n", (int)cbid,
                data->functionName ? data->functionName : "?");
    }
    on_names(cbid, data->functionParams, data->functionReturnValue);
    on_range(cbid, data->functionParams, data->functionReturnValue);
    pthread_mutex_unlock(&nv.lock);
}

/* ---- the region of a launch --------------------------------------------- */

/* The calling thread's stacks and the open start/end ranges, per domain
 * (callers hold nv.lock). */
static size_t build_state(td_nvtx_domain_state *domains, const char **started_names)
{
    size_t n = 0, used = 0;
    for (int d = 0; d < nv.n_domains; d++) {
        td_nvtx_domain_state *ds = &domains[n];
        memset(ds, 0, sizeof *ds);
        ds->domain = d ? nv.domain_name[d] : NULL;
        if (stacks && stacks->depth[d] > 0) {
            ds->push = stacks->name[d];
            ds->n_push = (size_t)(stacks->depth[d] < MAX_DEPTH ? stacks->depth[d] : MAX_DEPTH);
        }
        ds->started = started_names + used;
        for (size_t i = 0; i < nv.n_started; i++)
            if (nv.started[i].domain == d)
                started_names[used++] = nv.started[i].name;
        ds->n_started = (size_t)(started_names + used - ds->started);
        if (ds->n_push || ds->n_started)
            n++;
    }
    return n;
}

const char *td_nvtx_launch_region(int *allowed)
{
    *allowed = 1;
    if (!nv.seen && !td_nvtx_filtering())
        return NULL;
    pthread_mutex_lock(&nv.lock);
    td_nvtx_domain_state domains[MAX_DOMAINS];
    const char **started_names = malloc((nv.n_started ? nv.n_started : 1) * sizeof *started_names);
    const char *region = NULL;
    if (started_names) {
        td_nvtx_state state = {domains, build_state(domains, started_names)};
        *allowed = td_nvtx_filter_allows(&nv.filter, &state);
        char name[REGION_SIZE];
        td_nvtx_region_name(&state, name, sizeof name);
        region = name[0] ? intern(name) : NULL;
    }
    free(started_names);
    static int said;
    if (td_debug_on() && said < 8) {
        said++;
        fprintf(stderr, "topdown-debug nvtx: launch region %s\n", region ? region : "(none)");
    }
    pthread_mutex_unlock(&nv.lock);
    return region;
}
