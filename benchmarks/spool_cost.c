/* td_spool_cost: the CPU cost per launch of writing the spool, the way the
 * injection library did before issue 23 (a cJSON object per launch with
 * both kernel names, printed, one write(2) each) against the writer now
 * (kernel record once, snprintf into the 64 KiB buffer). Records go to a
 * real file; no GPU, no CUPTI.
 *   td_spool_cost [RECORDS] [DIR]   (default 1000000, $TMPDIR or /tmp) */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "topdown/inject/spool_writer.h"

/* A long C++ name, as PyTorch's and CUTLASS's kernels have. */
static const char NAME[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)";
static const char MANGLED[] =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEENS_6detail5"
    "ArrayIPcLi3EEEEEviT0_T1_";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

/* ---- before: inject.c's emit_launch and spool_writer.c's td_sw_emit ---- */

static FILE *old_file;

static void old_emit(cJSON *rec)
{
    char *text = cJSON_PrintUnformatted(rec);
    cJSON_Delete(rec);
    if (!text)
        return;
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (!line) {
        free(text);
        return;
    }
    line[len] = '\n';
    if (write(fileno(old_file), line, len + 1) < 0)
        perror("write");
    free(line);
}

static cJSON *old_record(const char *type)
{
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "type", type);
    cJSON_AddNumberToObject(rec, "pid", (double)getpid());
    return rec;
}

static void old_launch(const td_sw_launch *l)
{
    cJSON *rec = old_record("launch");
    int grid[3] = {(int)l->grid[0], (int)l->grid[1], (int)l->grid[2]};
    int block[3] = {(int)l->block[0], (int)l->block[1], (int)l->block[2]};
    cJSON_AddNumberToObject(rec, "context", l->context);
    cJSON_AddNumberToObject(rec, "id", (double)l->id);
    cJSON_AddNumberToObject(rec, "corr", l->corr);
    cJSON_AddStringToObject(rec, "kernel", NAME);
    cJSON_AddStringToObject(rec, "mangled", MANGLED);
    cJSON_AddItemToObject(rec, "grid", cJSON_CreateIntArray(grid, 3));
    cJSON_AddItemToObject(rec, "block", cJSON_CreateIntArray(block, 3));
    cJSON_AddNumberToObject(rec, "stream", l->stream);
    old_emit(rec);
}

static void old_kernel_time(uint32_t context, uint32_t corr, uint64_t start, uint64_t dur)
{
    cJSON *rec = old_record("kernel_time");
    cJSON_AddNumberToObject(rec, "context", context);
    cJSON_AddNumberToObject(rec, "corr", corr);
    cJSON_AddNumberToObject(rec, "start_ns", (double)start);
    cJSON_AddNumberToObject(rec, "duration_ns", (double)dur);
    old_emit(rec);
}

/* ---- after: the writer ------------------------------------------------- */

static void new_launch(const td_sw_launch *l)
{
    td_sw_emit_launch(l);
}

static void new_kernel_time(uint32_t context, uint32_t corr, uint64_t start, uint64_t dur)
{
    td_sw_emit_kernel_time(context, corr, start, dur, NULL);
}

/* ---- the loop ----------------------------------------------------------- */

typedef struct path_fns {
    const char *what;
    void (*launch)(const td_sw_launch *);
    void (*kernel_time)(uint32_t, uint32_t, uint64_t, uint64_t);
} path_fns;

static void run(const path_fns *p, int is_new, long n, const char *file)
{
    unlink(file);
    if (is_new) {
        if (td_sw_open(file) != 0) {
            perror(file);
            exit(1);
        }
        td_sw_emit_kernel(0, NAME, MANGLED);
    } else if (!(old_file = fopen(file, "a"))) {
        perror(file);
        exit(1);
    }
    td_sw_launch l = {.context = 1, .k = 0, .grid = {1, 1, 1}, .block = {32, 1, 1}, .stream = 7};
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        l.id = (uint64_t)i;
        l.corr = (uint32_t)i + 1;
        p->launch(&l);
    }
    if (is_new)
        td_sw_flush();
    double t1 = now_s();
    long launch_bytes = size_of(file);
    for (long i = 0; i < n; i++)
        p->kernel_time(1, (uint32_t)i + 1, (uint64_t)i * 5000, 2100 + (uint64_t)(i % 300));
    if (is_new)
        td_sw_flush();
    double t2 = now_s();
    long all_bytes = size_of(file);
    if (!is_new)
        fclose(old_file);
    printf("%-28s launch %7.1f ns/record %6.1f B/record   kernel_time %7.1f ns/record "
           "%5.1f B/record\n",
           p->what, (t1 - t0) * 1e9 / (double)n, (double)launch_bytes / (double)n,
           (t2 - t1) * 1e9 / (double)n, (double)(all_bytes - launch_bytes) / (double)n);
    unlink(file);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR");
    if (n <= 0) {
        fprintf(stderr, "usage: td_spool_cost [RECORDS] [DIR]\n");
        return 2;
    }
    char file[4096];
    snprintf(file, sizeof file, "%s/td_spool_cost_%ld.spool", dir && *dir ? dir : "/tmp",
             (long)getpid());
    printf("td_spool_cost: %ld records per path, file %s (CPU only)\n", n, file);
    static const path_fns old_path = {"before (cJSON, write each)", old_launch, old_kernel_time};
    static const path_fns new_path = {"after (built, buffered)  ", new_launch, new_kernel_time};
    for (int rep = 0; rep < 2; rep++) { /* the first round warms the page cache */
        run(&old_path, 0, n, file);
        run(&new_path, 1, n, file);
    }
    return 0;
}
