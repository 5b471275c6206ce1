/* NVTX regions: which NVTX ranges a kernel launch was made in, the name
 * of that region, and the --nvtx-include / --nvtx-exclude filters in
 * Nsight Compute's syntax (docs/COLLECTION.md, "NVTX regions"). Pure:
 * the injection library builds a td_nvtx_state at each launch from the
 * CUPTI NVTX callbacks (topdown/inject/nvtx.c), this module names it and
 * decides whether the filters let the launch be profiled.
 *
 * Filter syntax (ncu's):
 *   NAME            start/end range NAME of the default domain is open
 *   DOMAIN@NAME     the same in domain DOMAIN
 *   A/              the thread's push/pop stack holds range A (any depth)
 *   A/B/ , A/B      B pushed directly inside A
 *   A/STAR/B        B inside A, any ranges in between (STAR: a '*')
 *   [A/             A at the bottom of the stack
 *   B]              B on top of the stack (the innermost range)
 *   DOMAIN@A/B/     the same on domain DOMAIN's stack
 * '\' escapes the next character ("a\/b" is one range named a/b). A spec
 * with '/', '[' or ']' names push/pop ranges, one without names a start/end
 * range. A launch is profiled when no include is given or one matches,
 * and no exclude matches. */
#ifndef TD_NVTX_FILTER_H
#define TD_NVTX_FILTER_H

#include <stddef.h>

#include "metrics/error.h"

/* The NVTX ranges open around one launch, per domain. */
typedef struct td_nvtx_domain_state {
    const char *domain;            /* NULL or "": the default domain */
    const char *const *push;       /* the launching thread's push/pop stack,
                                      bottom (outermost) first */
    size_t n_push;
    const char *const *started;    /* open start/end ranges (any thread) */
    size_t n_started;
} td_nvtx_domain_state;

typedef struct td_nvtx_state {
    const td_nvtx_domain_state *domains;
    size_t n;
} td_nvtx_state;

/* The region's name: each domain's push/pop stack as "[DOMAIN@]A/B", then
 * each open start/end range as "([DOMAIN@]NAME)", separated by spaces, in
 * the order of state->domains. "" when no range is open. Cut to size. */
void td_nvtx_region_name(const td_nvtx_state *state, char *out, size_t size);

enum { TD_NVTX_MAX_RULES = 32, TD_NVTX_MAX_ELEMENTS = 16 };

typedef struct td_nvtx_rule {
    char *domain;        /* NULL: the default domain */
    int push_pop;        /* 1: a push/pop stack path, 0: a start/end range */
    char *element[TD_NVTX_MAX_ELEMENTS]; /* range names; "*" (push/pop):
                                            any number of ranges */
    size_t n_elements;
    int bottom, top;     /* '[' / ']' anchors (push/pop) */
} td_nvtx_rule;

typedef struct td_nvtx_filter {
    td_nvtx_rule include[TD_NVTX_MAX_RULES], exclude[TD_NVTX_MAX_RULES];
    size_t n_include, n_exclude;
} td_nvtx_filter;

/* Adds one spec (one --nvtx-include or --nvtx-exclude value). A bad spec
 * is an error naming it and what is wrong. */
int td_nvtx_filter_add(td_nvtx_filter *f, const char *spec, int exclude, td_error *err);

/* Adds every spec of a list separated by newlines (how the launcher hands
 * several options to the injection library in one variable). */
int td_nvtx_filter_add_list(td_nvtx_filter *f, const char *list, int exclude, td_error *err);

/* 1 when some rule is set. */
int td_nvtx_filter_active(const td_nvtx_filter *f);

/* 1 when a rule matches the state. */
int td_nvtx_rule_matches(const td_nvtx_rule *r, const td_nvtx_state *state);

/* 1 when the filter lets a launch made in state be profiled. */
int td_nvtx_filter_allows(const td_nvtx_filter *f, const td_nvtx_state *state);

void td_nvtx_filter_free(td_nvtx_filter *f);

#endif
