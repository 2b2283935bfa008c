/* gasneti_exit.c: how a rank leaves: gasnet_exit, return from main, fatal errors and
 * signals, on top of the bootstrap's exit hooks (which tell the launcher).
 * Layer: core.
 *
 * Every normal exit (gasnet_exit(c) or a return from main) first announces itself and
 * waits up to GASNET_EXITTIMEOUT seconds for every rank to be exiting too, so a job whose
 * ranks all finish loses no output. If some rank does not follow in time, or on a fatal
 * error or signal, the exit becomes an abort: the launcher ends the other ranks, which
 * leave with the same code (SIGQUIT from the launcher runs quit_handler). */
#include "conduit_contract.h"

#include <errno.h>
#include <signal.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#  include <execinfo.h>
#endif

volatile int gasneti_exiting;
static double exit_timeout = 2.0;
static int want_backtrace;

static double now_sec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* shared memory, trace, network, then the bootstrap's own leave-taking */
static void teardown(void) {
    gasneti_segments_fini();
    gasneti_trace_fini();
    if (!GASNETC_NBRHD_ONLY) gasnetc_network_fini();
    if (gasneti_boot && gasneti_boot->fini) gasneti_boot->fini();
}

GASNETI_NORETURN static void leave(int code) {
    teardown();
    fflush(NULL);
    _exit(code);
}

void gasneti_exit_now(int code) {
    if (__atomic_exchange_n(&gasneti_exiting, 1, __ATOMIC_ACQ_REL)) leave(code);
    if (gasneti_boot) gasneti_boot->exit_notify(code, 0);
    leave(code);
}

/* a normal exit's: GASNET_EXITTIMEOUT after it began (0: none begun) */
static double exit_deadline;

int gasneti_exit_overdue(void) {
    double d;
    __atomic_load(&exit_deadline, &d, __ATOMIC_RELAXED);
    return d != 0 && now_sec() > d;
}

/* Flush puts, announce, wait for the others (polling, so they can finish their traffic),
 * and escalate to an abort of the rest if they do not all come: all of it within the
 * exit timeout (a peer that never polls cannot hold the flush longer). */
static void exit_collectively(int code) {
    double deadline = now_sec() + exit_timeout;
    __atomic_store(&exit_deadline, &deadline, __ATOMIC_RELAXED);
    if (GASNETC_RMA_FLUSH && !gasneti_cur_token && gasneti_layer && gasneti_layer->quiesce)
        gasneti_layer->quiesce(); /* peers still poll for it */
    gasneti_boot->exit_notify(code, 1);
    int may_poll = !gasneti_cur_token;
    while (!gasneti_boot->all_exiting()) {
        if (now_sec() > deadline) {
            gasneti_boot->exit_notify(code, 0);
            return;
        }
        if (may_poll) gasneti_AMPoll();
        gasneti_sleep_ns(may_poll ? 20000 : 200000);
    }
}

uint32_t gasneti_barriers_started;

void gasneti_join_peer_exit(uint32_t seq) {
    static GASNETI_THREADLOCAL unsigned calls;
    if (++calls & 63 || !gasneti_boot || !gasneti_boot->peer_exiting || gasneti_exiting || gasneti_cur_token) return;
    uint32_t started = 0;
    int code = gasneti_boot->peer_exiting(&started);
    if (code >= 0 && started <= seq) gasnet_exit(code);
}

void gasnet_exit(int exitcode) {
    if (!gasneti_boot) _exit(exitcode);
    if (__atomic_exchange_n(&gasneti_exiting, 1, __ATOMIC_ACQ_REL)) leave(exitcode);
    fflush(NULL);
    exit_collectively(exitcode);
    leave(exitcode);
}

static void on_exit_hook(int status, void *arg) {
    (void)arg;
    if (__atomic_exchange_n(&gasneti_exiting, 1, __ATOMIC_ACQ_REL)) return;
    fflush(NULL);
    exit_collectively(status);
    teardown();
    /* return: exit() goes on to flush stdio and leave with `status` */
}

/* ---- signals ---- */
static void quit_handler(int sig) {
    (void)sig;
    gasneti_exiting = 1;
    gasneti_segments_fini(); /* unlink(2) only */
    fflush(NULL); /* not async-signal-safe, but output is worth the risk; the launcher SIGKILLs if we hang */
    _exit(gasneti_boot->abort_code());
}

/* GASNET_BACKTRACE_TYPE: a comma-separated list of methods tried in order until one
 * works: GDB (gdb attached to this process: every thread, with arguments and source
 * lines), ADDR2LINE (this thread, each frame named by addr2line from the program's and
 * libraries' symbols, static functions and source lines included) and EXECINFO (glibc's
 * backtrace_symbols: exported names only, else offsets). Default "GDB,ADDR2LINE,EXECINFO":
 * gdb when the machine has it and may attach, else addr2line, else glibc. A line before
 * the frames says which method printed them. */
static char backtrace_types[64] = "GDB,ADDR2LINE,EXECINFO";
static int freeze_on_error;

