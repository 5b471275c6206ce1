/* What was measured is written at exit and before a deadly signal: open
 * batches, PM and PC samples, activity records and the end record. */
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "topdown/inject/exit.h"
#include "topdown/inject/kernel_times.h"

#include "topdown/inject/activity.h"
#include "topdown/inject/batch.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/probe.h"
#include "topdown/inject/launch_gate.h"
#include "topdown/inject/pcsampling.h"
#include "topdown/inject/pmsampling.h"
#include "topdown/inject/spool_writer.h"
#include "topdown/inject/state.h"
#include "topdown/inject/window.h"

/* ---- flushing at exit and on signals ------------------------------------ */

static void flush_all(void)
{
    for (ctx_state *c = td_g.contexts; c; c = c->next) {
        close_window(c);
        say_start_failures(c);
    }
    td_pms_stop_all();
    td_activity_flush();
}

/* exit_s: the end of the run beyond what the budget's spent_s took of it. */
static void emit_end(double exit_s)
{
    cJSON *rec = td_sw_record("end");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "launches", (double)td_g.launches);
    cJSON_AddNumberToObject(rec, "profiled", (double)td_g.profiled);
    cJSON_AddNumberToObject(rec, "budget_skipped", (double)td_g.budget_skipped);
    cJSON_AddNumberToObject(rec, "replay_failures", (double)td_g.replay_failures);
    cJSON_AddNumberToObject(rec, "profiling_s", td_g.budget.spent_s);
    cJSON_AddNumberToObject(rec, "setup_s", td_g.setup_s);
    cJSON_AddNumberToObject(rec, "coverage_s", td_g.coverage_s);
    cJSON_AddNumberToObject(rec, "switch_s", td_g.switch_s);
    cJSON_AddNumberToObject(rec, "switches", (double)td_g.switches);
    cJSON_AddNumberToObject(rec, "decode_s", td_g.decode_s);
    cJSON_AddNumberToObject(rec, "tracing_s", td_g.budget.traced_s);
    cJSON_AddNumberToObject(rec, "exit_s", exit_s > 0 ? exit_s : 0);
    cJSON_AddNumberToObject(rec, "elapsed_s", now_s() - td_g.budget.start_s);
    td_sw_emit(rec);
}

void at_exit(void)
{
    static int done;
    if (getpid() != td_g.pid || done++)
        return; /* a fork()ed child: the parent flushes its own state */
    td_gate_enter_exclusive();
    pthread_mutex_lock(&td_g.lock);
    in_our_code = 1;
    double t0 = now_s(), spent0 = td_g.budget.spent_s;
    if (td_debug_on())
        td_debug("inject", "budget at the end: spent %.4f s of %.4f s (native %.4f s, at the "
                 "first launch %.4f s, GPU %.4f s; once %.4f s, traced %.4f s, at %.4f s); "
                 "%ld samples, %ld refused", td_g.budget.spent_s,
                 td_budget_allowance(&td_g.budget, t0), td_budget_native(&td_g.budget, t0),
                 td_g.budget.gpu_from_s, td_g.budget.gpu_s, td_g.budget.once_s,
                 td_g.budget.traced_s, t0 - td_g.budget.start_s, td_g.budget.samples,
                 (long)td_g.budget_skipped);
    flush_all();
    td_pcs_end_all();
    td_probe_report();
    if (td_debug_on()) {
        td_debug("inject", "end of run: %.1f ms", 1e3 * (now_s() - t0));
        td_debug("inject", "modules loaded: %ld, %.1f MB of cubins, checked for the device heap "
                 "in %.1f ms", td_g.modules_scanned, td_g.module_bytes / 1e6,
                 1e3 * td_g.module_scan_s);
        td_debug("inject", "kernel activity records counted for the budget: %llu",
                 (unsigned long long)td_ktimes_records());
    }
    emit_end(now_s() - t0 - (td_g.budget.spent_s - spent0));
    td_sw_unbuffer(); /* the end record out; any later record goes straight out */
    in_our_code = 0;
    pthread_mutex_unlock(&td_g.lock);
    td_gate_leave();
}

static const int handled_signals[] = {SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction previous[65];

/* The process is about to die of sig: keep what was measured. Not every
 * call here is async-signal-safe, so batches are closed only when no thread
 * is inside topdown's code; the spool's buffer is written unless this
 * thread was inside the writer; an alarm ends the process if it hangs. */
static void flush_before_dying(int sig)
{
    alarm(10);
    if (!in_our_code && getpid() == td_g.pid && pthread_mutex_trylock(&td_g.lock) == 0) {
        in_our_code = 1;
        flush_all();
        cJSON *rec = td_sw_record("signal");
        if (rec) {
            cJSON_AddNumberToObject(rec, "signal", sig);
            td_sw_emit(rec);
        }
        in_our_code = 0;
        pthread_mutex_unlock(&td_g.lock);
    }
    td_sw_flush(); /* the lines buffered so far, whatever the state */
    alarm(0);
}

/* TOPDOWN_DEBUG: where a crash happened, on stderr (the process dies
 * anyway; backtrace() was warmed up at start, so it does not allocate). */
static int backtrace_on_crash;

static void say_backtrace(int sig)
{
    if (!backtrace_on_crash || (sig != SIGSEGV && sig != SIGBUS && sig != SIGABRT))
        return;
    void *frames[48];
    int n = backtrace(frames, 48);
    static const char head[] = "topdown-debug: crash backtrace:\n";
    if (write(2, head, sizeof head - 1) > 0)
        backtrace_symbols_fd(frames, n, 2);
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved_errno = errno;
    say_backtrace(sig);
    struct sigaction *prev = &previous[sig];
    if (prev->sa_handler != SIG_DFL)
        td_sw_flush(); /* the app's handler may _exit */
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, info, uctx); /* the app handles it */
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
    } else if (prev->sa_handler == SIG_DFL) {
        flush_before_dying(sig);
        sigaction(sig, prev, NULL); /* die as the app would have */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
    }
    errno = saved_errno;
}

void install_signal_handlers(void)
{
    if ((backtrace_on_crash = td_debug_on())) {
        void *warm[2];
        backtrace(warm, 2); /* loads libgcc now, not in the handler */
    }
    for (size_t i = 0; i < sizeof handled_signals / sizeof *handled_signals; i++) {
        int sig = handled_signals[i];
        if (sigaction(sig, NULL, &previous[sig]) != 0 || previous[sig].sa_handler == SIG_IGN)
            continue; /* an ignored signal stays ignored */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
}
