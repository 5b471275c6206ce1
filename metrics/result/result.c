/* The result in memory: building and freeing it. Reading and writing the
 * file: result_io.c (header, load, save), result_device.c (the identity
 * of a device section), result_v1.c and result_v2.c (the launch tables),
 * and the optional sections of section.h. */
#include "metrics/result/result.h"

#include "metrics/result/section.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building ---------------------------------------------------------- */

int td_result_append_note(td_result *res, const char *text)
{
    int had = res->note && res->note[0];
    size_t len = (had ? strlen(res->note) + 2 : 0) + strlen(text) + 1;
    char *note = malloc(len);
    if (!note)
        return -1;
    snprintf(note, len, "%s%s%s", had ? res->note : "", had ? "; " : "", text);
    free(res->note);
    res->note = note;
    return 0;
}

int td_result_set_collection(td_result *res, const char *mode, const char *text)
{
    char *copy = td_strdup(mode);
    if (!copy || td_result_append_note(res, text)) {
        free(copy);
        return -1;
    }
    free(res->replay_mode);
    res->replay_mode = copy;
    return 0;
}

int td_result_budget_exceeded(const td_result *res, char *why, size_t size)
{
    static const char *const unbudgeted[] = {"application", "time-sampled"};
    if (size)
        why[0] = '\0';
    for (size_t i = 0; res->replay_mode && i < sizeof unbudgeted / sizeof *unbudgeted; i++)
        if (strcmp(res->replay_mode, unbudgeted[i]) == 0)
            return 0;
    return td_cost_over_budget(&res->cost, res->overhead_pct, why, size);
}

size_t td_result_most_groups(const td_result *res)
{
    size_t groups = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        if (res->devices[d].n_groups > groups)
            groups = res->devices[d].n_groups;
    return groups;
}

td_device *td_result_add_device(td_result *res, td_error *err)
{
    td_device *bigger = realloc(res->devices, (res->n_devices + 1) * sizeof *bigger);
    if (!bigger) {
        td_fail(err, "out of memory");
        return NULL;
    }
    res->devices = bigger;
    td_device *dev = &res->devices[res->n_devices++];
    memset(dev, 0, sizeof *dev);
    return dev;
}

int td_device_set_metrics(td_device *dev, const char *const *names, size_t n,
                          td_error *err)
{
    for (size_t i = 0; i < dev->n_launches; i++)
        if (dev->launches[i].counters)
            return td_fail(err, "metrics of a device section are fixed once launches have "
                           "counters");
    for (size_t i = 0; i < n; i++)
        if (!names[i] || !names[i][0])
            return td_fail(err, "metric %zu of the device section has no name", i);
    for (size_t i = 0; i < dev->n_metrics; i++)
        free(dev->metrics[i]);
    free(dev->metrics);
    dev->n_metrics = 0;
    dev->metrics = calloc(n ? n : 1, sizeof *dev->metrics);
    if (!dev->metrics)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        dev->metrics[i] = td_strdup(names[i]);
        if (!dev->metrics[i])
            return td_fail(err, "out of memory");
        dev->n_metrics++;
    }
    return 0;
}

const char *td_device_intern(td_device *dev, const char *name)
{
    return td_names_intern(&dev->names, name);
}

/* Room for need launches in all. */
static int reserve_launches(td_device *dev, size_t need, td_error *err)
{
    if (need <= dev->cap_launches)
        return 0;
    size_t cap = dev->cap_launches ? dev->cap_launches * 2 : 64;
    if (cap < need)
        cap = need;
    td_launch *bigger = realloc(dev->launches, cap * sizeof *bigger);
    if (!bigger)
        return td_fail(err, "out of memory");
    dev->launches = bigger;
    dev->cap_launches = cap;
    return 0;
}

int td_device_reserve_launches(td_device *dev, size_t n, td_error *err)
{
    return reserve_launches(dev, dev->n_launches + n, err);
}

td_launch *td_device_add_launch(td_device *dev, const char *kernel,
                                const double *counters, td_error *err)
{
    const char *name = td_device_intern(dev, kernel && kernel[0] ? kernel : "?");
    if (!name) {
        td_fail(err, "out of memory");
        return NULL;
    }
    return td_device_append_launch(dev, name, counters, err);
}

