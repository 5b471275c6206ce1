#include "metrics/kmatch.h"

#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#define REGEX_PREFIX "regex:"
#define BASE_NAME_CHARS 4096 /* a base name longer than this is matched cut */

struct td_kmatch {
    pcre2_code *code;
    char *literal;   /* a plain argument: a name equal to it matches too; NULL for regex: */
    td_name_base base;
};

int td_kmatch_compile(const char *arg, td_name_base base, td_kmatch **out, td_error *err)
{
    *out = NULL;
    int prefixed = strncmp(arg, REGEX_PREFIX, strlen(REGEX_PREFIX)) == 0;
    const char *pattern = prefixed ? arg + strlen(REGEX_PREFIX) : arg;
    if (!pattern[0])
        return td_fail(err, "-k '%s': empty kernel-name regex; give one, e.g. -k 'regex:gemm_\\d+'",
                       arg);
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code,
                                   &offset, NULL);
    if (!re) {
        PCRE2_UCHAR why[256];
        if (pcre2_get_error_message(code, why, sizeof why) < 0)
            strcpy((char *)why, "invalid");
        return td_fail(err, "bad kernel-name regex '%s': %s at character %zu (a Perl-style "
                       "regex, e.g. 'gemm_\\d+' or '^sgemm'; quote it for the shell)",
                       arg, (const char *)why, (size_t)offset + 1);
    }
    td_kmatch *m = calloc(1, sizeof *m);
    if (m && !prefixed && !(m->literal = strdup(pattern))) {
        free(m);
        m = NULL;
    }
    if (!m) {
        pcre2_code_free(re);
        return td_fail(err, "out of memory");
    }
    m->code = re;
    m->base = base;
    *out = m;
    return 0;
}

/* Whether the regex finds a match anywhere in name (an unanchored search,
 * as ncu's regex: and perl's m//). */
static int search(const pcre2_code *re, const char *name)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    if (!md)
        return 0;
    int rc = pcre2_match(re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

int td_kmatch_test(const td_kmatch *m, const char *demangled, const char *mangled)
{
    if (!demangled)
        demangled = mangled ? mangled : "";
    char buf[BASE_NAME_CHARS];
    const char *name = td_kernel_name_in(m->base, demangled, mangled, buf, sizeof buf);
    if (m->literal && strcmp(name, m->literal) == 0)
        return 1;
    return search(m->code, name);
}

td_name_base td_kmatch_base(const td_kmatch *m)
{
    return m->base;
}

void td_kmatch_free(td_kmatch *m)
{
    if (!m)
        return;
    pcre2_code_free(m->code);
    free(m->literal);
    free(m);
}
