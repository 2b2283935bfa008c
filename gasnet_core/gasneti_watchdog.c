/* gasneti_watchdog.c: a stalled job explains itself (issue 46). Owns the on-demand state
 * dump (SIGUSR1, or GASNET_DUMP_SIGNAL) and the watchdog (GASNET_WATCHDOG=SECONDS,
 * GASNET_WATCHDOG_ABORT=1). Layer: core.
 *
 * The dump is one block per rank on stderr, every line prefixed "[R@HOST]": what this
 * thread is blocked in (the waits marked with GASNETI_WAITING, described by the layer
 * that marked them: gasneti_layer->describe), per peer with anything outstanding a line
 * (same-host AMs not yet handled, the conduit's credits and queues, when a message last
 * came from it), the others counted, the segment and endpoints, and the conduit's own
 * lines (gasneti_diag_register). It is written with one write(2).
 * Signal safety: the handler only sets gasneti_dump_pending; the block is printed by the
 * next poll of any thread (gasneti_poll_backoff), so a rank blocked in the library prints
 * at once and a rank busy outside it prints when it next enters it.
 * The watchdog rides on the poll back-off: when a waiting thread's run of empty polls
 * gives up its CPU (gasneti_watchdog_idle), the clock is read; a wait marked with
 * GASNETI_WAITING whose polls found nothing for GASNET_WATCHDOG seconds prints the block
 * once per stall (any message or completion found ends the stall), and with
 * GASNET_WATCHDOG_ABORT=1 ends the job with GASNETI_WATCHDOG_STATUS and one line naming
 * the rank and the wait. */
#include "conduit_contract.h"
#include "gasneti_dumpsig.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

GASNETI_THREADLOCAL gasneti_waitrec_t *gasneti_waiting;
volatile int gasneti_dump_pending;
uint32_t *gasneti_heard_ms;
uint32_t gasneti_coarse_ms;

static int dump_sig;           /* 0: none */
static uint32_t watchdog_ms;   /* 0: off */
static int watchdog_abort;
static double t_start;
static const gasneti_diag_conduit_t *conduit_hooks;

