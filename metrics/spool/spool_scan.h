/* The two spool records the collector formats itself with snprintf
 * (topdown/inject/spool_writer.c: td_sw_format_launch and
 * td_sw_emit_kernel_time), nine in ten lines of a long run, read without
 * building a JSON tree. A line matches only in exactly that form, each
 * number a plain integer of at most 19 digits with no leading zero; its
 * values are then the doubles cJSON would hold. Any other line (another
 * record, other spacing, a field more or less) does not match and is read
 * as JSON. */
#ifndef TD_SPOOL_SCAN_H
#define TD_SPOOL_SCAN_H

#include <stddef.h>

/* {"type":"launch","pid":P,"context":C,"id":I,"corr":R,"k":K,
 *  "grid":[X,Y,Z],"block":[X,Y,Z],"stream":S} */
typedef struct td_scan_launch {
    double pid, context, id, corr, k, grid[3], block[3], stream;
} td_scan_launch;

/* {"type":"kernel_time","pid":P,"context":C,"corr":R,"start_ns":T,
 *  "duration_ns":D}, or with ,"res":[R,S,D,C] before the brace (registers,
 *  static and dynamic shared memory, shared memory config: has_res 1) */
typedef struct td_scan_kernel_time {
    double pid, context, corr, start_ns, duration_ns;
    int has_res;
    double res[4];
} td_scan_kernel_time;

/* 1 when the line (len bytes, no newline) is that record, its values in
 * *out; 0 when it is not. */
int td_scan_launch_line(const char *line, size_t len, td_scan_launch *out);
int td_scan_kernel_time_line(const char *line, size_t len, td_scan_kernel_time *out);

#endif
