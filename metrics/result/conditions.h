/* The measurement conditions of a result (docs/RESULT_FORMAT.md,
 * "conditions"): whether caches were flushed before each profiled pass
 * and whether the GPU clocks were locked, with ncu's names
 * (--cache-control, --clock-control). They move a tree by tens of points,
 * so the report shows them and `topdown diff` warns when two results
 * differ in them. Optional: files written before they existed have none. */
#ifndef TD_CONDITIONS_H
#define TD_CONDITIONS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "metrics/error.h"

typedef struct td_conditions {
    char *cache_control; /* "all", "none"; NULL: not recorded */
    char *clock_control; /* "base", "none", "preset" (locked by someone
                            else, left as found); NULL: not recorded */
    double clock_mhz;    /* graphics clock while the app ran (base, preset);
                            0: unknown or not locked */
} td_conditions;

#define TD_MAX_CLOCK_MHZ 100000

/* The optional "conditions" object of a result's root; name for messages. */
int td_conditions_read(const cJSON *root, td_conditions *out, const char *name,
                       td_error *err);
/* What the reader would refuse (an unknown word, a clock out of range). */
int td_conditions_check(const td_conditions *c, td_error *err);
/* Adds "conditions" to root when anything is recorded; -1 out of memory. */
int td_conditions_add_json(cJSON *root, const td_conditions *c);
int td_conditions_copy(td_conditions *dst, const td_conditions *src);
void td_conditions_free(td_conditions *c);

int td_conditions_recorded(const td_conditions *c);
/* "cache-control all (caches flushed before each profiled pass),
 * clock-control base (locked to base, 1755 MHz)"; "" when nothing is
 * recorded. measured_mhz: the SM clock the launches ran at (0: unknown),
 * said beside a locked clock: "(locked to base, 1980 MHz asked, 1586 MHz
 * measured)". */
void td_conditions_describe(const td_conditions *c, double measured_mhz, char *buf,
                            size_t size);
/* Whether the clocks were locked to a known clock that the launches'
 * measured_mhz misses by more than TD_CLOCK_HELD_MAX of it. */
int td_conditions_clock_missed(const td_conditions *c, double measured_mhz);
#define TD_CLOCK_HELD_MAX 0.10
/* 1 when both results recorded their conditions and they differ. */
int td_conditions_differ(const td_conditions *a, const td_conditions *b);

#endif
