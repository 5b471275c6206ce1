/* The launcher: runs the app under libtopdown_inject.so, waits for it with
 * its stdin/stdout/stderr untouched, then turns the spool the library wrote
 * into a result file (protocol: docs/DESIGN.md, docs/COLLECTION.md). */
#define _GNU_SOURCE /* SI_KERNEL */
#include "topdown/profile.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "metrics/arch/arch.h"
#include "metrics/kmatch.h"
#include "metrics/result/result.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/pm_samples.h"
#include "metrics/spool/spool.h"
#include "report/outname.h"
#include "topdown/clocks.h"
#include "report/output.h"

#define INJECT_LIB "libtopdown_inject.so"

/* ---- finding things ----------------------------------------------------- */

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int check_executable(const char *path, const char *shown, td_error *err)
{
    if (!is_regular(path))
        return td_fail(err, "'%s' is not a file: give the path of the app to profile", shown);
    if (access(path, X_OK) != 0)
        return td_fail(err, "'%s' is not executable: chmod +x it, or name the interpreter "
                       "first (topdown -- python3 %s)", shown, shown);
    return 0;
}

/* Like execvp: a name with a slash is a path, any other is looked up in
 * $PATH. */
static int resolve_app(const char *app, char *out, size_t size, td_error *err)
{
    if (!app || !*app)
        return td_fail(err, "no app to profile: topdown [options] [--] APP [ARGS...]");
    if (strchr(app, '/')) {
        if (access(app, F_OK) != 0)
            return td_fail(err, "app not found: '%s' does not exist", app);
        if (check_executable(app, app, err))
            return -1;
        snprintf(out, size, "%s", app);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int seen_not_executable = 0;
    while (*path) {
        size_t len = strcspn(path, ":");
        snprintf(out, size, "%.*s%s%s", (int)len, len ? path : ".", "/", app);
        if (is_regular(out)) {
            if (access(out, X_OK) == 0)
                return 0;
            seen_not_executable = 1;
        }
        path += len + (path[len] == ':');
    }
    if (seen_not_executable)
        return td_fail(err, "'%s' was found on PATH but is not executable", app);
    return td_fail(err, "app not found: '%s' is not a file here and not on PATH (use ./%s "
                   "for a program in this folder)", app, app);
}

int td_profile_check_app(const char *app, td_error *err)
{
    char path[PATH_MAX];
    return resolve_app(app, path, sizeof path, err);
}

static int exe_dir(char *buf, size_t size, td_error *err)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0)
        return td_fail(err, "cannot find topdown's own folder (/proc/self/exe: %s)",
                       strerror(errno));
    buf[n] = '\0';
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", buf);
    snprintf(buf, size, "%s", dirname(copy)); /* libgen.h, on a copy */
    return 0;
}

/* Next to the binary (build tree), else ../lib (installed). */
static int find_inject_lib(char *out, size_t size, td_error *err)
{
    char dir[PATH_MAX];
    if (exe_dir(dir, sizeof dir, err))
        return -1;
    const char *candidates[] = {"%s/" INJECT_LIB, "%s/../lib/" INJECT_LIB};
    for (size_t i = 0; i < 2; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, candidates[i], dir);
        if (is_regular(path) && realpath(path, out))
            return 0;
    }
    (void)size;
    return td_fail(err, INJECT_LIB " is missing from %s (and %s/../lib): rebuild with "
                   "`cmake --build build` or reinstall topdown", dir, dir);
}

/* ---- the result's name -------------------------------------------------- */