static int backtrace_gdb(int fd) {
    char pid[24], cmd[64];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    snprintf(cmd, sizeof(cmd), "/proc/%d/exe", (int)getpid());
    fflush(NULL);
    pid_t c = fork();
    if (c < 0) return -1;
    if (c == 0) {
        dup2(fd, 1); /* gdb's output to fd */
        execlp("gdb", "gdb", "-nx", "-batch", "-q", "-p", pid, "-ex", "set pagination off", "-ex",
               "thread apply all backtrace", cmd, (char *)NULL);
        _exit(127);
    }
#ifdef PR_SET_PTRACER
    prctl(PR_SET_PTRACER, (unsigned long)c, 0, 0, 0); /* Yama: let our own child attach */
#endif
    int st = 0;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void backtrace_header(int fd, const char *how) {
    char h[160];
    snprintf(h, sizeof(h), "*** backtrace of rank %u (pid %d), by %s:\n", (unsigned)gasneti_mynode, (int)getpid(), how);
    if (write(fd, h, strlen(h)) < 0) {}
}

/* 0 once a method has printed one */
static int print_backtrace(int fd) {
    char types[64];
    snprintf(types, sizeof(types), "%s", backtrace_types);
    for (char *save = NULL, *t = strtok_r(types, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (!strcasecmp(t, "GDB")) {
            backtrace_header(fd, "gdb (every thread)");
            if (!backtrace_gdb(fd)) return 0;
            backtrace_header(fd, "gdb: it could not be run or could not attach; next method");
        } else if (!strcasecmp(t, "ADDR2LINE")) {
            backtrace_header(fd, "addr2line (this thread)");
            if (!gasneti_backtrace_addr2line(fd)) return 0;
            backtrace_header(fd, "addr2line: it could not be run; next method");
        } else if (!strcasecmp(t, "EXECINFO")) {
#if defined(__GLIBC__)
            backtrace_header(fd, "glibc backtrace_symbols (this thread; exported names only)");
            void *frames[64];
            int n = backtrace(frames, 64);
            backtrace_symbols_fd(frames, n, fd);
            return 0;
#endif
        }
    }
    return -1;
}

/* the library's gasnett_print_backtrace_ifenabled (installed by gasneti_exit_init unless
 * the client has put its own there): nonzero, printing nothing, without GASNET_BACKTRACE */
static int core_backtrace_ifenabled(int fd) {
    return want_backtrace ? print_backtrace(fd) : 1;
}

void gasneti_maybe_backtrace(void) {
    if (gasnett_print_backtrace_ifenabled) (void)gasnett_print_backtrace_ifenabled(2);
    if (freeze_on_error) gasnett_freezeForDebuggerErr();
}

/* A SIGINT, SIGTERM or SIGHUP sent by our parent (the launcher: amudprun, mpirun or its
 * daemon, smp's first process) is the launcher ending the job, which it reports itself
 * in one line naming the rank that failed: this rank then ends without a line of its own.
 * The same signal from anyone else (a user, a batch system) is announced. */
static void fatal_signal_handler(int sig, siginfo_t *info, void *ctx) {
    (void)ctx;
    char msg[160];
    int fatal = (sig != SIGINT && sig != SIGTERM && sig != SIGHUP);
    int from_launcher = !fatal && info && info->si_code == SI_USER && info->si_pid == getppid();
    snprintf(msg, sizeof(msg), "*** %s (rank %u of %u): caught signal %s (%d)%s\n",
             fatal ? "FATAL ERROR" : "NOTICE", (unsigned)gasneti_mynode, (unsigned)gasneti_nodes, strsignal(sig), sig,
             fatal ? "" : ", ending the job");
    if (!from_launcher && write(2, msg, strlen(msg)) < 0) {}
    if (fatal) gasneti_maybe_backtrace();
    if (!__atomic_exchange_n(&gasneti_exiting, 1, __ATOMIC_ACQ_REL)) gasneti_boot->exit_notify(128 + sig, 0);
    signal(sig, SIG_DFL);
    raise(sig);
}

void gasneti_exit_init(void) {
    const char *t = gasneti_getenv_dflt("GASNET_EXITTIMEOUT", "2");
    if (t && *t) {
        char *end;
        exit_timeout = strtod(t, &end);
        if (*end || exit_timeout < 0) gasneti_launch_error("GASNET_EXITTIMEOUT=%s: expected a number of seconds", t);
    }
    want_backtrace = gasneti_getenv_yesno("GASNET_BACKTRACE", 0);
    const char *bt = gasneti_getenv_dflt("GASNET_BACKTRACE_TYPE", "GDB,ADDR2LINE,EXECINFO");
    if (bt && *bt) snprintf(backtrace_types, sizeof(backtrace_types), "%s", bt);
    freeze_on_error = gasneti_getenv_yesno("GASNET_FREEZE_ON_ERROR", 0);
    if (gasnett_print_backtrace_ifenabled == gasneti_tools_backtrace_ifenabled)
        gasnett_print_backtrace_ifenabled = core_backtrace_ifenabled;
    on_exit(on_exit_hook, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = quit_handler;
    sigaction(SIGQUIT, &sa, NULL);
    sa.sa_sigaction = fatal_signal_handler;
    sa.sa_flags = SA_SIGINFO;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) sigaction(sigs[i], &sa, NULL);
}