td_launch *td_device_append_launch(td_device *dev, const char *interned_kernel,
                                   const double *counters, td_error *err)
{
    if (reserve_launches(dev, dev->n_launches + 1, err))
        return NULL;
    td_launch *l = &dev->launches[dev->n_launches];
    memset(l, 0, sizeof *l);
    l->group = TD_GROUP_ALL;
    l->kernel = interned_kernel;
    if (counters) {
        l->counters = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *l->counters);
        if (!l->counters) {
            td_fail(err, "out of memory");
            return NULL;
        }
        memcpy(l->counters, counters, dev->n_metrics * sizeof *l->counters);
        l->profiled = 1;
    }
    dev->n_launches++;
    return l;
}

int td_device_metric_index(const td_device *dev, const char *name)
{
    for (size_t i = 0; i < dev->n_metrics; i++)
        if (strcmp(dev->metrics[i], name) == 0)
            return (int)i;
    return -1;
}

void td_counter_groups_free(td_counter_group *groups, size_t n)
{
    for (size_t g = 0; g < n; g++)
        free(groups[g].metrics);
    free(groups);
}

int td_device_set_groups(td_device *dev, const td_counter_group *groups, size_t n,
                         td_error *err)
{
    td_counter_group *copy = calloc(n ? n : 1, sizeof *copy);
    if (!copy)
        return td_fail(err, "out of memory");
    for (size_t g = 0; g < n; g++) {
        copy[g].metrics = malloc((groups[g].n ? groups[g].n : 1) * sizeof *copy[g].metrics);
        if (!copy[g].metrics) {
            td_counter_groups_free(copy, g);
            return td_fail(err, "out of memory");
        }
        copy[g].n = groups[g].n;
        for (size_t i = 0; i < groups[g].n; i++) {
            if (groups[g].metrics[i] >= dev->n_metrics) {
                td_counter_groups_free(copy, g + 1);
                return td_fail(err, "counter group %zu names metric %zu of %zu", g,
                               groups[g].metrics[i], dev->n_metrics);
            }
            copy[g].metrics[i] = groups[g].metrics[i];
        }
    }
    td_counter_groups_free(dev->groups, dev->n_groups);
    dev->groups = copy;
    dev->n_groups = n;
    return 0;
}

/* ---- freeing ----------------------------------------------------------- */

static void free_device(td_device *dev)
{
    for (size_t i = 0; i < dev->n_launches; i++)
        free(dev->launches[i].counters);
    free(dev->launches);
    td_names_free(&dev->names);
    for (size_t i = 0; i < dev->n_metrics; i++)
        free(dev->metrics[i]);
    free(dev->metrics);
    td_counter_groups_free(dev->groups, dev->n_groups);
    free(dev->name);
    free(dev->chip);
    free(dev->arch);
    free(dev->origin);
    for (const td_section *const *s = td_sections; *s; s++)
        if ((*s)->free_device)
            (*s)->free_device(dev);
}

void td_result_free(td_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->n_devices; i++)
        free_device(&res->devices[i]);
    free(res->devices);
    for (size_t i = 0; i < res->argc; i++)
        free(res->argv[i]);
    free(res->argv);
    free(res->tool_version);
    free(res->created);
    free(res->note);
    free(res->status);
    free(res->replay_mode);
    for (const td_section *const *s = td_sections; *s; s++)
        if ((*s)->free_root)
            (*s)->free_root(res);
    memset(res, 0, sizeof *res);
}

double td_launch_threads(const unsigned grid[3], const unsigned block[3])
{
    double threads = 1.0;
    for (int i = 0; i < 3; i++)
        threads *= (double)(grid[i] ? grid[i] : 1) * (double)(block[i] ? block[i] : 1);
    return threads;
}

unsigned td_launch_size_class(const unsigned grid[3], const unsigned block[3])
{
    return td_threads_size_class(td_launch_threads(grid, block));
}

unsigned td_threads_size_class(double threads)
{
    unsigned cls = 0;
    while (threads >= 2.0 && cls < 63) {
        threads /= 2.0;
        cls++;
    }
    return cls;
}

size_t td_device_full_set(const td_device *dev)
{
    return dev->n_full && dev->n_full < dev->n_metrics ? dev->n_full : dev->n_metrics;
}

int td_launch_measured(const td_device *dev, const td_launch *l, int metric)
{
    if (metric < 0)
        return 0;
    if (l->group == TD_GROUP_ALL)
        return (size_t)metric < td_device_full_set(dev);
    if (l->group < 0 || (size_t)l->group >= dev->n_groups)
        return 0;
    const td_counter_group *g = &dev->groups[l->group];
    for (size_t i = 0; i < g->n; i++)
        if (g->metrics[i] == (size_t)metric)
            return 1;
    return 0;
}
