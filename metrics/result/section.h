/* The optional sections of a result file (docs/RESULT_FORMAT.md), which
 * the result reads, checks, writes and frees without knowing them: the
 * root's "conditions" and "cost", and each device section's "copies",
 * "pc_sampling" and "pm_samples". Each section is a record of functions
 * (like perf's auxtrace ops), listed in td_sections; result_io.c,
 * result_v2.c and result.c walk that table. A device section's record
 * lives in its module's file; the root's two, which only hand the result's
 * td_conditions and td_cost to their modules, in sections.c (see there). A
 * new section is a new record and a row of td_sections, not an edit of
 * the result's code. The result's types are only declared here (struct
 * td_result, struct td_device): this header does not include result.h,
 * whose code (result.c) walks the table, so the two make no circle. */
#ifndef TD_RESULT_SECTION_H
#define TD_RESULT_SECTION_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "metrics/error.h"
#include "metrics/json_field.h"

struct td_result; /* metrics/result/result.h */
struct td_device;

/* A section's functions; NULL where it has no part. The root's functions
 * are for a section of the file's root object, the device's for one in
 * each device section ("topdown-result/2" only: /1 files have none). */
typedef struct td_section {
    const char *key; /* its key in the object that holds it */
    /* 0 when absent (files written before it existed load unchanged),
     * -1 with a message naming c->where when malformed. */
    int (*read_root)(const cJSON *root, struct td_result *res, const td_jctx *c);
    /* What the reader would refuse, refused before writing. */
    int (*check_root)(const struct td_result *res, td_error *err);
    /* Adds the section to root, or nothing when it is empty; -1: out of memory. */
    int (*write_root)(cJSON *root, const struct td_result *res);
    void (*free_root)(struct td_result *res);
    int (*read_device)(const cJSON *dev_obj, struct td_device *dev, const td_jctx *c);
    /* d: the device section's index, for messages. */
    int (*check_device)(const struct td_device *dev, size_t d, td_error *err);
    int (*write_device)(cJSON *dev_obj, const struct td_device *dev);
    void (*free_device)(struct td_device *dev);
} td_section;

/* Each section's functions. */
extern const td_section td_conditions_section; /* sections.c */
extern const td_section td_cost_section;       /* sections.c */
extern const td_section td_copies_section;     /* result_copies.c */
extern const td_section td_pcsamp_section;     /* pcsamp.c */
extern const td_section td_pm_section;         /* pm_samples.c */

/* Every section, in the order the file holds them (sections.c); NULL ends it. */
extern const td_section *const td_sections[];

#endif