static int reserve(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* python, python3, python3.12, bash, sh, perl, ruby, node. */
static int is_interpreter(const char *name)
{
    static const char *const names[] = {"bash", "sh", "perl", "ruby", "node", NULL};
    for (const char *const *n = names; *n; n++)
        if (strcmp(name, *n) == 0)
            return 1;
    if (strncmp(name, "python", 6) != 0)
        return 0;
    return strspn(name + 6, "0123456789.") == strlen(name + 6);
}

/* What a run's result is named after: the app, or the script an
 * interpreter runs (`python train.py` -> "train"). */
static void run_name(char *const *argv, char *out, size_t size)
{
    char app[PATH_MAX], script[PATH_MAX]; /* copies: basename may modify its argument */
    snprintf(app, sizeof app, "%s", argv[0]);
    const char *base = basename(app);
    size_t len = strlen(base);
    if (is_interpreter(base) && argv[1] && argv[1][0] != '-' && is_regular(argv[1])) {
        snprintf(script, sizeof script, "%s", argv[1]);
        base = basename(script);
        const char *dot = strrchr(base, '.');
        len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    }
    snprintf(out, size, "%.*s", (int)len, base);
}

/* <name>.topdown.json, else <name>.topdown-1.json, -2, ...: never another
 * run's file. The name is reserved by creating it empty. */
static int default_output(char *const *argv, char *out, size_t size, td_error *err)
{
    char base[256];
    run_name(argv, base, sizeof base);
    for (int n = 0; n < 10000; n++) {
        if (n == 0)
            snprintf(out, size, "%s.topdown.json", base);
        else
            snprintf(out, size, "%s.topdown-%d.json", base, n);
        if (reserve(out) == 0)
            return 0;
        if (errno != EEXIST)
            return td_fail(err, "cannot create %s here: %s (use -o to write elsewhere)", out,
                           strerror(errno));
    }
    return td_fail(err, "too many %s.topdown-N.json files here: remove some or use -o", base);
}

/* -o with %i: the first number whose name is free, reserved with O_EXCL
 * (two runs at once never get the same one). */
static int reserve_numbered(const td_profile_options *opts, const char *app_path, long pid,
                            char *out, size_t size, td_error *err)
{
    for (long seq = 1; seq < 100000; seq++) {
        if (td_outname_expand(opts->output, pid, seq, out, size, err))
            return -1;
        if (td_output_check(out, 1, &app_path, 1, err))
            return td_fail_context(err, "-o");
        if (reserve(out) == 0)
            return 0;
        if (errno != EEXIST)
            return td_fail(err, "cannot write %s: %s", out, strerror(errno));
    }
    return td_fail(err, "-o '%s': every number up to 99999 is taken: remove some results",
                   opts->output);
}

/* -o FILE (a pattern, outname.h, expanded with the app's pid): new, or
 * with -f a regular file that is not the app itself (report/output.h);
 * never a device, FIFO or folder. */
static int choose_output(const td_profile_options *opts, const char *app_path, long pid,
                         char *out, size_t size, int *reserved, td_error *err)
{
    *reserved = 0;
    if (!opts->output) {
        if (default_output(opts->app_argv, out, size, err))
            return -1;
        *reserved = 1;
        return 0;
    }
    if (td_outname_has_seq(opts->output)) {
        if (reserve_numbered(opts, app_path, pid, out, size, err))
            return -1;
        *reserved = 1;
        return 0;
    }
    if (td_outname_expand(opts->output, pid, 0, out, size, err))
        return -1;
    if (strcmp(out, "-") == 0)
        return td_fail(err, "-o - : the result is a file; name one (the report goes to "
                       "standard output anyway)");
    if (td_output_check(out, opts->force, &app_path, 1, err))
        return td_fail_context(err, "-o");
    if (reserve(out) == 0) {
        *reserved = 1;
        return 0;
    }
    if (errno == EEXIST)
        return 0; /* -f: replaced atomically when the result is saved */
    return td_fail(err, "cannot write %s: %s", out, strerror(errno));
}

/* ---- running the app ---------------------------------------------------- */

/* --pm-interval measures through its samples, not per launch. */
static int has_pm_samples(const td_result *res)
{
    for (size_t d = 0; d < res->n_devices; d++)
        if (res->devices[d].pm && res->devices[d].pm->n > 0)
            return 1;
    return 0;
}

/* The signals topdown passes on to the app while it runs: the ways a user,
 * a terminal or a scheduler asks a program to stop. */
static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_FORWARDED ((int)(sizeof forwarded_signals / sizeof *forwarded_signals))

/* The app's pid while it runs, and the last of those signals topdown
 * received. */
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_signal;

/* The app's process between fork and exec: it waits on `go` for the
 * spool's name, which depends on the result's name, which may hold its
 * pid (-o run.%p.json). An exec failure comes back on `exec_err`. */
typedef struct app_proc {
    pid_t pid;
    int go;       /* a socket: writing to a child that died raises no SIGPIPE */
    int exec_err; /* close-on-exec pipe: errno of a failed exec */
} app_proc;

/* In the child, before exec: the library, the collector's options with
 * this spool as the one variable TOPDOWN_COLLECT (docs/COLLECTION.md), and
 * NVTX_INJECTION64_PATH where the user set none. -1 when out of memory. */
static int set_child_env(const launch_plan *plan, char *spool)
{
    td_collect_opts collect = *plan->collect; /* the parent's strings: never freed here */
    collect.spool = spool;
    char *text = td_collect_opts_format(&collect);
    if (!text)
        return -1;
    setenv("CUDA_INJECTION64_PATH", plan->lib, 1);
    setenv(TD_COLLECT_VAR, text, 1);
    if (plan->nvtx_path[0])
        setenv("NVTX_INJECTION64_PATH", plan->nvtx_path, 1);
    free(text);
    return 0;
}

/* In the child of a later run of application replay: the app's input and
 * output were the first run's; this one reads nothing and prints nothing. */
static void quiet_stdio(void)
{
    int null = open("/dev/null", O_RDWR);
    if (null < 0)
        return;
    dup2(null, STDIN_FILENO), dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO)
        close(null);
}

