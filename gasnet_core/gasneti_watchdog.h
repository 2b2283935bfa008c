/* gasneti_watchdog.h: what a rank is blocked in, the on-demand state dump (SIGUSR1 or
 * GASNET_DUMP_SIGNAL) and the watchdog (GASNET_WATCHDOG); gasneti_watchdog.c.
 * Layer: core. Included by gasneti_internal.h, so every layer may mark its waits.
 *
 * A blocking call marks what it waits for with one line, GASNETI_WAITING(call, kind, obj),
 * at the top of its wait: a record on this thread's stack, in a per-thread list, taken
 * off again when the enclosing block ends. Nothing else is done on the fast path: the
 * dump is printed from the next poll after the signal (the handler only sets a flag),
 * and the watchdog's clock is read only where an idle poll loop already gives up its CPU
 * (gasneti_poll_backoff). docs/diagnostics.md, "A stalled job". */
#ifndef GASNETI_WATCHDOG_H
#define GASNETI_WATCHDOG_H

#include <stddef.h>
#include <stdint.h>

/* what kind of thing a blocking call waits for (obj's meaning) */
enum {
    GASNETI_WAIT_EVENT = 1, /* obj: the gex_Event_t */
    GASNETI_WAIT_EVENTS,    /* obj: the gex_Event_t array (gex_Event_WaitAll/Some) */
    GASNETI_WAIT_NBI,       /* obj: the gex_EC_t mask, cast */
    GASNETI_WAIT_LEGACY_BARRIER, /* obj: the barrier's gex_Event_t (gasnet_barrier_wait) */
    GASNETI_WAIT_ROOM,      /* obj: the destination jobrank + 1, cast (room to send an AM) */
    GASNETI_WAIT_OTHER      /* obj: unused */
};

typedef struct gasneti_waitrec_s {
    const char *call; /* the API call (or the library's own wait) */
    int kind;         /* GASNETI_WAIT_* */
    const void *obj;
    struct gasneti_waitrec_s *outer; /* the wait this one is inside of, or NULL */
} gasneti_waitrec_t;

/* this thread's innermost wait, NULL when it is not blocked in the library */
extern GASNETI_THREADLOCAL gasneti_waitrec_t *gasneti_waiting;
static inline void gasneti_wait_end(gasneti_waitrec_t *w) { gasneti_waiting = w->outer; }
#define GASNETI_WAITING(call, kind, obj)                                                              \
    gasneti_waitrec_t _gasneti_wr __attribute__((cleanup(gasneti_wait_end))) = {(call), (kind),       \
                                                                                 (const void *)(obj), \
                                                                                 gasneti_waiting};   \
    gasneti_waiting = &_gasneti_wr

/* set by the dump signal's handler (nothing else happens in the handler); the next poll
 * of any thread prints the dump */
extern volatile int gasneti_dump_pending;
/* the dump, printed now to stderr in one write; why: "signal 10" or "watchdog" */
extern void gasneti_dump_state(const char *why);
/* the poll back-off's hooks (gasneti_am.c): a pending dump; an idle loop yielding (the
 * n-th yield of this thread's run of empty polls; 1 is the first) */
extern void gasneti_dump_service(void);
extern void gasneti_watchdog_idle(unsigned nth_yield);
/* at gex_Client_Init, once the rank is known: reads GASNET_DUMP_SIGNAL, GASNET_WATCHDOG,
 * GASNET_WATCHDOG_ABORT and installs the handler */
extern void gasneti_watchdog_init(void);
/* the job's status when GASNET_WATCHDOG_ABORT=1 ends it (docs/diagnostics.md) */
#define GASNETI_WATCHDOG_STATUS 122

/* GASNET_DUMP_SIGNAL's value: gasneti_dumpsig.h (shared with the launchers) */

/* When the last message from jobrank r arrived, in the dump's coarse clock (milliseconds
 * since start, updated when a waiting thread yields): stamped on delivery. Any thread may
 * stamp or read: relaxed atomics (plain moves on x86). */
extern uint32_t *gasneti_heard_ms; /* [gasneti_nodes] */
extern uint32_t gasneti_coarse_ms;
#define GASNETI_HEARD_FROM(r) \
    do { \
        if (gasneti_heard_ms) \
            __atomic_store_n(&gasneti_heard_ms[r], __atomic_load_n(&gasneti_coarse_ms, __ATOMIC_RELAXED), \
                             __ATOMIC_RELAXED); \
    } while (0)

/* The layer above's description of a wait (struct gasneti_layer_s.describe), and a
 * conduit's lines (conduit_contract.h, gasneti_diag_register). Both write at most len
 * bytes, no newline. */
typedef void (*gasneti_describe_fn_t)(const gasneti_waitrec_t *w, char *buf, size_t len);

#endif
