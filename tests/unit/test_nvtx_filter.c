/* NVTX regions (topdown/inject/nvtx_filter.h): ncu's --nvtx-include/--nvtx-exclude
 * syntax parsed and matched against range states a launch can be made in,
 * bad specs refused with a message naming them, and region names. */
#include <string.h>

#include "../check.h"
#include "topdown/inject/nvtx_filter.h"

/* A state of one or two domains, built from literal lists. */
static const char *const step_fwd[] = {"step", "forward"};
static const char *const step_fwd_attn[] = {"step", "forward", "attention"};
static const char *const step_bwd[] = {"step", "backward"};
static const char *const lib_stack[] = {"solve", "iterate"};
static const char *const epoch[] = {"epoch 2"};
static const char *const warmup[] = {"warmup"};

static td_nvtx_state state_of(const td_nvtx_domain_state *domains, size_t n)
{
    td_nvtx_state s = {domains, n};
    return s;
}

static int allows(const char *const *include, size_t n_include, const char *const *exclude,
                  size_t n_exclude, const td_nvtx_state *s)
{
    td_nvtx_filter f;
    memset(&f, 0, sizeof f);
    td_error err;
    for (size_t i = 0; i < n_include; i++)
        if (td_nvtx_filter_add(&f, include[i], 0, &err)) {
            fprintf(stderr, "include %s: %s\n", include[i], err.msg);
            td_nvtx_filter_free(&f);
            return -1;
        }
    for (size_t i = 0; i < n_exclude; i++)
        if (td_nvtx_filter_add(&f, exclude[i], 1, &err)) {
            fprintf(stderr, "exclude %s: %s\n", exclude[i], err.msg);
            td_nvtx_filter_free(&f);
            return -1;
        }
    int ok = td_nvtx_filter_allows(&f, s);
    td_nvtx_filter_free(&f);
    return ok;
}

static int included(const char *spec, const td_nvtx_state *s)
{
    const char *list[] = {spec};
    return allows(list, 1, NULL, 0, s);
}

static void test_parse(void)
{
    td_nvtx_filter f;
    memset(&f, 0, sizeof f);
    td_error err;
    CHECK(td_nvtx_filter_add(&f, "Lib@a/*/b]", 0, &err) == 0);
    const td_nvtx_rule *r = &f.include[0];
    CHECK_STR(r->domain, "Lib");
    CHECK(r->push_pop == 1 && r->top == 1 && r->bottom == 0);
    CHECK(r->n_elements == 3);
    CHECK_STR(r->element[1], "*");
    CHECK_STR(r->element[2], "b");
    CHECK(td_nvtx_filter_add(&f, "epoch 2", 0, &err) == 0);
    CHECK(f.include[1].push_pop == 0 && f.include[1].domain == NULL);
    CHECK_STR(f.include[1].element[0], "epoch 2");
    /* Escapes: one range named "a/b", one domain "x@y". */
    CHECK(td_nvtx_filter_add(&f, "x\\@y@a\\/b/", 1, &err) == 0);
    CHECK_STR(f.exclude[0].domain, "x@y");
    CHECK(f.exclude[0].n_elements == 1);
    CHECK_STR(f.exclude[0].element[0], "a/b");
    CHECK(td_nvtx_filter_add(&f, "[top/", 1, &err) == 0);
    CHECK(f.exclude[1].bottom == 1 && f.exclude[1].push_pop == 1);
    CHECK(td_nvtx_filter_active(&f));
    td_nvtx_filter_free(&f);
    CHECK(!td_nvtx_filter_active(&f));

    /* A list as the launcher passes it: one spec per line. */
    CHECK(td_nvtx_filter_add_list(&f, "a/\nLib@b\nc]", 0, &err) == 0);
    CHECK(f.n_include == 3);
    CHECK_STR(f.include[1].domain, "Lib");
    CHECK(f.include[2].top == 1);
    td_nvtx_filter_free(&f);
}

static void test_bad_specs(void)
{
    const char *bad[] = {"", "@a", "Lib@", "a//b", "*/", "a@b@c", "[]", "Lib@/"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        td_nvtx_filter f;
        memset(&f, 0, sizeof f);
        td_error err;
        err.msg[0] = '\0';
        int rc = td_nvtx_filter_add(&f, bad[i], 0, &err);
        CHECK(rc == -1);
        CHECK(f.n_include == 0);
        CHECK(strstr(err.msg, "NVTX filter") != NULL);
        td_nvtx_filter_free(&f);
    }
}

