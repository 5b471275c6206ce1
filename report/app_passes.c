/* The join of `--replay-mode application` passes (app_passes.h). The
 * joined values are kept apart from base until the end, so that a launch
 * some pass missed keeps exactly its first-pass counters: base's counters
 * of a group launch hold that group's values and zeros, never a mix. */
#include "report/app_passes.h"

#include "metrics/arch/groups.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A launch's measured groups are a bitmask. */
_Static_assert(TD_MAX_GROUPS <= 32, "a launch's groups are the bits of a uint32_t");

#define NO_PARTNER SIZE_MAX

/* A launch by kernel name; sorted by name, then launch order, its index
 * among the same kernel's launches is its ordinal. */
typedef struct ap_entry {
    const char *kernel;
    size_t launch;
} ap_entry;

/* The join of one device section of base. */
typedef struct ap_section {
    size_t n_launches, n_metrics, n_groups; /* base's, at begin */
    uint32_t all_groups;     /* every group of the section */
    uint32_t *metric_groups; /* per metric: the groups that hold it */
    uint32_t *marks;         /* per launch: groups measured so far; 0: not joined
                                (timed only, every metric already, no valid group) */
    double *values;          /* n_launches x n_metrics: the values joined so far */
    ap_entry *order;         /* base's launches by kernel, then launch order */
} ap_section;

struct td_app_passes {
    ap_section *sections;
    size_t n_sections;
    size_t passes;
    size_t unmatched;
};

static uint32_t group_bit(size_t g)
{
    return (uint32_t)1 << g;
}

static const char *kernel_name(const td_launch *l)
{
    return l->kernel ? l->kernel : "";
}

/* A group launch of base that the passes can complete. */
static int joinable(const td_device *dev, const td_launch *l)
{
    return l->profiled && l->counters && l->group >= 0 && (size_t)l->group < dev->n_groups &&
           dev->n_groups <= TD_MAX_GROUPS;
}

static int by_kernel_then_order(const void *a, const void *b)
{
    const ap_entry *x = a, *y = b;
    int c = strcmp(x->kernel, y->kernel);
    if (c)
        return c;
    return (x->launch > y->launch) - (x->launch < y->launch);
}