void gasneti_diag_register(const gasneti_diag_conduit_t *hooks) { conduit_hooks = hooks; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
/* 1 at start: a stamp of 0 means never */
static uint32_t now_ms(void) { return (uint32_t)((now_s() - t_start) * 1000.0) + 1; }

/* ---- the signal ---- */
static void on_dump_signal(int sig) {
    (void)sig;
    gasneti_dump_pending = 1; /* all a handler may safely do: the next poll prints */
}

void gasneti_watchdog_init(void) {
    t_start = now_s();
    __atomic_store_n(&gasneti_coarse_ms, 1, __ATOMIC_RELAXED);
    const char *s = gasneti_getenv_dflt("GASNET_DUMP_SIGNAL", "USR1");
    dump_sig = gasneti_dump_signal_parse(s);
    if (dump_sig < 0)
        gasneti_launch_error("GASNET_DUMP_SIGNAL=%s: not a signal the dump may use (a name such as USR1 or USR2, a "
                             "number, or none)", s);
    const char *w = gasneti_getenv_dflt("GASNET_WATCHDOG", "0 (off)");
    if (w) {
        char *end;
        double secs = strtod(w, &end);
        if (end == w || *end || secs < 0 || secs > 4e6)
            gasneti_launch_error("GASNET_WATCHDOG=%s: give the seconds of no progress after which a rank reports "
                                 "(0: off)", w);
        watchdog_ms = (uint32_t)(secs * 1000.0 + 0.5);
        if (secs > 0 && !watchdog_ms) watchdog_ms = 1;
    }
    watchdog_abort = gasneti_getenv_yesno("GASNET_WATCHDOG_ABORT", 0);
    gasneti_heard_ms = calloc(gasneti_nodes, sizeof(*gasneti_heard_ms));
    if (dump_sig) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_dump_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        /* a client that took the signal before us keeps it */
        if (sigaction(dump_sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL) sigaction(dump_sig, &sa, NULL);
    }
}

/* ---- the block ---- */
static char out[16384];
static size_t outlen;
static char prefix[96];

static void emit(const char *fmt, ...) GASNETI_FORMAT_PRINTF(1, 2);
static void emit(const char *fmt, ...) {
    if (outlen + 2 >= sizeof(out)) return;
    int n = snprintf(out + outlen, sizeof(out) - outlen, "%s", prefix);
    if (n > 0) outlen += (size_t)n < sizeof(out) - outlen ? (size_t)n : sizeof(out) - outlen - 1;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(out + outlen, sizeof(out) - outlen, fmt, ap);
    va_end(ap);
    if (n > 0) outlen += (size_t)n < sizeof(out) - outlen ? (size_t)n : sizeof(out) - outlen - 1;
    if (outlen + 1 < sizeof(out)) out[outlen++] = '\n';
}

static void flush_out(void) {
    size_t done = 0;
    while (done < outlen) {
        ssize_t w = write(2, out + done, outlen - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    outlen = 0;
}

static void ago(char *buf, size_t len, uint32_t stamp, uint32_t now) {
    if (!stamp)
        snprintf(buf, len, "never");
    else
        snprintf(buf, len, "%.1f s ago", (now - stamp) / 1000.0); /* stamps: as of this thread's last idle yield */
}

/* one wait, described by whoever knows it */
static void describe(const gasneti_waitrec_t *w, char *buf, size_t len) {
    buf[0] = 0;
    if (w->kind == GASNETI_WAIT_ROOM && !w->obj) {
        snprintf(buf, len, "room to send an AM (a send slot, a credit or the network)");
    } else if (w->kind == GASNETI_WAIT_ROOM) {
        gex_Rank_t r = (gex_Rank_t)((uintptr_t)w->obj - 1);
        snprintf(buf, len, "room to send an AM to rank %u (host %s): none yet (its queue, our credits, the window or a "
                 "send slot)", (unsigned)r,
                 gasneti_host_name(r));
    } else if (gasneti_layer && gasneti_layer->describe) {
        gasneti_layer->describe(w, buf, len);
    }
}

/* this thread's waits, outermost first, on one line */
static void wait_line(char *buf, size_t len, const gasneti_waitrec_t *inner) {
    const gasneti_waitrec_t *chain[8];
    int n = 0;
    for (const gasneti_waitrec_t *w = inner; w && n < 8; w = w->outer) chain[n++] = w;
    size_t at = 0;
    buf[0] = 0;
    for (int i = n - 1; i >= 0 && at + 8 < len; i--) {
        char d[512];
        describe(chain[i], d, sizeof(d));
        int k = snprintf(buf + at, len - at, "%s%s%s%s", i == n - 1 ? "" : " > ", chain[i]->call, d[0] ? ": " : "",
                         d);
        if (k < 0) break;
        at += (size_t)k < len - at ? (size_t)k : len - at - 1;
    }
}

static void peer_lines(uint32_t now) {
    gex_Rank_t quiet = 0;
    const gex_Rank_t room_to = gasneti_waiting && gasneti_waiting->kind == GASNETI_WAIT_ROOM && gasneti_waiting->obj
                                   ? (gex_Rank_t)((uintptr_t)gasneti_waiting->obj - 1)
                                   : GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        if (r == gasneti_mynode) continue;
        char line[600], heard[32];
        size_t at = 0;
        int busy = 0;
        line[0] = 0;
        if (gasneti_nbrhd_index[r] >= 0) {
            busy |= gasneti_pshm_diag(r, line, sizeof(line));
        } else if (conduit_hooks && conduit_hooks->peer) {
            busy |= conduit_hooks->peer(r, line, sizeof(line));
        }
        busy |= r == room_to;
        if (!busy) {
            quiet++;
            continue;
        }
        at = strlen(line);
        ago(heard, sizeof(heard), gasneti_heard_ms ? __atomic_load_n(&gasneti_heard_ms[r], __ATOMIC_RELAXED) : 0, now);
        snprintf(line + at, sizeof(line) - at, "%slast message from it %s", at ? "; " : "", heard);
        emit("peer %u (%s, %s): %s", (unsigned)r, gasneti_host_name(r),
             gasneti_nbrhd_index[r] >= 0 ? "same host" : GASNETC_NAME, line);
    }
    emit("peers with nothing outstanding: %u of %u", (unsigned)quiet, (unsigned)(gasneti_nodes - 1));
}

static void summary_lines(void) {
    unsigned neps = 0;
    for (unsigned i = 0; i < GASNET_MAXEPS; i++) neps += gasneti_eps[i] != NULL;
    gex_Segment_t seg = gasneti_client0 && gasneti_client0->_ep0 ? gasneti_client0->_ep0->_segment : NULL;
    if (seg)
        emit("segment: %p, %lu bytes%s; endpoints: %u; neighborhood: %u of %u ranks", seg->_addr,
             (unsigned long)seg->_size, seg->_shm ? " (shared memory)" : "", neps, (unsigned)gasneti_nbrhd_size,
             (unsigned)gasneti_nodes);
    else
        emit("segment: none attached; endpoints: %u; neighborhood: %u of %u ranks", neps,
             (unsigned)gasneti_nbrhd_size, (unsigned)gasneti_nodes);
}

static void conduit_line(const char *fmt, ...) GASNETI_FORMAT_PRINTF(1, 2);
static void conduit_line(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    emit("%s: %s", GASNETC_NAME, buf);
}

static int dumping;

void gasneti_dump_state(const char *why) {
    if (__atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE)) return; /* another thread is at it */
    uint32_t now = now_ms();
    __atomic_store_n(&gasneti_coarse_ms, now, __ATOMIC_RELAXED);
    const char *host = gasneti_host_name(gasneti_mynode);
    snprintf(prefix, sizeof(prefix), "[%u@%s] ", (unsigned)gasneti_mynode, host);
    emit("*** GASNet state of rank %u of %u on host %s (pid %d), %s, %.3f s after start", (unsigned)gasneti_mynode,
         (unsigned)gasneti_nodes, host, (int)getpid(), why, now / 1000.0);
    char w[1600];
    if (gasneti_waiting) {
        wait_line(w, sizeof(w), gasneti_waiting);
        emit("blocked in %s", w);
    } else {
        emit("blocked in nothing (this thread is not waiting in the library)");
    }
    emit("primordial barriers started: %u", (unsigned)__atomic_load_n(&gasneti_barriers_started, __ATOMIC_RELAXED));
    if (gasneti_nodes > 1) peer_lines(now);
    summary_lines();
    if (conduit_hooks && conduit_hooks->lines) conduit_hooks->lines(conduit_line);
    emit("*** end of rank %u's state", (unsigned)gasneti_mynode);
    flush_out();
    __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
}

void gasneti_dump_service(void) {
    if (!__atomic_exchange_n(&gasneti_dump_pending, 0, __ATOMIC_ACQ_REL)) return;
    char why[64];
    snprintf(why, sizeof(why), "on signal %d (%s)", dump_sig, strsignal(dump_sig));
    gasneti_dump_state(why);
}

/* ---- the watchdog ---- */
static GASNETI_THREADLOCAL uint32_t idle_since; /* this thread's run of empty polls began (coarse ms) */
static GASNETI_THREADLOCAL int fired;           /* reported this run */

void gasneti_watchdog_idle(unsigned nth_yield) {
    uint32_t now = now_ms();
    __atomic_store_n(&gasneti_coarse_ms, now, __ATOMIC_RELAXED);
    if (nth_yield == 1) {
        idle_since = now;
        fired = 0;
        return;
    }
    if (!watchdog_ms || fired || !gasneti_waiting || now - idle_since < watchdog_ms) return;
    fired = 1;
    char why[80], w[1600];
    snprintf(why, sizeof(why), "by the watchdog: no progress for %.1f s", (now - idle_since) / 1000.0);
    gasneti_dump_state(why);
    if (!watchdog_abort) return;
    wait_line(w, sizeof(w), gasneti_waiting);
    fprintf(stderr, "*** GASNet watchdog: rank %u on host %s made no progress for %.1f s in %s; ending the job "
            "(status %d)\n", (unsigned)gasneti_mynode, gasneti_host_name(gasneti_mynode),
            (now - idle_since) / 1000.0, w, GASNETI_WATCHDOG_STATUS);
    fflush(stderr);
    gasneti_exit_now(GASNETI_WATCHDOG_STATUS);
}
