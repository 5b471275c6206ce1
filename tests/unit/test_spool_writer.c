/* The injection library's spool writer (topdown/inject/spool_writer.c)
 * against the reader (metrics/spool/spool.c): kernel records and compact launch
 * and kernel_time lines from two threads at once, buffered and flushed,
 * read back launch by launch; a line longer than the buffer; errors and
 * warnings written at once, and the buffer after half a second; a fork that
 * must not repeat the parent's buffered lines; a launch naming an
 * undefined k; a cut last line. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"
#include "topdown/inject/spool_writer.h"

enum { PER_THREAD = 20000, KERNELS_PER_THREAD = 3 };

static char path[4096];

static long file_size(void)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void open_fresh(const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/td_spool_writer_%ld_%s.spool", dir && *dir ? dir : "/tmp",
             (long)getpid(), name);
    unlink(path);
    CHECK(td_sw_open(path) == 0);
}

static void emit_head(uint32_t context)
{
    cJSON *start = td_sw_record("start");
    cJSON_AddStringToObject(start, "format", TD_SPOOL_FORMAT);
    CHECK(td_sw_emit(start) == 0);
    cJSON *dev = td_sw_record("device");
    cJSON_AddNumberToObject(dev, "context", context);
    cJSON_AddNumberToObject(dev, "device", 0);
    CHECK(td_sw_emit(dev) == 0);
}

static void emit_end(void)
{
    CHECK(td_sw_emit(td_sw_record("end")) == 0);
    td_sw_flush();
}

/* The expected shape of launch id. */
static td_sw_launch launch_of(uint64_t id, uint64_t k)
{
    td_sw_launch l = {.context = 1, .id = id, .corr = (uint32_t)(id + 1), .k = k,
                      .grid = {(unsigned)id, 2, 3}, .block = {32, (unsigned)(id % 7), 1},
                      .stream = (uint32_t)(id % 5)};
    return l;
}

static void kernel_name(uint64_t k, char *buf, size_t size)
{
    snprintf(buf, size, "void kern%llu<float>(float*, \"q\")", (unsigned long long)k);
}

/* Thread t: its kernels' records, then its launches (ids t, t + 2, ...),
 * each with its kernel_time, a warning halfway. */
/* Loads the spool at path; 1 when it loaded, else its error on stderr. */
static int load_spool(td_result *res, td_spool_summary *sum)
{
    td_error err = {{0}};
    memset(res, 0, sizeof *res);
    if (td_spool_load(path, res, sum, &err) == 0)
        return 1;
    fprintf(stderr, "%s\n", err.msg);
    return 0;
}

static void *emitter(void *arg)
{
    uint64_t t = (uint64_t)(uintptr_t)arg;
    for (uint64_t i = 0; i < KERNELS_PER_THREAD; i++) {
        char name[96];
        uint64_t k = t * KERNELS_PER_THREAD + i;
        kernel_name(k, name, sizeof name);
        if (td_sw_emit_kernel(k, name, "_Z4kernPf") != 0)
            return (void *)1;
    }
    for (uint64_t i = 0; i < PER_THREAD; i++) {
        uint64_t id = 2 * i + t;
        td_sw_launch l = launch_of(id, t * KERNELS_PER_THREAD + i % KERNELS_PER_THREAD);
        if (td_sw_emit_launch(&l) != 0 || td_sw_emit_kernel_time(1, l.corr, id, id + 100, NULL) != 0)
            return (void *)1;
        if (i == PER_THREAD / 2)
            td_sw_warning("thread %llu is halfway", (unsigned long long)t);
    }
    return NULL;
}