/* Every launch of dev (profiled or not: each takes its ordinal), by kernel. */
static ap_entry *sort_launches(const td_device *dev, td_error *err)
{
    ap_entry *order = malloc((dev->n_launches ? dev->n_launches : 1) * sizeof *order);
    if (!order) {
        td_fail(err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < dev->n_launches; i++)
        order[i] = (ap_entry){kernel_name(&dev->launches[i]), i};
    qsort(order, dev->n_launches, sizeof *order, by_kernel_then_order);
    return order;
}

static void section_free(ap_section *s)
{
    free(s->metric_groups);
    free(s->marks);
    free(s->values);
    free(s->order);
}

static void note_groups(ap_section *s, const td_device *dev)
{
    if (dev->n_groups > TD_MAX_GROUPS)
        return; /* no launch is joinable: all_groups stays 0 */
    for (size_t g = 0; g < dev->n_groups; g++) {
        s->all_groups |= group_bit(g);
        for (size_t k = 0; k < dev->groups[g].n; k++)
            if (dev->groups[g].metrics[k] < dev->n_metrics)
                s->metric_groups[dev->groups[g].metrics[k]] |= group_bit(g);
    }
}

/* The first pass's own group: its values and its mark. */
static void note_first_pass(ap_section *s, const td_device *dev)
{
    for (size_t i = 0; i < dev->n_launches; i++) {
        const td_launch *l = &dev->launches[i];
        if (!joinable(dev, l))
            continue;
        memcpy(&s->values[i * s->n_metrics], l->counters, s->n_metrics * sizeof *s->values);
        s->marks[i] = group_bit((size_t)l->group);
    }
}

static int section_begin(ap_section *s, const td_device *dev, td_error *err)
{
    s->n_launches = dev->n_launches;
    s->n_metrics = dev->n_metrics;
    s->n_groups = dev->n_groups;
    if (s->n_metrics && s->n_launches > SIZE_MAX / sizeof *s->values / s->n_metrics)
        return td_fail(err, "out of memory");
    size_t cells = s->n_launches * s->n_metrics;
    s->metric_groups = calloc(s->n_metrics ? s->n_metrics : 1, sizeof *s->metric_groups);
    s->marks = calloc(s->n_launches ? s->n_launches : 1, sizeof *s->marks);
    s->values = malloc((cells ? cells : 1) * sizeof *s->values);
    if (!s->metric_groups || !s->marks || !s->values)
        return td_fail(err, "out of memory");
    s->order = sort_launches(dev, err);
    if (!s->order)
        return -1;
    note_groups(s, dev);
    note_first_pass(s, dev);
    return 0;
}

void td_app_passes_free(td_app_passes *ap)
{
    if (!ap)
        return;
    for (size_t d = 0; d < ap->n_sections; d++)
        section_free(&ap->sections[d]);
    free(ap->sections);
    free(ap);
}

int td_app_passes_begin(const td_result *base, td_app_passes **out, td_error *err)
{
    *out = NULL;
    td_app_passes *ap = calloc(1, sizeof *ap);
    if (!ap)
        return td_fail(err, "out of memory");
    ap->sections = calloc(base->n_devices ? base->n_devices : 1, sizeof *ap->sections);
    if (!ap->sections) {
        free(ap);
        return td_fail(err, "out of memory");
    }
    ap->n_sections = base->n_devices;
    ap->passes = 1;
    for (size_t d = 0; d < base->n_devices; d++)
        if (section_begin(&ap->sections[d], &base->devices[d], err)) {
            td_app_passes_free(ap);
            return -1;
        }
    *out = ap;
    return 0;
}

/* base still has the sections, metrics, groups and launches the join
 * was begun on (its state is indexed by them). */
static int base_unchanged(const td_app_passes *ap, const td_result *base)
{
    if (base->n_devices != ap->n_sections)
        return 0;
    for (size_t d = 0; d < ap->n_sections; d++) {
        const ap_section *s = &ap->sections[d];
        const td_device *dev = &base->devices[d];
        if (dev->n_launches != s->n_launches || dev->n_metrics != s->n_metrics ||
            dev->n_groups != s->n_groups)
            return 0;
    }
    return 1;
}

static int same_arch(const td_device *a, const td_device *b)
{
    return strcmp(a->arch ? a->arch : "", b->arch ? b->arch : "") == 0;
}

/* partner[i]: the pass's launch of base launch i's kernel and ordinal, or
 * NO_PARTNER. Both orders are sorted by kernel, then launch order. */
static void pair_launches(const ap_entry *base_order, size_t n_base, const ap_entry *pass_order,
                          size_t n_pass, size_t *partner)
{
    size_t b = 0, p = 0;
    while (b < n_base) {
        const char *kernel = base_order[b].kernel;
        while (p < n_pass && strcmp(pass_order[p].kernel, kernel) < 0)
            p++; /* kernels base never ran, and the last kernel's launches beyond base's */
        for (; b < n_base && strcmp(base_order[b].kernel, kernel) == 0; b++) {
            int same = p < n_pass && strcmp(pass_order[p].kernel, kernel) == 0;
            partner[base_order[b].launch] = same ? pass_order[p++].launch : NO_PARTNER;
        }
    }
}

/* name_map[j]: base metric j's index in the pass's section, or -1. */
static int *map_metrics(const td_device *base_dev, const td_device *pass_dev, td_error *err)
{
    int *name_map = malloc((base_dev->n_metrics ? base_dev->n_metrics : 1) * sizeof *name_map);
    if (!name_map) {
        td_fail(err, "out of memory");
        return NULL;
    }
    for (size_t j = 0; j < base_dev->n_metrics; j++)
        name_map[j] = td_device_metric_index(pass_dev, base_dev->metrics[j]);
    return name_map;
}

/* The pass's launch measured every metric of base's group g. */
static int group_measured(const td_device *base_dev, size_t g, const td_device *pass_dev,
                          const td_launch *pl, const int *name_map)
{
    const td_counter_group *group = &base_dev->groups[g];
    for (size_t k = 0; k < group->n; k++) {
        size_t j = group->metrics[k];
        if (j >= base_dev->n_metrics || !td_launch_measured(pass_dev, pl, name_map[j]))
            return 0;
    }
    return 1;
}

/* The groups of base's section the pass's launch gives: the group it
 * names, or every group where it measured every metric. */
static uint32_t groups_given(const td_device *base_dev, const td_device *pass_dev,
                             const td_launch *pl, const int *name_map)
{
    if (pl->group != TD_GROUP_ALL) {
        size_t g = (size_t)pl->group;
        int given = pl->group >= 0 && g < base_dev->n_groups &&
                    group_measured(base_dev, g, pass_dev, pl, name_map);
        return given ? group_bit(g) : 0;
    }
    uint32_t given = 0;
    for (size_t g = 0; g < base_dev->n_groups; g++)
        if (group_measured(base_dev, g, pass_dev, pl, name_map))
            given |= group_bit(g);
    return given;
}

static int same_shape(const td_launch *a, const td_launch *b)
{
    return memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
           memcmp(a->block, b->block, sizeof a->block) == 0;
}

/* Joins the pass's launch pl (NULL: none) into base launch i; 0 when the
 * match is refused. A metric already measured keeps its value. */
static int join_launch(ap_section *s, const td_device *base_dev, size_t i,
                       const td_device *pass_dev, const td_launch *pl, const int *name_map)
{
    if (!pl || !pl->profiled || !pl->counters || !same_shape(&base_dev->launches[i], pl))
        return 0;
    uint32_t given = groups_given(base_dev, pass_dev, pl, name_map);
    if (!given)
        return 0;
    double *row = &s->values[i * s->n_metrics];
    for (size_t j = 0; j < s->n_metrics; j++)
        if ((s->metric_groups[j] & given) && !(s->metric_groups[j] & s->marks[i]))
            row[j] = pl->counters[name_map[j]];
    s->marks[i] |= given;
    return 1;
}

static size_t count_joinable(const ap_section *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_launches; i++)
        n += s->marks[i] != 0;
    return n;
}

