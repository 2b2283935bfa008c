/* gasneti_netkit.h: the conduit toolkit -- what every network conduit needs besides its
 * network, written once. Layer: core, for network conduits (never included by the core
 * itself or by smp). A conduit includes this one header; its parts:
 *   gasneti_wire.h    one AM wire layout (the conduit's own fields in a prefix), built,
 *                     checked and decoded; delivery; requests kept for the next top-level
 *                     poll (gasneti_deferq.c)
 *   gasneti_credit.h  request credits per peer, returned in headers or credit messages
 *   gasneti_slots.h   the send-slot pool (aligned buffers, optional registration)
 *   here              the conduit's lock, the wait-for-room loop, replies-only waiting,
 *                     the peers a flush must reach, and error reports naming the peer's
 *                     rank and host (gasneti_netkit.c)
 * How a conduit uses it: docs/conduit-toolkit.md. The rules it follows (where handlers
 * run, which locks are held when): conduit_contract.h, "Rules".
 * Locks: each conduit has one gasneti_netlock_t around its network calls and its state;
 * the toolkit's credit and slot functions expect it held, the wire and defer functions
 * take no lock of the conduit's (the defer queue has its own), and nothing here delivers
 * or waits with it held. */
#ifndef GASNETI_NETKIT_H
#define GASNETI_NETKIT_H

#include "conduit_contract.h"
#include "gasneti_credit.h"
#include "gasneti_slots.h"
#include "gasneti_wire.h"

/* ---- the conduit's lock (PAR, PARSYNC; nothing in SEQ) ----
 * Taken at every send and poll, held briefly. On Linux:
 *   - biased to one thread while only one uses it: the first thread to take it (the
 *     owner) takes and gives it back with plain stores (inside), no atomic instruction,
 *     until another thread wants it. That one revokes the bias once: marks it REVOKING,
 *     has every CPU running this process's threads pass a memory barrier
 *     (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED), which makes the owner's store to
 *     inside visible or its next read of bias see the revocation (FENCED), waits for
 *     inside to be 0, and marks it OFF. A PAR client that calls GASNet from one thread never pays an
 *     atomic for the lock (issue 45: two per poll and two per send); one that has
 *     several pays one membarrier per lock, once. Without membarrier the bias is off.
 *   - then (or from the start) a word taken by one compare-and-swap and given back by one
 *     exchange, with a futex for the waiters (0 free, 1 held, 2 held with waiters); a
 *     pthread mutex costs some 45 instructions more per lock and unlock.
 * The slow halves are in gasneti_netkit.c. Elsewhere a pthread mutex. */
#if GASNETI_LOCKS && defined(__linux__)
enum { GASNETI_BIAS_OFF = 0, GASNETI_BIAS_ON = 1, GASNETI_BIAS_REVOKING = 2, GASNETI_BIAS_FENCED = 3 };
typedef struct {
    int state;         /* the futex word, once the bias is off */
    int bias;          /* GASNETI_BIAS_* */
    int inside;        /* the owner holds it by the bias (written by the owner only) */
    int claimed;       /* a thread took the bias (which one: its gasneti_netlock_mine) */
} gasneti_netlock_t;
#  define GASNETI_NETLOCK_INIT {0, GASNETI_BIAS_ON, 0, 0}
/* the lock whose bias this thread holds (one at most), until it sees the bias revoked:
 * while it is l, this thread took l by the bias (one compare to know it) */
