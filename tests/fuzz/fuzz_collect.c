/* Fuzz target: the collector's reader of its one variable, TOPDOWN_COLLECT
 * (td_collect_opts_parse, topdown/inject/collect_opts.c). The input is the
 * variable's text, up to its first NUL byte as an environment holds it.
 * What reads must write back and read again to the same text. */
#include "fuzz_common.h"
#include "topdown/inject/collect_opts.h"

/* o written, read and written again: the same text, else abort. */
static void check_round_trip(const td_collect_opts *o)
{
    char msg[256];
    td_collect_opts again;
    char *written = td_collect_opts_format(o);
    if (!written || td_collect_opts_parse(&again, written, msg, sizeof msg) != 0)
        abort();
    char *rewritten = td_collect_opts_format(&again);
    if (!rewritten || strcmp(written, rewritten) != 0)
        abort();
    free(rewritten);
    free(written);
    td_collect_opts_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    td_collect_opts o;
    char msg[256];
    if (td_collect_opts_parse(&o, text, msg, sizeof msg) == 0)
        check_round_trip(&o);
    else if (!msg[0])
        abort(); /* a refusal always says why */
    td_collect_opts_free(&o);
    free(text);
    return 0;
}