/* In the child: the spool's name, sent whole before `go` is closed; an
 * empty one means topdown gave up (an output refused): exit unseen. */
_Noreturn static void child_wait_and_exec(const launch_plan *plan, int go, int exec_err)
{
    char spool[PATH_MAX + 16];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(go, spool + len, sizeof spool - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (len += (size_t)n) == sizeof spool - 1)
            break;
    }
    if (len == 0)
        _exit(127);
    spool[len] = '\0';
    if (plan->quiet)
        quiet_stdio();
    if (set_child_env(plan, spool) == 0)
        execv(plan->app_path, plan->opts->app_argv);
    else
        errno = ENOMEM;
    int code = errno;
    if (write(exec_err, &code, sizeof code) < 0)
        _exit(127);
    _exit(127);
}

/* Forks the app's process, held before exec until release_app.
 * SIGINT/SIGTERM stay blocked until child_pid is known, so none is lost. */
static int fork_app(const launch_plan *plan, const struct sigaction defaults[N_FORWARDED],
                    app_proc *app, td_error *err)
{
    int go[2], exec_err[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0)
        return td_fail(err, "cannot start the app: socketpair: %s", strerror(errno));
    if (pipe2(exec_err, O_CLOEXEC) != 0) {
        close(go[0]), close(go[1]);
        return td_fail(err, "cannot start the app: pipe: %s", strerror(errno));
    }
    sigset_t block, old;
    sigemptyset(&block);
    for (int i = 0; i < N_FORWARDED; i++)
        sigaddset(&block, forwarded_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]), close(exec_err[0]);
        for (int i = 0; i < N_FORWARDED; i++)
            sigaction(forwarded_signals[i], &defaults[i], NULL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        child_wait_and_exec(plan, go[0], exec_err[1]);
    }
    child_pid = pid > 0 ? pid : 0;
    if (pid > 0 && got_signal)
        kill(pid, got_signal); /* it came before the app existed */
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(go[0]), close(exec_err[1]);
    if (pid < 0) {
        close(go[1]), close(exec_err[0]);
        return td_fail(err, "cannot start the app: fork: %s", strerror(errno));
    }
    *app = (app_proc){pid, go[1], exec_err[0]};
    return 0;
}

/* The held process exits without running the app. */
static void abandon_app(app_proc *app)
{
    close(app->go), close(app->exec_err);
    waitpid(app->pid, NULL, 0);
    child_pid = 0;
}

/* Hands the held process its spool and lets it exec the app. */
static int release_app(app_proc *app, const launch_plan *plan, td_error *err)
{
    size_t len = strlen(plan->spool), sent = 0;
    while (sent < len) {
        ssize_t n = send(app->go, plan->spool + sent, len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* it died (a signal): waitpid tells */
        sent += (size_t)n;
    }
    close(app->go);
    int code = 0;
    ssize_t n;
    do
        n = read(app->exec_err, &code, sizeof code);
    while (n < 0 && errno == EINTR);
    close(app->exec_err);
    if (n == (ssize_t)sizeof code) {
        waitpid(app->pid, NULL, 0);
        child_pid = 0;
        return td_fail(err, "cannot run '%s': %s", plan->app_path, strerror(code));
    }
    return 0;
}

/* While the app runs, topdown itself survives SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT: the app gets them (from the terminal directly, else forwarded)
 * and topdown keeps what the app's injection library flushed. */

static void forward_signal(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    got_signal = sig;
    /* A terminal's ^C already reached the whole foreground group. */
    if (child_pid > 0 && info->si_code != SI_KERNEL)
        kill((pid_t)child_pid, sig);
}

static void catch_signals(struct sigaction saved[N_FORWARDED])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_FORWARDED; i++)
        sigaction(forwarded_signals[i], &sa, &saved[i]);
}

