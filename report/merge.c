/* topdown merge (ranks.h). */
#include "report/ranks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- merge ----------------------------------------------------------------- */

static const char *label_of(const td_device *dev, const char *label)
{
    return dev->origin ? dev->origin : label;
}

/* Two sections of one chip measured with different arch tables. */
static int check_tables(const td_result *inputs, const char *const *labels, size_t n,
                        td_error *err)
{
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < inputs[i].n_devices; d++)
            for (size_t j = 0; j <= i; j++)
                for (size_t e = 0; e < inputs[j].n_devices && (j < i || e < d); e++) {
                    const td_device *a = &inputs[j].devices[e], *b = &inputs[i].devices[d];
                    if (!a->chip || !b->chip || strcmp(a->chip, b->chip) != 0 ||
                        strcmp(a->arch, b->arch) == 0)
                        continue;
                    return td_fail(err, "%s and %s: the same chip (%s) measured with "
                                   "different arch tables (%s, %s): merge results of one "
                                   "table (profile both with --arch %s)",
                                   label_of(a, labels[j]), label_of(b, labels[i]), a->chip,
                                   a->arch, b->arch, a->arch);
                }
    return 0;
}

/* Two arguments alike but for their numbers: ranks' command lines may
 * differ in a rank or a port (--local_rank=1). */
static int same_but_numbers(const char *a, const char *b)
{
    while (*a && *b) {
        int digits = isdigit((unsigned char)*a) && isdigit((unsigned char)*b);
        if (digits) {
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
        } else if (*a++ != *b++) {
            return 0;
        }
    }
    return *a == *b;
}

static int same_command(const td_result *a, const td_result *b)
{
    if (a->argc != b->argc)
        return 0;
    for (size_t i = 0; i < a->argc; i++)
        if (!same_but_numbers(a->argv[i], b->argv[i]))
            return 0;
    return 1;
}

/* The command line, cut to fit a message. */
static void command_text(const td_result *res, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < res->argc; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "", res->argv[i]);
    if (res->argc == 0)
        snprintf(out, size, "(none recorded)");
}

/* What tells b from the ranks of a's job, in out ("" when nothing). */
static void job_differences(const td_result *a, const td_result *b, char *out, size_t size)
{
    out[0] = '\0';
    if (!same_command(a, b)) {
        char ca[160], cb[160];
        command_text(a, ca, sizeof ca);
        command_text(b, cb, sizeof cb);
        snprintf(out, size, "their commands differ (`%s`, `%s`)", ca, cb);
    }
    if (a->synthetic != b->synthetic)
        snprintf(out + strlen(out), size - strlen(out), "%sthe %s is a synthetic example, not "
                 "a measurement", out[0] ? "; " : "", a->synthetic ? "first" : "second");
}

/* The inputs are the ranks (processes) of one job: one command (numbers
 * aside), all measured or all synthetic; else refused, unless force. */
static int check_one_job(const td_result *inputs, const char *const *labels, size_t n,
                         int force, td_error *err)
{
    char differs[512];
    for (size_t i = 1; i < n && !force; i++) {
        job_differences(&inputs[0], &inputs[i], differs, sizeof differs);
        if (differs[0])
            return td_fail(err, "%s and %s are not processes of one job: %s; merge the ranks "
                           "of one run, or add --force to merge them anyway", labels[0],
                           labels[i], differs);
    }
    return 0;
}

/* Whether some input is not of the first's job (merged with --force). */
static int several_jobs(const td_result *inputs, size_t n)
{
    char differs[512];
    for (size_t i = 1; i < n; i++) {
        job_differences(&inputs[0], &inputs[i], differs, sizeof differs);
        if (differs[0])
            return 1;
    }
    return 0;
}

/* The inputs' conditions when they all recorded the same, else none. */
static int merge_conditions(const td_result *inputs, size_t n, td_result *out)
{
    for (size_t i = 1; i < n; i++)
        if (!td_conditions_recorded(&inputs[i].conditions) ||
            td_conditions_differ(&inputs[0].conditions, &inputs[i].conditions))
            return 0;
    return td_conditions_copy(&out->conditions, &inputs[0].conditions);
}

static int merge_header(const td_result *inputs, const char *const *labels, size_t n,
                        td_result *out)
{
    const td_result *first = &inputs[0];
    const char *status = "complete", *replay = first->replay_mode;
    int mixed_replay = 0;
    size_t note_len = 96;
    for (size_t i = 0; i < n; i++) {
        out->synthetic |= inputs[i].synthetic;
        if (inputs[i].status && strcmp(inputs[i].status, "complete") != 0)
            status = inputs[i].status;
        if (!out->exit_code)
            out->exit_code = inputs[i].exit_code, out->term_signal = inputs[i].term_signal;
        if (!replay || !inputs[i].replay_mode || strcmp(replay, inputs[i].replay_mode) != 0)
            mixed_replay |= replay || inputs[i].replay_mode, replay = NULL;
        note_len += strlen(labels[i]) + 2;
    }
    out->tool_version = td_strdup(first->tool_version);
    out->created = td_strdup(first->created);
    out->status = td_strdup(status);
    /* modes that differ are said so, not taken for an older result's */
    out->replay_mode = td_strdup(mixed_replay ? "mixed" : replay);
    out->overhead_pct = first->overhead_pct;
    for (size_t i = 0; i < n; i++) /* each input's processes */
        td_cost_add(&out->cost, &inputs[i].cost);
    out->note = malloc(note_len);
    if (merge_conditions(inputs, n, out) || !out->note || !out->status || (first->created && !out->created))
        return -1;
    size_t synthetic = 0;
    for (size_t i = 0; i < n; i++)
        synthetic += inputs[i].synthetic != 0;
    snprintf(out->note, note_len, "merged from %zu results", n);
    if (several_jobs(inputs, n))
        snprintf(out->note + strlen(out->note), note_len - strlen(out->note),
                 " of different jobs (--force; %zu synthetic)", synthetic);
    snprintf(out->note + strlen(out->note), note_len - strlen(out->note), ":");
    for (size_t i = 0; i < n; i++)
        snprintf(out->note + strlen(out->note), note_len - strlen(out->note), " %s%s",
                 labels[i], i + 1 < n ? "," : "");
    out->argv = calloc(first->argc ? first->argc : 1, sizeof *out->argv);
    for (size_t i = 0; out->argv && i < first->argc; i++)
        if ((out->argv[out->argc++] = td_strdup(first->argv[i])) == NULL)
            return -1;
    return out->argv ? 0 : -1;
}

int td_results_merge(td_result *inputs, const char *const *labels, size_t n, int force,
                     td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return td_fail(err, "merge needs at least one result");
    if (check_tables(inputs, labels, n, err) || check_one_job(inputs, labels, n, force, err))
        return -1;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += inputs[i].n_devices;
    out->devices = calloc(total ? total : 1, sizeof *out->devices);
    if (!out->devices || merge_header(inputs, labels, n, out)) {
        td_result_free(out);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t d = 0; d < inputs[i].n_devices; d++) {
            td_device *dev = &out->devices[out->n_devices++];
            *dev = inputs[i].devices[d]; /* moved: the input no longer owns it */
            if (!dev->origin && !(dev->origin = td_strdup(labels[i]))) {
                inputs[i].n_devices -= d + 1;
                memmove(inputs[i].devices, inputs[i].devices + d + 1,
                        inputs[i].n_devices * sizeof *dev);
                td_result_free(out);
                return td_fail(err, "out of memory");
            }
        }
        inputs[i].n_devices = 0;
    }
    return 0;
}