static void test_two_threads(void)
{
    open_fresh("threads");
    emit_head(1);
    td_sw_flush();
    long head = file_size();
    /* a kernel whose name is longer than the buffer: written alone */
    char *huge = malloc(100000);
    memset(huge, 'x', 99999);
    huge[99999] = '\0';
    CHECK(td_sw_emit_kernel(99, huge, NULL) == 0);
    CHECK(file_size() > head + 99999);
    head = file_size();
    td_sw_launch one = launch_of(2 * PER_THREAD, 99);
    CHECK(td_sw_emit_launch(&one) == 0);
    CHECK(file_size() == head); /* buffered */
    td_sw_flush();
    CHECK(file_size() > head);
    /* a line added half a second after the last write writes the buffer */
    head = file_size();
    td_sw_warning("written at once");
    CHECK(file_size() > head);
    head = file_size();
    CHECK(td_sw_emit_kernel_time(1, 0, 0, 1, NULL) == 0);
    CHECK(file_size() == head);
    nanosleep(&(struct timespec){0, 600000000}, NULL);
    CHECK(td_sw_emit_kernel_time(1, 0, 0, 1, NULL) == 0);
    CHECK(file_size() > head);

    pthread_t threads[2];
    for (uintptr_t t = 0; t < 2; t++)
        CHECK(pthread_create(&threads[t], NULL, emitter, (void *)t) == 0);
    for (int t = 0; t < 2; t++) {
        void *rc = (void *)1;
        pthread_join(threads[t], &rc);
        CHECK(rc == NULL);
    }
    emit_end();

    td_result res;
    td_spool_summary sum;
    int ok = load_spool(&res, &sum);
    CHECK(ok);
    CHECK(td_spool_complete(&sum));
    CHECK(sum.launches == 2 * PER_THREAD + 1);
    CHECK(sum.timed == 2 * PER_THREAD);
    CHECK(sum.warnings && strstr(sum.warnings, "thread 1 is halfway"));
    CHECK(res.n_devices == 1);
    size_t bad = 0;
    if (ok && res.n_devices == 1 && res.devices[0].n_launches == 2 * PER_THREAD + 1) {
        const td_launch *l = res.devices[0].launches; /* in id order */
        for (uint64_t id = 0; id < 2 * PER_THREAD; id++) {
            uint64_t t = id % 2, i = id / 2;
            td_sw_launch want = launch_of(id, t * KERNELS_PER_THREAD + i % KERNELS_PER_THREAD);
            char name[96];
            kernel_name(want.k, name, sizeof name);
            bad += l[id].id != id || strcmp(l[id].kernel, name) != 0 ||
                   !l[id].mangled || strcmp(l[id].mangled, "_Z4kernPf") != 0 ||
                   memcmp(l[id].grid, want.grid, sizeof want.grid) != 0 ||
                   memcmp(l[id].block, want.block, sizeof want.block) != 0 ||
                   l[id].stream != want.stream || l[id].start_ns != id ||
                   l[id].duration_ns != (double)(id + 100) || l[id].profiled;
        }
        CHECK(strcmp(l[2 * PER_THREAD].kernel, huge) == 0 && !l[2 * PER_THREAD].mangled);
    }
    CHECK(bad == 0);
    td_spool_summary_free(&sum);
    td_result_free(&res);
    free(huge);
    unlink(path);
}

/* The hand-built launch and kernel_time lines are snprintf's to the byte,
 * over random values of every width, and refuse a buffer one byte short. */
