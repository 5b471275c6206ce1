/* Importer for legacy GPUs (CC < 7.5): nvprof CSV output -> td_result,
 * computed with an nvprof arch table (MODEL.md section 5). */
#ifndef TD_NVPROF_H
#define TD_NVPROF_H

#include "metrics/arch/arch.h"
#include "metrics/result/result.h"

/* metrics_csv: `nvprof --csv --metrics <table's metrics> --log-file F app`
 * (one row per kernel and metric, Avg over invocations).
 * times_csv (may be NULL): `nvprof --csv --log-file F app`, whose GPU
 * activities give each kernel's total time; without it kernels weigh
 * equally, and the result says so. Each kernel becomes Invocations
 * launches with the averaged counters and total/Invocations duration. */
int td_nvprof_import(const char *metrics_csv, const char *times_csv,
                     const td_arch *arch, td_result *out, td_error *err);
/* The same from memory (times may be NULL); the names are used in
 * messages only. */
int td_nvprof_import_text(const char *metrics, size_t metrics_len, const char *metrics_name,
                          const char *times, size_t times_len, const char *times_name,
                          const td_arch *arch, td_result *out, td_error *err);

#endif
