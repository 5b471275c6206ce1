#include "topdown/inject/group_sampler.h"

#include <stdlib.h>
#include <string.h>

#include "metrics/xorshift.h"

/* The kernel's entry for a size class, added on first sight; NULL when out
 * of memory (the launch is then left unmeasured). */
static td_choose_class *class_of(td_choose_kernel *k, unsigned size_class)
{
    for (size_t i = 0; i < k->n_classes; i++)
        if (k->classes[i].size_class == size_class)
            return &k->classes[i];
    if (k->n_classes == k->cap_classes) {
        size_t cap = k->cap_classes ? 2 * k->cap_classes : 4;
        td_choose_class *bigger = realloc(k->classes, cap * sizeof *bigger);
        if (!bigger)
            return NULL;
        k->classes = bigger;
        k->cap_classes = cap;
    }
    td_choose_class *c = &k->classes[k->n_classes++];
    memset(c, 0, sizeof *c);
    c->size_class = size_class;
    c->stride = 1;
    c->rng = 0x9e3779b9u ^ size_class;
    return c;
}

static uint32_t least_of(const uint32_t *counts, size_t n)
{
    uint32_t least = counts[0];
    for (size_t g = 1; g < n; g++)
        if (counts[g] < least)
            least = counts[g];
    return least;
}

/* The group the class measured least, ties to the one the kernel measured
 * least; with a group configured, the nearest one ahead of it (itself
 * first) that leads neither the class nor the kernel by more than
 * TD_CHOOSE_SLACK (staying costs a little balance; moving back to a group
 * behind ends a session for every pass in between: PyTorch in none mode,
 * H100, 265 sessions for 1,181 samples, now 160 for 1,347). Without the kernel's counts,
 * classes met after a replay (every count 0) all took the active group. */
static int least_measured(const uint32_t *counts, const uint32_t *kernel_counts, size_t n,
                          int active)
{
    int best = 0;
    for (size_t g = 1; g < n; g++)
        if (counts[g] < counts[best] ||
            (counts[g] == counts[best] && kernel_counts[g] < kernel_counts[best]))
            best = (int)g;
    if (active < 0 || (size_t)active >= n)
        return best;
    uint32_t class_least = least_of(counts, n), kernel_least = least_of(kernel_counts, n);
    for (size_t d = 0; d < n; d++) {
        size_t g = ((size_t)active + d) % n;
        if (counts[g] <= class_least + TD_CHOOSE_SLACK &&
            kernel_counts[g] <= kernel_least + TD_CHOOSE_SLACK)
            return (int)g;
    }
    return best;
}

/* The nearest group ahead of the configured one in the rotation's order
 * (itself first; without one, group 0 first) that counts fewer than
 * `fewer` samples and, with `elsewhere`, more than none there; -1: none.
 * The rotation's passes are measured in turn: a move d passes ahead ends
 * d sessions, a Stop and a Start each, 5-13 ms on the H100, where a
 * sample costs about 1 ms. */
static int nearest_short(const uint32_t *counts, uint32_t fewer, const uint32_t *elsewhere,
                         size_t n, int active)
{
    size_t from = active < 0 || (size_t)active >= n ? 0 : (size_t)active;
    for (size_t d = 0; d < n; d++) {
        size_t g = (from + d) % n;
        if (counts[g] < fewer && (!elsewhere || elsewhere[g] > 0))
            return (int)g;
    }
    return -1;
}

/* The kernel's nearest group ahead that it measured fewer than `fewer`
 * times (1: never); -1: none. */
static int group_short_of(const td_choose_kernel *k, size_t n, int active, uint32_t fewer)
{
    return nearest_short(k->group_samples, fewer, NULL, n, active);
}

/* With the kernel's natural samples owed: the nearest group ahead that a
 * class of heavy_pct percent or more of the kernel's threads never
 * measured while another class did (the estimator would borrow it from
 * there); -1: none. A group the kernel never measured is its natural
 * coverage's, which rides the rotation: taken at once for each class as
 * well, PyTorch's recorded stream ended 49 sessions, not 16. */
static int class_short_of(const td_choose_kernel *k, const td_choose_class *c, size_t n,
                          int active)
{
    if (!k->heavy_pct || !(k->threads > 0) || c->threads * 100.0 < k->threads * k->heavy_pct)
        return -1;
    return nearest_short(c->group_samples, 1, k->group_samples, n, active);
}

/* Starts an epoch of renewed natural samples where the kernel's launches
 * reached its end; the nearest group ahead the epoch has not measured,
 * once an epoch started (epoch_end past renew), else -1. */
static int epoch_short_of(td_choose_kernel *k, size_t n, int active)
{
    if (!k->renew)
        return -1;
    if (!k->epoch_end)
        k->epoch_end = k->renew;
    if (k->launches >= k->epoch_end) {
        k->epoch_end = k->launches * 2;
        memset(k->epoch_samples, 0, sizeof k->epoch_samples);
    }
    if (k->epoch_end <= k->renew)
        return -1; /* before the first epoch: the samples are the first ones */
    return nearest_short(k->epoch_samples, 1, NULL, n, active);
}