/* Joins the pass's section pass_dev (NULL: it has none that matches) into
 * base's section. */
static int join_section(td_app_passes *ap, ap_section *s, const td_device *base_dev,
                        const td_device *pass_dev, td_error *err)
{
    if (!pass_dev) {
        ap->unmatched += count_joinable(s);
        return 0;
    }
    size_t *partner = malloc((s->n_launches ? s->n_launches : 1) * sizeof *partner);
    ap_entry *pass_order = sort_launches(pass_dev, err);
    int *name_map = map_metrics(base_dev, pass_dev, err);
    int rc = partner && pass_order && name_map ? 0 : td_fail(err, "out of memory");
    if (rc == 0) {
        pair_launches(s->order, s->n_launches, pass_order, pass_dev->n_launches, partner);
        for (size_t i = 0; i < s->n_launches; i++) {
            if (!s->marks[i])
                continue;
            const td_launch *pl =
                partner[i] == NO_PARTNER ? NULL : &pass_dev->launches[partner[i]];
            if (!join_launch(s, base_dev, i, pass_dev, pl, name_map))
                ap->unmatched++;
        }
    }
    free(partner);
    free(pass_order);
    free(name_map);
    return rc;
}

int td_app_passes_add(td_app_passes *ap, const td_result *base, const td_result *pass,
                      td_error *err)
{
    if (!base_unchanged(ap, base))
        return td_fail(err, "application passes: the first pass's result changed during "
                       "the join");
    for (size_t d = 0; d < ap->n_sections; d++) {
        const td_device *base_dev = &base->devices[d];
        const td_device *pass_dev = d < pass->n_devices ? &pass->devices[d] : NULL;
        if (pass_dev && !same_arch(base_dev, pass_dev))
            pass_dev = NULL;
        if (join_section(ap, &ap->sections[d], base_dev, pass_dev, err))
            return -1;
    }
    ap->passes++;
    return 0;
}

/* Base launches measured in every group take every metric's value. */
static void finish_section(const ap_section *s, td_device *dev)
{
    for (size_t i = 0; i < s->n_launches; i++) {
        td_launch *l = &dev->launches[i];
        if (!s->marks[i] || s->marks[i] != s->all_groups)
            continue; /* (a section of no groups has all_groups 0 too) */
        memcpy(l->counters, &s->values[i * s->n_metrics], s->n_metrics * sizeof *l->counters);
        l->group = TD_GROUP_ALL;
    }
}

static void count_launches(const td_result *base, td_app_passes_stats *stats)
{
    for (size_t d = 0; d < base->n_devices; d++)
        for (size_t i = 0; i < base->devices[d].n_launches; i++) {
            const td_launch *l = &base->devices[d].launches[i];
            stats->launches += l->profiled != 0;
            stats->complete += l->profiled && l->group == TD_GROUP_ALL;
        }
}

void td_app_passes_finish(td_app_passes *ap, td_result *base, td_app_passes_stats *stats)
{
    /* a base changed since begin gets nothing: the state's indices are the old ones */
    if (base_unchanged(ap, base))
        for (size_t d = 0; d < ap->n_sections; d++)
            finish_section(&ap->sections[d], &base->devices[d]);
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->passes = ap->passes;
        stats->unmatched = ap->unmatched;
        count_launches(base, stats);
    }
    td_app_passes_free(ap);
}