static void test_push_pop_matching(void)
{
    td_nvtx_domain_state d = {NULL, step_fwd_attn, 3, NULL, 0};
    td_nvtx_state s = state_of(&d, 1);
    CHECK(included("step/", &s) == 1);
    CHECK(included("forward/", &s) == 1);          /* any depth */
    CHECK(included("backward/", &s) == 0);
    CHECK(included("step/forward/", &s) == 1);
    CHECK(included("step/attention/", &s) == 0);    /* not directly inside */
    CHECK(included("step/*/attention", &s) == 1);
    CHECK(included("step/*/forward/", &s) == 1);    /* '*': zero ranges too */
    CHECK(included("[step/", &s) == 1);
    CHECK(included("[forward/", &s) == 0);          /* not at the bottom */
    CHECK(included("attention]", &s) == 1);
    CHECK(included("forward]", &s) == 0);           /* not the innermost */
    CHECK(included("[step/forward/attention]", &s) == 1);
    CHECK(included("[step/attention]", &s) == 0);
    CHECK(included("Lib@step/", &s) == 0);          /* another domain */
    CHECK(included("step", &s) == 0);               /* a start/end range */
}

static void test_domains_and_start_end(void)
{
    td_nvtx_domain_state d[2] = {{"", step_bwd, 2, epoch, 1},
                                 {"Lib", lib_stack, 2, warmup, 1}};
    td_nvtx_state s = state_of(d, 2);
    CHECK(included("epoch 2", &s) == 1);
    CHECK(included("warmup", &s) == 0);             /* warmup is Lib's */
    CHECK(included("Lib@warmup", &s) == 1);
    CHECK(included("Lib@*", &s) == 1);
    CHECK(included("Lib@solve/iterate]", &s) == 1);
    CHECK(included("Lib@step/", &s) == 0);
    CHECK(included("backward]", &s) == 1);

    /* Several includes: any; excludes: none. */
    const char *inc[] = {"forward/", "Lib@solve/"};
    CHECK(allows(inc, 2, NULL, 0, &s) == 1);
    const char *exc[] = {"backward/"};
    CHECK(allows(inc, 2, exc, 1, &s) == 0);
    CHECK(allows(NULL, 0, exc, 1, &s) == 0);
    td_nvtx_domain_state fwd = {NULL, step_fwd, 2, NULL, 0};
    td_nvtx_state f = state_of(&fwd, 1);
    CHECK(allows(NULL, 0, exc, 1, &f) == 1);
    CHECK(allows(inc, 2, exc, 1, &f) == 1);
    /* No range open: an include cannot match, an exclude leaves it. */
    td_nvtx_state none = state_of(NULL, 0);
    CHECK(allows(inc, 1, NULL, 0, &none) == 0);
    CHECK(allows(NULL, 0, exc, 1, &none) == 1);
}

static void test_region_names(void)
{
    char name[128];
    td_nvtx_domain_state d[2] = {{NULL, step_fwd, 2, epoch, 1},
                                 {"Lib", lib_stack, 2, warmup, 1}};
    td_nvtx_state s = state_of(d, 2);
    td_nvtx_region_name(&s, name, sizeof name);
    CHECK_STR(name, "step/forward Lib@solve/iterate (epoch 2) (Lib@warmup)");
    td_nvtx_domain_state only = {"Lib", NULL, 0, warmup, 1};
    s = state_of(&only, 1);
    td_nvtx_region_name(&s, name, sizeof name);
    CHECK_STR(name, "(Lib@warmup)");
    s = state_of(NULL, 0);
    td_nvtx_region_name(&s, name, sizeof name);
    CHECK_STR(name, "");
    /* Cut to size, still terminated. */
    s = state_of(d, 2);
    td_nvtx_region_name(&s, name, 8);
    CHECK_STR(name, "step/fo");
}

int main(void)
{
    test_parse();
    test_bad_specs();
    test_push_pop_matching();
    test_domains_and_start_end();
    test_region_names();
    return td_check_summary();
}