extern GASNETI_THREADLOCAL gasneti_netlock_t *gasneti_netlock_mine;
extern void gasneti_netlock_slow(gasneti_netlock_t *l) GASNETI_COLD;
extern void gasneti_netlock_wake(gasneti_netlock_t *l) GASNETI_COLD;
extern int gasneti_nettrylock(gasneti_netlock_t *l); /* 1: taken (not hot: shut-down) */
GASNETI_ALWAYS_INLINE void gasneti_netlock(gasneti_netlock_t *l) {
    if (GASNETI_LIKELY(gasneti_netlock_mine == l)) {
        __atomic_store_n(&l->inside, 1, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the store, then the load (a revoker's membarrier makes the CPU keep that order) */
        if (GASNETI_LIKELY(__atomic_load_n(&l->bias, __ATOMIC_RELAXED) == GASNETI_BIAS_ON)) return;
        __atomic_store_n(&l->inside, 0, __ATOMIC_RELEASE);
    }
    gasneti_netlock_slow(l); /* (which forgets the bias: gasneti_netlock_mine no longer l) */
}
GASNETI_ALWAYS_INLINE void gasneti_netunlock(gasneti_netlock_t *l) {
    if (GASNETI_LIKELY(gasneti_netlock_mine == l)) { /* taken by the bias */
        __atomic_store_n(&l->inside, 0, __ATOMIC_RELEASE);
        return;
    }
    if (GASNETI_UNLIKELY(__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2)) gasneti_netlock_wake(l);
}
#elif GASNETI_LOCKS
#  include <pthread.h>
typedef pthread_mutex_t gasneti_netlock_t;
#  define GASNETI_NETLOCK_INIT PTHREAD_MUTEX_INITIALIZER
GASNETI_ALWAYS_INLINE void gasneti_netlock(gasneti_netlock_t *l) { pthread_mutex_lock(l); }
GASNETI_ALWAYS_INLINE void gasneti_netunlock(gasneti_netlock_t *l) { pthread_mutex_unlock(l); }
GASNETI_ALWAYS_INLINE int gasneti_nettrylock(gasneti_netlock_t *l) { return pthread_mutex_trylock(l) == 0; }
#else
typedef struct {
    char unused;
} gasneti_netlock_t;
#  define GASNETI_NETLOCK_INIT {0}
GASNETI_ALWAYS_INLINE void gasneti_netlock(gasneti_netlock_t *l) { (void)l; }
GASNETI_ALWAYS_INLINE void gasneti_netunlock(gasneti_netlock_t *l) { (void)l; }
GASNETI_ALWAYS_INLINE int gasneti_nettrylock(gasneti_netlock_t *l) { return (void)l, 1; }
#endif

/* ---- may requests run in this poll? ----
 * Not inside a handler, nor while this thread waits with gasneti_net_wait_local: then a
 * conduit's poll keeps arrived requests (gasneti_defer_if) and runs replies only.
 * gasnetc_poll passes this to its receive loop. */
extern GASNETI_THREADLOCAL int gasneti_replies_only;
GASNETI_ALWAYS_INLINE int gasneti_net_nested(void) { return gasneti_cur_token != NULL || gasneti_replies_only; }
/* gasneti_defer_run for a poll that did not compute gasneti_net_nested(): asks it only
 * when requests are kept (the acquire keeps the compiler from asking first: issue 45) */
GASNETI_ALWAYS_INLINE int gasneti_defer_run_here(size_t pre) {
    if (GASNETI_LIKELY(!__atomic_load_n(&gasneti_defer_nonempty, __ATOMIC_ACQUIRE))) return 0;
    return gasneti_defer_run(gasneti_net_nested(), pre);
}

/* ---- waiting for room to send m ----
 * Takes the conduit's lock l once room(arg), called with it held, returns 1 (room may
 * reserve, or even send, what it found). While room returns 0 the lock is released and
 * gasneti_wait_for_room(m->is_req) polls (replies only for a reply or inside a handler;
 * empty polls back off): the contract's rule for every conduit's waiting. Returns
 * GASNET_OK holding l, or, with GEX_FLAG_IMMEDIATE in m->flags, GASNETI_AM_WOULD_BLOCK at
 * the first refusal, not holding it. Inline, so that room is too. */
GASNETI_ALWAYS_INLINE int gasneti_lock_room(gasneti_netlock_t *l, int (*room)(void *), void *arg,
                                            const gasneti_am_msg_t *m) {
    gasneti_netlock(l);
    while (!room(arg)) {
        gasneti_netunlock(l);
        if (m->flags & GEX_FLAG_IMMEDIATE) return GASNETI_AM_WOULD_BLOCK;
        gasneti_wait_for_room_to(m->jobrank, m->is_req);
        gasneti_netlock(l);
    }
    return GASNET_OK;
}

/* Wait until *c is 0 (a send whose source the caller must not reuse before: no lc was
 * given), polling replies only: a request handler run meanwhile could write the source
 * (a Prepare's library buffer is per thread). The caller holds no lock of the conduit's. */
extern void gasneti_net_wait_local(gasneti_counter_t *c);

/* ---- the peers put to since the last flush ----
 * For a conduit whose puts complete remotely only by a flush (GASNETC_RMA_FLUSH): each put
 * marks its target, the flush takes the marked ones and reaches each once. Both under the
 * conduit's lock. */
typedef struct {
    uint8_t *marked;  /* [gasneti_nodes] */
    gex_Rank_t *list; /* the marked ones, n of them, in the order first marked */
    size_t n;
} gasneti_dirty_t;
extern void gasneti_dirty_init(gasneti_dirty_t *d);
GASNETI_ALWAYS_INLINE void gasneti_dirty_mark(gasneti_dirty_t *d, gex_Rank_t jr) {
    if (d->marked[jr]) return;
    d->marked[jr] = 1;
    d->list[d->n++] = jr;
}
/* moves the marked peers into out (room for gasneti_nodes) and clears; returns how many */
extern size_t gasneti_dirty_take(gasneti_dirty_t *d, gex_Rank_t *out);

/* ---- errors ----
 * A network call failed: "<conduit>-conduit: <call> with rank R (host H) failed:
 * <net_errstr>" (peer GEX_RANK_INVALID: without the rank), then the job ends. */
extern void gasneti_peer_fail(const char *call, const char *net_errstr, gex_Rank_t peer) GASNETI_COLD GASNETI_NORETURN;
/* the host rank r runs on (from host discovery at start-up, gasneti_client.c); "?" if unknown */
extern const char *gasneti_host_name(gex_Rank_t r);

#endif