static void test_lines_as_snprintf(void)
{
    uint64_t state = 88172645463325252ull;
    int same = 1, short_refused = 1;
    for (int i = 0; i < 20000 && same; i++) {
        uint64_t r[8];
        for (int j = 0; j < 8; j++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            r[j] = state >> (state % 64); /* every width, 0 included */
        }
        td_sw_launch l = {.context = (uint32_t)r[0], .id = r[1], .corr = (uint32_t)r[2],
                          .k = r[3], .grid = {(unsigned)r[4], (unsigned)(r[4] >> 32), 1},
                          .block = {(unsigned)r[5], 0, (unsigned)(r[5] >> 40)},
                          .stream = (uint32_t)r[6]};
        long pid = i % 3 == 0 ? -(long)(r[7] >> 33) : (long)(r[7] >> 2);
        char want[400], got[400];
        snprintf(want, sizeof want,
                 "{\"type\":\"launch\",\"pid\":%ld,\"context\":%" PRIu32 ",\"id\":%" PRIu64
                 ",\"corr\":%" PRIu32 ",\"k\":%" PRIu64 ",\"grid\":[%u,%u,%u],"
                 "\"block\":[%u,%u,%u],\"stream\":%" PRIu32 "}\n",
                 pid, l.context, l.id, l.corr, l.k, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                 l.block[1], l.block[2], l.stream);
        size_t n = td_sw_format_launch(got, sizeof got, pid, &l);
        same &= n == strlen(want) && strcmp(got, want) == 0;
        short_refused &= td_sw_format_launch(got, strlen(want), pid, &l) == 0;
        snprintf(want, sizeof want,
                 "{\"type\":\"kernel_time\",\"pid\":%ld,\"context\":%" PRIu32
                 ",\"corr\":%" PRIu32 ",\"start_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64 "}\n",
                 pid, (uint32_t)r[0], (uint32_t)r[2], r[1], r[3]);
        n = td_sw_format_kernel_time(got, sizeof got, pid, (uint32_t)r[0], (uint32_t)r[2], r[1],
                                     r[3], NULL);
        same &= n == strlen(want) && strcmp(got, want) == 0;
        short_refused &= td_sw_format_kernel_time(got, strlen(want), pid, (uint32_t)r[0],
                                                  (uint32_t)r[2], r[1], r[3], NULL) == 0;
        /* with the launch's resources, last (the reader's scanner takes
         * them there) */
        uint32_t res[TD_SW_RES_FIELDS] = {(uint32_t)r[4] % 256, (uint32_t)(r[5] % 49153),
                                          (uint32_t)r[6], UINT32_MAX};
        char with_res[400];
        snprintf(with_res, sizeof with_res, "%.*s,\"res\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32
                 ",%" PRIu32 "]}\n", (int)(strlen(want) - 2), want, res[0], res[1], res[2],
                 res[3]);
        n = td_sw_format_kernel_time(got, sizeof got, pid, (uint32_t)r[0], (uint32_t)r[2], r[1],
                                     r[3], res);
        same &= n == strlen(with_res) && strcmp(got, with_res) == 0;
        short_refused &= td_sw_format_kernel_time(got, strlen(with_res), pid, (uint32_t)r[0],
                                                  (uint32_t)r[2], r[1], r[3], res) == 0;
        if (!same)
            fprintf(stderr, "want %sgot  %s", want, got);
    }
    CHECK(same);
    CHECK(short_refused);
}

