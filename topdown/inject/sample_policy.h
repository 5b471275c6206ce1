/* --sample-every: each kernel profiled periodically over the whole run, so
 * that `report --timeline KERNEL` spans it at bounded cost. Pure policy
 * (no CUPTI): the injection library asks it at each launch of a kernel
 * (topdown/inject/measure_policy.c, graphs.c) and tests drive it with simulated launches.
 *
 * A timeline point is a burst of consecutive invocations that together
 * measure every replay-free counter group once (one invocation when the
 * full set is replayed). A point starts at the kernel's first invocation,
 * then every N invocations ("--sample-every N", counted from the start of
 * the previous point) or every T of the kernel's own GPU time
 * ("--sample-every 5ms": the time of its invocations since the previous
 * point started, each estimated by its measured mean duration). Within a
 * burst the group the context has configured is taken first when the point
 * still lacks it, which saves a configuration switch. */
#ifndef TD_SAMPLE_POLICY_H
#define TD_SAMPLE_POLICY_H

#include <stddef.h>

#include "metrics/error.h"

typedef enum td_sample_unit {
    TD_SAMPLE_OFF,
    TD_SAMPLE_LAUNCHES, /* every N invocations */
    TD_SAMPLE_TIME,     /* every T ns of the kernel's GPU time */
} td_sample_unit;

typedef struct td_sample_every {
    td_sample_unit unit;
    long every;         /* TD_SAMPLE_LAUNCHES: N >= 1 */
    double every_ns;    /* TD_SAMPLE_TIME: T > 0 */
} td_sample_every;

/* "N" (a whole number >= 1) or a time with its unit: "5ms", "250us",
 * "0.5s", "100000ns". NULL or "" is off. A bad value is an error naming
 * it and the forms taken. */
int td_sample_every_parse(const char *text, td_sample_every *out, td_error *err);

#define TD_SAMPLE_MAX_GROUPS 32
#define TD_SAMPLE_FULL_SET (-1) /* TD_GROUP_ALL: the full set, by replay */

/* One kernel's state; start from zero. */
typedef struct td_sample_kernel {
    long invocations;   /* all invocations seen */
    long since;         /* invocations since the current/last point began */
    double since_ns;    /* their estimated GPU time */
    unsigned measured;  /* groups the current point has (bit g) */
    int in_point;       /* a burst is being collected */
    long burst;         /* invocations of the current burst */
    long points;        /* points begun */
} td_sample_kernel;

/* One invocation of the kernel: 1 when it is to be sampled, with *group
 * the counter group the point wants (TD_SAMPLE_FULL_SET when n_groups is
 * 0). active_group: the group the context has configured now (-1: none);
 * est_ns: the kernel's mean duration so far (0: unknown). The caller may
 * measure the full set instead (a kernel's replay): it says what it
 * measured with td_sample_taken. */
int td_sample_decide(const td_sample_every *p, td_sample_kernel *k, size_t n_groups,
                     int active_group, double est_ns, int *group);

/* The sampled invocation measured group (TD_SAMPLE_FULL_SET: every
 * metric, which completes the point). */
void td_sample_taken(td_sample_kernel *k, size_t n_groups, int group);

#endif
