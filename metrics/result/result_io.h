/* Between the modules that read and write the result file (result_io.c:
 * header, load, save; result_device.c: a device section's identity;
 * result_v1.c and result_v2.c: the two layouts) and the spool reader
 * (metrics/spool/spool.c, which builds device sections the same way): the
 * ranges a reader accepts, which the writer checks too so that every file
 * written can be read back, a device section's identity, and the entry
 * points of the two layouts. The optional sections do not use it
 * (section.h), nor does the result in memory (result.h, result.c). */
#ifndef TD_RESULT_IO_H
#define TD_RESULT_IO_H

#include <cjson/cJSON.h>
#include <limits.h>

#include "metrics/json_field.h"
#include "metrics/result/result.h"

#define TD_MAX_SM_COUNT 1000000
#define TD_MAX_PASSES 1000000
#define TD_MAX_CC 999
#define TD_MAX_SIGNAL 1024
#define TD_MAX_OVERHEAD_PCT 1e9

typedef struct parse_ctx {
    const char *name; /* file name, for messages */
    td_error *err;
} parse_ctx;

/* ---- a device section's identity (result_device.c) ---- */

/* Index, context, names, compute capability, passes, metrics and counter
 * groups. c->where names the device section. */
int td_result_read_device_head(const cJSON *obj, td_device *dev, const td_jctx *c);
/* The profiled counters of a launch: group g's values in group order, or
 * every metric when g is TD_GROUP_ALL; expanded into out (n_metrics, 0
 * where the group has no value). what and index (>= 0) name the array. */
int td_result_read_group_counters(const cJSON *arr, const td_device *dev, int group,
                                  double *out, const td_jctx *c, const char *what,
                                  long index);
/* "groups": [[metric indices], ...], optional; checked: indices in range,
 * no group empty, no metric twice in a group. */
int td_result_read_groups(const cJSON *obj, td_device *dev, const td_jctx *c);
/* A launch's registers and shared memory: [registers, static shared,
 * dynamic shared, shared config], each an integer that fits 32 bits
 * ("config_resources" rows, the spool's "res"); recorded set to 1. what
 * and index (>= 0) name the array in messages. */
int td_result_read_resources(const cJSON *row, const char *what, long index,
                             td_launch_resources *out, const td_jctx *c);
/* What the reader would refuse in device section d's identity. */
int td_result_check_device_head(const td_device *dev, size_t d, td_error *err);
cJSON *td_result_device_head_json(const td_device *dev);

/* ---- the layouts ---- */

/* /1 (result_v1.c, read only): device section dev_index's launches. */
int td_result_read_v1_launches(const cJSON *obj, td_device *dev, size_t dev_index,
                               const parse_ctx *ctx);
/* /2 (result_v2.c): the file's kernel table and each device section. */
int td_result_read_v2(const cJSON *root, td_result *res, const parse_ctx *ctx);
/* Adds the /2 kernel table and device sections to root; -1 (a message in
 * err) when out of memory. */
int td_result_write_v2(cJSON *root, const td_result *res, td_error *err);

#endif