/* The ordinal of the class's next sample after this one: somewhere in the
 * next stride, on average one stride on. */
static uint64_t next_sample(td_choose_class *c, uint64_t ordinal)
{
    if (c->stride < 2)
        return ordinal + 1;
    return ordinal + c->stride / 2 + 1 + td_xorshift32(&c->rng) % c->stride;
}

static void take(td_choose_kernel *k, td_choose_class *c, int group)
{
    c->samples++;
    c->group_samples[group]++;
    k->group_samples[group]++;
    k->epoch_samples[group]++;
    if (c->samples % TD_CHOOSE_PER_CLASS == 0)
        c->stride *= 2;
}

td_choice td_choose(td_choose_kernel *k, unsigned size_class, size_t n_groups, int active,
                    int every)
{
    td_choice none = {0, -1, 0, 0};
    if (n_groups == 0)
        return none;
    if (n_groups > TD_CHOOSE_MAX_GROUPS)
        n_groups = TD_CHOOSE_MAX_GROUPS;
    td_choose_class *c = class_of(k, size_class);
    if (!c)
        return none;
    uint64_t ordinal = c->seen++;
    double threads = (double)(1ull << (size_class < 63 ? size_class : 63));
    c->threads += threads;
    k->threads += threads;
    k->launches++;
    k->moved = 0;
    int natural = k->covered && k->natural > 0;
    int owed = natural ? group_short_of(k, n_groups, active, k->natural) : -1;
    int configured = active >= 0 && (size_t)active < n_groups;
    if (owed >= 0 && owed != active && configured && k->natural_waits && !k->natural_budgeted &&
        (!k->natural_defer || k->natural_deferred < k->natural_defer)) {
        k->natural_deferred++;
        owed = -1; /* rides the rotation: sampled by the stride meanwhile */
    }
    if (owed < 0 && natural)
        owed = class_short_of(k, c, n_groups, active); /* its launches may not come again */
    int renewed = natural ? epoch_short_of(k, n_groups, active) : -1;
    if (renewed >= 0 && renewed != active && configured && k->natural_waits)
        renewed = -1; /* rides the rotation, as natural samples do */
    int lacking = !k->covered                       ? group_short_of(k, n_groups, active, 1)
                  : natural && !k->natural_budgeted ? owed
                                                    : -1;
    if (lacking >= 0) {
        if (natural)
            k->natural_deferred = 0;
        take(k, c, lacking);
        if (ordinal >= c->next)
            c->next = next_sample(c, ordinal);
        return (td_choice){1, lacking, 1, natural};
    }
    if (ordinal < c->next && !every)
        return none;
    int group = least_measured(c->group_samples, k->group_samples, n_groups, active);
    if (owed >= 0 && k->natural_budgeted)
        group = owed; /* moves even where the budget pays the kernel none */
    else if (renewed >= 0)
        group = renewed; /* so does a renewed one */
    else if (k->stay && configured)
        group = active;
    if (configured && group != active && !every && k->deferred < TD_CHOOSE_DEFER) {
        k->deferred++; /* the class's next launch asks again */
        c->next = ordinal + 1;
        return none;
    }
    k->deferred = 0;
    c->next = next_sample(c, ordinal);
    k->moved = configured && group != active;
    k->moves += (uint32_t)k->moved;
    take(k, c, group);
    return (td_choice){1, group, 0, 0};
}

int td_choose_natural_may_move(uint64_t launches, uint64_t served_at, uint64_t idle)
{
    return launches >= served_at + idle;
}

void td_choose_dropped(td_choose_kernel *k, unsigned size_class, int group)
{
    if (group < 0 || group >= TD_CHOOSE_MAX_GROUPS)
        return;
    for (size_t i = 0; i < k->n_classes; i++) {
        td_choose_class *c = &k->classes[i];
        if (c->size_class != size_class || c->group_samples[group] == 0)
            continue;
        /* The sample is made up at the class's next launch, so that a
         * budget that refuses samples paces them (budget.c caps what it
         * saves up) instead of leaving gaps of whole strides; and the
         * stride is of samples kept: a doubling this sample made is undone,
         * or a budget that refused several times at a doubling would double
         * it each time and end the class's sampling (td_phases2: no sample
         * after launch 48 of 1,000, H100). */
        c->next = c->seen;
        k->moves -= (uint32_t)k->moved;
        k->moved = 0;
        if (c->samples % TD_CHOOSE_PER_CLASS == 0 && c->stride > 1)
            c->stride /= 2;
        c->samples--;
        c->group_samples[group]--;
        k->group_samples[group]--;
        if (k->epoch_samples[group])
            k->epoch_samples[group]--; /* an epoch under way owes it again */
        return;
    }
}

void td_choose_free(td_choose_kernel *k)
{
    free(k->classes);
    memset(k, 0, sizeof *k);
}
