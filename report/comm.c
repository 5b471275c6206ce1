#include "report/comm.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef enum { MATCH_PREFIX, MATCH_CONTAINS } match_kind;

/* Kernel names of the communication libraries. "contains" ignores case. */
static const struct comm_pattern {
    match_kind match;
    const char *text;
    const char *library;
} comm_patterns[] = {
    {MATCH_PREFIX, "ncclKernel", "NCCL"},
    {MATCH_PREFIX, "ncclDevKernel", "NCCL"},
    {MATCH_CONTAINS, "nccl", "NCCL"},
    {MATCH_CONTAINS, "nvshmem", "NVSHMEM"},
};

static int contains_nocase(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (; *text; text++) {
        size_t i = 0;
        while (i < n && text[i] && tolower((unsigned char)text[i]) == word[i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

const char *td_comm_library(const char *kernel_name)
{
    if (!kernel_name)
        return NULL;
    for (size_t i = 0; i < sizeof comm_patterns / sizeof comm_patterns[0]; i++) {
        const struct comm_pattern *p = &comm_patterns[i];
        int hit = p->match == MATCH_PREFIX
                      ? strncmp(kernel_name, p->text, strlen(p->text)) == 0
                      : contains_nocase(kernel_name, p->text);
        if (hit)
            return p->library;
    }
    return NULL;
}

const char *td_comm_fix(const char *library, double share, char *buf, size_t size)
{
    char whose[64] = "";
    if (share < 0.995)
        snprintf(whose, sizeof whose, "%.0f%% of these slots are ", 100.0 * share);
    snprintf(buf, size, "Fix: %s%s communication waiting for other ranks, not compute: overlap "
             "it with compute (bucketed gradients, a stream of its own) and balance the work "
             "between ranks (topdown imbalance compares them).", whose, library);
    return buf;
}

void td_comm_totals_of(const td_summary *s, td_comm_totals *out)
{
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < s->n_kernels; k++) {
        const char *lib = td_comm_library(s->kernels[k].name);
        if (!lib)
            continue;
        if (out->library && strcmp(out->library, lib) != 0)
            lib = "communication";
        out->library = lib;
        out->kernels++;
        out->launches += s->kernels[k].launches;
        out->ns += s->kernels[k].total_ns;
    }
}

double td_comm_node_share(const td_summary *s, int node)
{
    double comm = 0, all = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        if (!ks->has_data || node < 0)
            continue;
        double part = ks->total_ns * ks->mean.value[node];
        all += part;
        if (td_comm_library(ks->name))
            comm += part;
    }
    return all > 0 ? comm / all : 0;
}