static void restore_signals(const struct sigaction saved[N_FORWARDED])
{
    for (int i = 0; i < N_FORWARDED; i++)
        sigaction(forwarded_signals[i], &saved[i], NULL);
}

static int is_stop_request(int sig)
{
    for (int i = 0; i < N_FORWARDED; i++)
        if (sig == forwarded_signals[i])
            return 1;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void show_progress(const char *spool, td_spool_progress *p, double elapsed)
{
    td_spool_progress_update(spool, p);
    fprintf(stderr, "\r\033[Ktopdown: %ld kernels profiled (%d pass%s each), %ld launches, "
            "%.1f s", p->profiled, p->passes, p->passes == 1 ? "" : "es", p->launches,
            elapsed);
    fflush(stderr);
}

/* Sleeps a tenth of a second, or less: until the app ends when pidfd
 * (pidfd_open, Linux 5.3) says so, so that the report does not wait for
 * the tick. */
static void nap(int pidfd)
{
    if (pidfd >= 0) {
        struct pollfd ended = {.fd = pidfd, .events = POLLIN};
        poll(&ended, 1, 100);
        return;
    }
    struct timespec tick = {0, 100 * 1000 * 1000};
    nanosleep(&tick, NULL);
}

/* Waits for the app; with progress on, polls and redraws the line every
 * half second once the run has lasted a second. */
static int wait_app(pid_t pid, const char *spool, int progress, int *status)
{
    double start = now_seconds(), last = start;
    td_spool_progress p = {0};
    int drawn = 0;
    int pidfd = progress ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
    for (;;) {
        pid_t w = waitpid(pid, status, progress ? WNOHANG : 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            if (pidfd >= 0)
                close(pidfd);
            return -1;
        }
        if (!progress)
            continue;
        nap(pidfd);
        double t = now_seconds();
        if (t - start >= 1.0 && t - last >= 0.5) {
            show_progress(spool, &p, t - start);
            last = t;
            drawn = 1;
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    if (drawn)
        fputs("\r\033[K", stderr);
    return 0;
}

/* ---- the result --------------------------------------------------------- */

static char *iso_now(void)
{
    char buf[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return td_strdup(buf);
}

static int copy_argv(td_result *res, char **argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    res->argv = calloc(n ? n : 1, sizeof *res->argv);
    if (!res->argv)
        return -1;
    for (size_t i = 0; i < n; i++) {
        res->argv[i] = td_strdup(argv[i]);
        if (!res->argv[i])
            return -1;
        res->argc++;
    }
    return 0;
}

/* What really happened to the app: a signal topdown received that the app
 * ignored or handled is no interruption when the app then ran to its end. */
static const char *status_of(int app_signal, const td_spool_summary *sum)
{
    if (is_stop_request(app_signal))
        return "interrupted";
    if (app_signal)
        return "crashed";
    if (sum->processes == 0)
        return "complete"; /* the app never started CUDA: nothing was lost */
    return td_spool_complete(sum) ? "complete" : "partial";
}

/* Why nothing was collected when the injection library never started. */
static void diagnose_no_cuda(char *msg, size_t size)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!cuda) {
        snprintf(msg, size, "no NVIDIA driver here (libcuda.so.1 cannot be loaded), so "
                 "nothing was profiled: run on a machine with an NVIDIA GPU and driver, or "
                 "read a result recorded elsewhere with `topdown report FILE`");
        return;
    }
    int (*cu_init)(unsigned) = NULL;
    *(void **)&cu_init = dlsym(cuda, "cuInit");
    int rc = cu_init ? cu_init(0) : -1;
    if (rc == 100 /* CUDA_ERROR_NO_DEVICE */)
        snprintf(msg, size, "no CUDA GPU is visible (cuInit: no device), so nothing was "
                 "profiled: check nvidia-smi and CUDA_VISIBLE_DEVICES");
    else if (rc != 0)
        snprintf(msg, size, "the CUDA driver failed to start (cuInit error %d), so nothing "
                 "was profiled: check nvidia-smi", rc);
    else
        snprintf(msg, size, "the app never started CUDA, so there was nothing to profile "
                 "(is it a CUDA program?)");
    dlclose(cuda);
}

static void describe_outcome(const td_result *res, const td_spool_summary *sum,
                             td_profile_outcome *out)
{
    char *msg = out->message;
    size_t size = sizeof out->message;
    if (sum->errors)
        snprintf(msg, size, "%s", sum->errors);
    else if (strcmp(res->status, "crashed") == 0 && sum->launches > 0)
        snprintf(msg, size, "the app died of signal %d (%s); the result is partial: it keeps "
                 "the %ld launches recorded before", out->app_signal,
                 strsignal(out->app_signal), sum->launches);
    else if (strcmp(res->status, "interrupted") == 0 && out->app_signal && sum->launches > 0)
        snprintf(msg, size, "interrupted; the result is partial: it keeps the %ld launches "
                 "recorded before", sum->launches);
    else if (sum->processes == 0)
        diagnose_no_cuda(msg, size);
    else if (sum->launches == 0)
        snprintf(msg, size, "the app launched no CUDA kernel, so the result holds no "
                 "launches");
    else if (strcmp(res->status, "partial") == 0)
        snprintf(msg, size, "the app ended without topdown's final flush (did it call "
                 "_exit?); the result is partial");
    else if (sum->warnings)
        snprintf(msg, size, "%s", sum->warnings);
}

/* A signal topdown received that did not end the app: said in the note. */
static void survived_signal_note(const td_profile_outcome *out, char *buf, size_t size)
{
    buf[0] = '\0';
    if (got_signal && !out->app_signal)
        snprintf(buf, size, "the app received signal %d (%s) and went on to exit with code %d",
                 (int)got_signal, strsignal((int)got_signal), out->app_exit_code);
}

static char *join_notes(const td_spool_summary *sum, const char *extra)
{
    const char *parts[] = {sum->errors, sum->warnings, extra && extra[0] ? extra : NULL};
    size_t len = 1;
    for (size_t i = 0; i < 3; i++)
        len += parts[i] ? strlen(parts[i]) + 2 : 0;
    if (len == 1)
        return NULL;
    char *note = malloc(len);
    if (!note)
        return NULL;
    note[0] = '\0';
    for (size_t i = 0; i < 3; i++)
        if (parts[i])
            snprintf(note + strlen(note), len - strlen(note), "%s%s", note[0] ? "; " : "",
                     parts[i]);
    return note;
}

/* Saving the result failed after the app ran: the spool stays, and the
 * message says how to make the result from it. */
static int spool_kept(const char *spool, td_error *err)
{
    char why[sizeof err->msg];
    memcpy(why, err->msg, sizeof why);
    return td_fail(err, "%.300s; the app's counters are kept in %s: `topdown import-spool %s "
                   "-o FILE.json` makes the result from them", why, spool, spool);
}

#define NAMES_SHOWN 3

/* Whether name was already listed among the first n of names. */
static int listed(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* -k RE that matched none of the kernels launched: a warning naming the
 * filter and a few real names (the injection library matches the same
 * names with the same module, metrics/kmatch.h). */
static void check_filter_matched(const td_profile_options *opts, const td_result *res,
                                 td_profile_outcome *out)
{
    td_kmatch *m = NULL;
    td_error ignored;
    if (!opts->kernel_filter ||
        td_kmatch_compile(opts->kernel_filter, (td_name_base)opts->name_base, &m, &ignored))
        return;
    const char *names[NAMES_SHOWN];
    char shown[NAMES_SHOWN][128];
    size_t n = 0, seen = 0; /* launches with a name */
    int matched = 0;
    for (size_t d = 0; d < res->n_devices && !matched; d++)
        for (size_t i = 0; i < res->devices[d].n_launches && !matched; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            if (!l->kernel)
                continue;
            matched = td_kmatch_test(m, l->kernel, l->mangled);
            char scratch[sizeof shown[0]];
            const char *name = td_kernel_name_in((td_name_base)opts->name_base, l->kernel,
                                                 l->mangled, scratch, sizeof scratch);
            if (n < NAMES_SHOWN && !listed(names, n, name)) {
                snprintf(shown[n], sizeof shown[n], "%s", name);
                names[n] = shown[n];
                n++;
            }
            seen++;
        }
    td_kmatch_free(m);
    if (matched || seen == 0)
        return;
    size_t len = (size_t)snprintf(out->warning, sizeof out->warning, "-k '%s' matched no "
                                  "kernel name; the app launched", opts->kernel_filter);
    for (size_t i = 0; i < n && len < sizeof out->warning; i++)
        len += (size_t)snprintf(out->warning + len, sizeof out->warning - len, "%s \"%.80s\"",
                                i ? "," : "", names[i]);
    if (len < sizeof out->warning)
        snprintf(out->warning + len, sizeof out->warning - len, "%s (%s names, as "
                 "--kernel-name-base says; `topdown report FILE` lists them)",
                 n == NAMES_SHOWN ? ", ..." : "", td_name_base_word((td_name_base)opts->name_base));
}

/* Launches seen but none profiled: why, for the result's note and the
 * closing line. */
static void nothing_profiled_note(const td_profile_options *opts, const td_profile_outcome *out,
                                  char *buf, size_t size)
{
    if (out->warning[0])
        snprintf(buf, size, "nothing was profiled: -k '%s' matched no kernel name (%ld "
                 "launches timed only)", opts->kernel_filter, out->launches);
    else if (opts->n_nvtx_include + opts->n_nvtx_exclude > 0)
        snprintf(buf, size, "nothing was profiled: none of the %ld launches got counters "
                 "(--nvtx-include/--nvtx-exclude, --launch-skip, --launch-count or -k left "
                 "none; `topdown report FILE --by-region` shows the NVTX regions launches "
                 "were made in)", out->launches);
    else
        snprintf(buf, size, "nothing was profiled: none of the %ld launches got counters "
                 "(--launch-skip, --launch-count or -k left none, or the collection failed)",
                 out->launches);
}

/* What the run was measured under: the cache control the library
 * recorded (else the one asked for) and the clocks the launcher set. */
static int set_conditions(const td_profile_options *opts, const td_clock_lock *clocks,
                          td_result *res)
{
    td_conditions *c = &res->conditions;
    if (!c->cache_control && !(c->cache_control = td_strdup(opts->cache_control)))
        return -1;
    int locked = strcmp(opts->clock_control, "base") == 0;
    if (!(c->clock_control = td_strdup(locked ? td_clocks_condition(clocks) : "none")))
        return -1;
    c->clock_mhz = locked ? clocks->mhz : 0;
    return 0;
}

static int has_pc_samples(const td_result *res)
{
    for (size_t d = 0; d < res->n_devices; d++)
        if (res->devices[d].pcsamp && res->devices[d].pcsamp->n_records > 0)
            return 1;
    return 0;
}

/* The result of the run into *kept (freed and zeroed unless it was saved). */
static int build_result(const td_profile_options *opts, const td_clock_lock *clocks,
                        const char *spool, int status, td_profile_outcome *out,
                        td_result *kept, td_error *err)
{
    td_result res;
    td_spool_summary sum;
    memset(&res, 0, sizeof res);
    if (td_spool_load(spool, &res, &sum, err)) {
        td_result_free(&res);
        return td_fail_context(err, "the app ran but its collection spool is unreadable "
                               "(kept for a bug report)");
    }
    out->app_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    out->app_exit_code = out->app_signal ? 128 + out->app_signal : WEXITSTATUS(status);
    out->launches = sum.launches;
    out->profiled = sum.profiled;
    out->passes = sum.passes;
    res.exit_code = out->app_signal ? -1 : out->app_exit_code;
    res.term_signal = out->app_signal;
    res.tool_version = td_strdup(TOPDOWN_VERSION);
    res.created = iso_now();
    res.status = td_strdup(status_of(out->app_signal, &sum));
    /* --source-only measures PC samples, --pm-interval a timeline: not counters */
    out->nothing_measured = sum.profiled == 0 && !has_pc_samples(&res) && !has_pm_samples(&res);
    out->collector_failed = sum.collector_failed;
    check_filter_matched(opts, &res, out);
    char survived[256], extra[512] = "";
    survived_signal_note(out, survived, sizeof survived);
    if (out->nothing_measured && sum.launches > 0)
        nothing_profiled_note(opts, out, extra, sizeof extra);
    if (survived[0])
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s%s",
                 extra[0] ? "; " : "", survived);
    res.note = join_notes(&sum, extra);
    int rc = copy_argv(&res, opts->app_argv) || set_conditions(opts, clocks, &res)
                 ? td_fail(err, "out of memory")
                 : 0;
    if (rc == 0 && res.status)
        describe_outcome(&res, &sum, out);
    if (rc == 0 && !out->message[0] && survived[0])
        snprintf(out->message, sizeof out->message, "%s", survived);
    /* Nothing seen, nothing to keep: no result file (the message says why). */
    int keep = sum.launches > 0;
    if (rc == 0 && keep && td_result_save(out->result_path, &res, err))
        rc = spool_kept(spool, err);
    out->result_written = rc == 0 && keep;
    td_spool_summary_free(&sum);
    if (out->result_written)
        *kept = res;
    else
        td_result_free(&res);
    return rc;
}

/* ---- the whole run ------------------------------------------------------ */

static int check_options(const td_profile_options *opts, td_error *err)
{
    td_kmatch *m = NULL;
    if (opts->kernel_filter &&
        td_kmatch_compile(opts->kernel_filter, (td_name_base)opts->name_base, &m, err))
        return -1;
    td_kmatch_free(m);
    return 0;
}

/* --arch NAME names a table of the archs folder (checked before the app
 * runs, not after). */
static int check_arch(const td_profile_options *opts, const char *archs_dir, td_error *err)
{
    if (!opts->arch)
        return 0;
    td_arch_set set;
    if (td_arch_load_dir(archs_dir, &set, err))
        return -1;
    int found = td_arch_find(&set, opts->arch) != NULL;
    td_arch_set_free(&set);
    if (!found)
        return td_fail(err, "--arch %s: no such arch table in %s; see topdown list-archs",
                       opts->arch, archs_dir);
    return 0;
}

/* The files the caller writes after the run (CSVs): the -f rule, not the
 * app, not the result, not each other. */
static int check_other_outputs(const td_profile_options *opts, const char *app,
                               const char *result, td_error *err)
{
    const char *inputs[] = {app, result};
    for (size_t i = 0; i < opts->n_outputs; i++)
        if (opts->outputs[i] && td_output_check(opts->outputs[i], opts->force, inputs, 2, err))
            return -1;
    return td_output_check_distinct(opts->outputs, opts->n_outputs, err);
}

/* <result>.XXXXXX.spool, created with O_EXCL: each run its own, even two
 * runs given the same -o. Absolute: the app may change folder. */
int td_profile_create_spool(const char *result, char *spool, size_t size, td_error *err)
{
    char result_abs[PATH_MAX];
    if (!realpath(result, result_abs))
        snprintf(result_abs, sizeof result_abs, "%s", result);
    snprintf(spool, size, "%s.XXXXXX.spool", result_abs);
    int fd = mkstemps(spool, 6);
    if (fd < 0)
        return td_fail(err, "cannot create the collection spool next to %s: %s", result,
                       strerror(errno));
    close(fd);
    return 0;
}

/* Before anything starts: the options, the app, the library, the tables,
 * and that -o is a good pattern (its variables set). */
int td_profile_prepare(const td_profile_options *opts, char *app, char *lib, char *archs,
                       td_error *err)
{
    char name[PATH_MAX];
    if (check_options(opts, err) || resolve_app(opts->app_argv[0], app, PATH_MAX, err) ||
        find_inject_lib(lib, PATH_MAX, err) || td_arch_default_dir(archs, PATH_MAX, err) ||
        check_arch(opts, archs, err) ||
        (opts->output && td_outname_expand(opts->output, 1, 1, name, sizeof name, err)))
        return -1;
    char archs_abs[PATH_MAX];
    if (realpath(archs, archs_abs))
        memcpy(archs, archs_abs, strlen(archs_abs) + 1);
    return 0;
}

/* Once the app's pid is known (its process held before exec): the result's
 * name reserved, the other outputs checked, the spool created. */
static int name_outputs(const launch_plan *plan, long pid, td_profile_outcome *out,
                        char *spool, size_t spool_size, int *reserved, td_error *err)
{
    const td_profile_options *opts = plan->opts;
    if (choose_output(opts, plan->app_path, pid, out->result_path, sizeof out->result_path,
                      reserved, err))
        return -1;
    if (check_other_outputs(opts, plan->app_path, out->result_path, err) ||
        td_profile_create_spool(out->result_path, spool, spool_size, err)) {
        if (*reserved)
            unlink(out->result_path);
        *reserved = 0;
        return -1;
    }
    return 0;
}

/* --clock-control base: locked before the app's process exists, so a
 * refusal stops the run before anything started. */
static int lock_clocks(const td_profile_options *opts, td_clock_lock *clocks,
                       td_profile_outcome *out, td_error *err)
{
    memset(clocks, 0, sizeof *clocks);
    if (strcmp(opts->clock_control, "base") != 0)
        return 0;
    if (td_clocks_lock(clocks, td_nvml_clock_ops(), err))
        return -1;
    snprintf(out->clock_notice, sizeof out->clock_notice, "%s", clocks->notice);
    return 0;
}

/* Gives the clocks back as soon as the app has ended (or never started):
 * signals are still caught then, so nothing can stop topdown in between.
 * A failed reset is said, never fatal: the result is still worth keeping. */
static void unlock_clocks(td_clock_lock *clocks, td_profile_outcome *out)
{
    td_error why;
    if (td_clocks_restore(clocks, &why))
        snprintf(out->clock_notice, sizeof out->clock_notice, "%s", why.msg);
}

/* The app's process from fork to exit, the clocks locked around it. */
static int run_app(const launch_plan *plan, const struct sigaction saved[N_FORWARDED],
                   char *spool, size_t spool_size, td_profile_outcome *out, int *reserved,
                   int *status, td_error *err)
{
    app_proc app = {0, -1, -1};
    if (fork_app(plan, saved, &app, err))
        return -1;
    if (name_outputs(plan, (long)app.pid, out, spool, spool_size, reserved, err)) {
        abandon_app(&app);
        return -1;
    }
    if (release_app(&app, plan, err)) {
        unlink(plan->spool);
        return -1;
    }
    int progress = plan->opts->progress && isatty(STDERR_FILENO);
    int waited = wait_app(app.pid, plan->spool, progress, status);
    child_pid = 0;
    if (waited)
        return td_fail(err, "lost track of the app: waitpid: %s", strerror(errno));
    return 0;
}

int td_profile_run_pass(const launch_plan *plan, const td_profile_outcome *out,
                        td_result *pass, int *code, td_error *err)
{
    char spool[PATH_MAX + 16];
    if (td_profile_create_spool(out->result_path, spool, sizeof spool, err))
        return -1;
    launch_plan quiet = *plan;
    quiet.spool = spool;
    quiet.quiet = 1;
    int status = 0;
    int rc = td_profile_run_once(&quiet, &status, err);
    td_spool_summary sum;
    memset(&sum, 0, sizeof sum);
    if (rc == 0 && td_spool_load(spool, pass, &sum, err))
        rc = -1;
    for (int i = 0; rc == 0 && i < 2; i++) {
        const char *said = i == 0 ? sum.errors : sum.warnings;
        if (said && td_result_append_note(pass, said))
            rc = td_fail(err, "out of memory");
    }
    td_spool_summary_free(&sum);
    if (!getenv("TOPDOWN_KEEP_SPOOL"))
        unlink(spool);
    *code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    return rc;
}

int td_profile_interrupted(void)
{
    return got_signal != 0;
}

int td_profile_run_once(const launch_plan *plan, int *status, td_error *err)
{
    struct sigaction saved[N_FORWARDED];
    catch_signals(saved);
    td_clock_lock clocks;
    td_profile_outcome notices;
    memset(&notices, 0, sizeof notices);
    if (lock_clocks(plan->opts, &clocks, &notices, err)) {
        restore_signals(saved);
        return -1;
    }
    app_proc app = {0, -1, -1};
    int rc = fork_app(plan, saved, &app, err) || release_app(&app, plan, err) ? -1 : 0;
    if (rc == 0 && wait_app(app.pid, plan->spool, 0, status))
        rc = td_fail(err, "lost track of the app: waitpid: %s", strerror(errno));
    child_pid = 0;
    unlock_clocks(&clocks, &notices);
    restore_signals(saved);
    return rc;
}

int td_profile_run_first(const launch_plan *plan, char *spool, size_t spool_size,
                         td_profile_outcome *out, td_result *res, int *reserved,
                         td_error *err)
{
    struct sigaction saved[N_FORWARDED];
    got_signal = 0;
    catch_signals(saved);
    td_clock_lock clocks;
    if (lock_clocks(plan->opts, &clocks, out, err)) {
        restore_signals(saved);
        return -1;
    }
    int status = 0;
    int rc = run_app(plan, saved, spool, spool_size, out, reserved, &status, err);
    unlock_clocks(&clocks, out);
    restore_signals(saved);
    if (rc)
        return -1;
    if (build_result(plan->opts, &clocks, plan->spool, status, out, res, err))
        return -1;
    if (!getenv("TOPDOWN_KEEP_SPOOL"))
        unlink(plan->spool);
    return 0;
}