/* Extreme values print as the reader's integer checks take them. */
static void test_extremes(void)
{
    td_sw_launch l = {.context = UINT32_MAX, .id = (1ull << 53), .corr = UINT32_MAX,
                      .k = (1ull << 53), .grid = {UINT32_MAX, UINT32_MAX, UINT32_MAX},
                      .block = {1024, 1, 64}, .stream = UINT32_MAX};
    char line[320];
    size_t n = td_sw_format_launch(line, sizeof line, 4294967295L, &l);
    CHECK(n > 0 && line[n - 1] == '\n' && strlen(line) == n);
    CHECK(strstr(line, "\"grid\":[4294967295,4294967295,4294967295]") != NULL);
    char small[40];
    CHECK(td_sw_format_launch(small, sizeof small, 1, &l) == 0); /* too small: nothing */
    char text[1024];
    snprintf(text, sizeof text,
             "{\"type\":\"start\",\"pid\":4294967295,\"format\":\"" TD_SPOOL_FORMAT "\"}\n"
             "{\"type\":\"device\",\"pid\":4294967295,\"context\":4294967295,\"device\":0}\n"
             "{\"type\":\"kernel\",\"pid\":4294967295,\"k\":9007199254740992,\"name\":\"big\"}\n"
             "%s",
             line);
    td_result res;
    td_spool_summary sum;
    td_error err = {{0}};
    memset(&res, 0, sizeof res);
    int ok = td_spool_parse(text, strlen(text), "extremes", &res, &sum, &err) == 0;
    if (!ok)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(ok && res.n_devices == 1 && res.devices[0].n_launches == 1);
    if (ok && res.n_devices == 1 && res.devices[0].n_launches == 1) {
        const td_launch *x = &res.devices[0].launches[0];
        CHECK_STR(x->kernel, "big");
        CHECK(x->grid[0] == UINT32_MAX && x->block[2] == 64 && x->stream == UINT32_MAX);
        CHECK(x->id == (1ull << 53));
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

/* A fork()ed child writes its own lines under its pid, and never the
 * parent's buffered ones. */
static void test_fork(void)
{
    open_fresh("fork");
    emit_head(1);
    CHECK(td_sw_emit_kernel(0, "parent_kernel", NULL) == 0);
    td_sw_launch l = launch_of(0, 0);
    CHECK(td_sw_emit_launch(&l) == 0); /* buffered at the fork */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        emit_head(2);
        td_sw_emit_kernel(0, "child_kernel", NULL);
        td_sw_launch c = launch_of(1, 0);
        c.context = 2;
        td_sw_emit_launch(&c);
        exit(0); /* its buffer goes out at unload */
    }
    int status = 1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && status == 0);
    emit_end();
    td_result res;
    td_spool_summary sum;
    int ok = load_spool(&res, &sum);
    CHECK(ok && sum.processes == 2 && sum.launches == 2 && res.n_devices == 2);
    for (size_t d = 0; ok && d < res.n_devices; d++) {
        const td_device *dev = &res.devices[d];
        CHECK(dev->n_launches == 1);
        if (dev->n_launches == 1)
            CHECK_STR(dev->launches[0].kernel,
                      dev->context == 1 ? "parent_kernel" : "child_kernel");
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    unlink(path);
}

static int load_fails_with(const char *needle)
{
    td_result res;
    td_spool_summary sum;
    td_error err = {{0}};
    memset(&res, 0, sizeof res);
    int failed = td_spool_load(path, &res, &sum, &err) != 0;
    if (!failed || !strstr(err.msg, needle))
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.msg, needle);
    td_spool_summary_free(&sum);
    td_result_free(&res);
    return failed && strstr(err.msg, needle);
}

/* A launch whose k has no kernel record of its process is an error naming
 * the line; a cut last line is dropped and counted. */
static void test_bad_k_and_cut_line(void)
{
    open_fresh("badk");
    emit_head(1);
    td_sw_launch l = launch_of(0, 5);
    td_sw_emit_launch(&l);
    td_sw_flush();
    char msg[96];
    snprintf(msg, sizeof msg, "line 3: kernel 5 of process %ld has no kernel record", td_sw_pid());
    CHECK(load_fails_with(msg));
    unlink(path);

    open_fresh("cut");
    emit_head(1);
    CHECK(td_sw_emit_kernel(5, "k5", NULL) == 0);
    td_sw_emit_launch(&l);
    td_sw_flush();
    FILE *f = fopen(path, "a");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"type\":\"launch\",\"pid\":1,\"context\":1,\"id\":1,\"k\":5,\"gr", f);
        fclose(f);
    }
    td_result res;
    td_spool_summary sum;
    CHECK(load_spool(&res, &sum));
    CHECK(sum.truncated == 1 && sum.launches == 1 && !td_spool_complete(&sum));
    td_spool_summary_free(&sum);
    td_result_free(&res);
    unlink(path);
}

int main(void)
{
    test_lines_as_snprintf();
    test_extremes();
    test_two_threads();
    test_fork();
    test_bad_k_and_cut_line();
    return td_check_summary();
}
