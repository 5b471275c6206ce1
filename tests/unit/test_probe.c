/* TOPDOWN_DEBUG's probe (topdown/inject/probe.c), without CUPTI: off, a
 * span costs nothing and says nothing; on, each span kind is counted and
 * timed, and the report at exit says calls, total and mean per kind, and
 * nothing for a kind never taken. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "td_testlib.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/probe.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* The probe's report, written to stderr, read back from a file. */
static void report_to(const char *path, char *text, size_t size)
{
    fflush(stderr);
    int saved = dup(2);
    CHECK(freopen(path, "w", stderr) != NULL);
    td_probe_report();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, size - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
}

int main(void)
{
    char dir[64], path[512], text[4096];
    td_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/probe.txt", dir);

    td_debug_init(0);
    CHECK(td_probe_now() == 0);
    td_probe_count(TD_SPAN_START, td_probe_now()); /* off: not counted */

    td_debug_init(1);
    for (int i = 0; i < 3; i++) {
        unsigned long long since = td_probe_now();
        CHECK(since > 0);
        sleep_ms(2);
        td_probe_count(TD_SPAN_STOP, since);
    }
    td_probe_count(TD_SPAN_PUSH, 0); /* a span begun while off: not counted */
    report_to(path, text, sizeof text);
    printf("%s", text);
    CHECK(strstr(text, "Stop: 3, ") != NULL);
    double total = 0, each = 0;
    const char *stop = strstr(text, "Stop: 3, ");
    CHECK(stop && sscanf(stop, "Stop: 3, %lf ms in all, %lf ms each", &total, &each) == 2);
    CHECK(total >= 6.0 && total < 1000.0);
    CHECK(each >= 2.0 && each * 3 > total - 0.1 && each * 3 < total + 0.1); /* total: 0.1 ms */
    CHECK(strstr(text, "Start:") == NULL);    /* taken only while off */
    CHECK(strstr(text, "PushRange:") == NULL); /* begun while off */
    CHECK(strstr(text, "traced launches") == NULL); /* no traced launch committed */
    td_test_cleanup(dir);
    return td_check_summary();
}
