/* gasneti_netkit.c: the out-of-line part of the conduit toolkit (gasneti_netkit.h):
 * replies-only waiting, the peers a flush must reach, and the error reports that name a
 * peer. Layer: core, for network conduits; compiled into every library (smp never calls
 * it). */
#include "gasneti_netkit.h"

#if GASNETI_LOCKS && defined(__linux__)
#  include <linux/futex.h>
#  include <linux/membarrier.h>
#  include <sched.h>
#  include <sys/syscall.h>
#  include <unistd.h>
#endif

GASNETI_THREADLOCAL int gasneti_replies_only;

#if GASNETI_LOCKS && defined(__linux__)
GASNETI_THREADLOCAL gasneti_netlock_t *gasneti_netlock_mine;

/* may a lock be biased: not GASNET_LOCK_BIAS=0, and membarrier's expedited private
 * command registered (once per process; 1 yes, -1 no, 0 not asked yet) */
static int bias_ok;
static int bias_possible(void) {
    int ok = __atomic_load_n(&bias_ok, __ATOMIC_ACQUIRE);
    if (!ok) {
        ok = gasneti_getenv_yesno("GASNET_LOCK_BIAS", 1) &&
                     syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0
                 ? 1
                 : -1;
        __atomic_store_n(&bias_ok, ok, __ATOMIC_RELEASE);
    }
    return ok > 0;
}
static void pause_a_while(unsigned *spins) {
    if (++*spins < 256)
        gasnett_spinloop_hint();
    else
        sched_yield();
}
/* the bias ends (this thread is not the owner, or membarrier is missing). The first to
 * ask revokes it: REVOKING, the barrier on every CPU, FENCED (the owner either stored
 * inside = 1 before that barrier, and we see it, or reads the revocation after it and
 * keeps out of the bias); once the owner is out (inside 0), anyone marks it OFF and every
 * thread takes the futex word. Returns 1 once OFF; with wait 0, 0 at once if the owner
 * is inside (gasneti_nettrylock: the owner may be stuck in a fatal error) */
static int bias_off(gasneti_netlock_t *l, int wait) {
    int b = GASNETI_BIAS_ON;
    unsigned spins = 0;
    if (__atomic_compare_exchange_n(&l->bias, &b, GASNETI_BIAS_REVOKING, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
        if (__atomic_load_n(&l->claimed, __ATOMIC_SEQ_CST) &&
            syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
            gasneti_fatalerror("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after its registration succeeded");
        __atomic_store_n(&l->bias, GASNETI_BIAS_FENCED, __ATOMIC_RELEASE);
    }
    while ((b = __atomic_load_n(&l->bias, __ATOMIC_ACQUIRE)) != GASNETI_BIAS_OFF) {
        if (b == GASNETI_BIAS_FENCED && !__atomic_load_n(&l->inside, __ATOMIC_ACQUIRE))
            __atomic_compare_exchange_n(&l->bias, &b, GASNETI_BIAS_OFF, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        else if (!wait)
            return 0;
        else
            pause_a_while(&spins);
    }
    return 1;
}
static int word_trylock(gasneti_netlock_t *l) {
    int free_ = 0;
    return __atomic_compare_exchange_n(&l->state, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
/* the futex word: a short spin, as the holder usually gives it back within a network
 * call, then marked as waited for (2) and slept on */
static void word_lock(gasneti_netlock_t *l) {
    if (word_trylock(l)) return;
    for (int i = 0; i < 64; i++) {
        gasnett_spinloop_hint();
        if (__atomic_load_n(&l->state, __ATOMIC_RELAXED) == 0 && word_trylock(l)) return;
    }
    while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}
/* the first thread to come claims the bias, if it holds no other lock's: 1 if it is now
 * this thread's (a revocation that began before the claim is seen by the check after it:
 * both sequentially consistent, as bias_off's reading of the owner) */
static int claim(gasneti_netlock_t *l) {
    int none = 0;
    if (gasneti_netlock_mine || __atomic_load_n(&l->claimed, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&l->bias, __ATOMIC_ACQUIRE) != GASNETI_BIAS_ON || !bias_possible())
        return 0;
    if (!__atomic_compare_exchange_n(&l->claimed, &none, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&l->bias, __ATOMIC_SEQ_CST) != GASNETI_BIAS_ON)
        return 0;
    gasneti_netlock_mine = l;
    return 1;
}
/* gasneti_netlock's slow half: not the owner, or the owner seeing the bias revoked */
void gasneti_netlock_slow(gasneti_netlock_t *l) {
    if (gasneti_netlock_mine == l) {
        gasneti_netlock_mine = NULL; /* revoked: from now on the word, unlock included */
    } else if (claim(l)) {
        gasneti_netlock(l); /* the owner now: by the bias, unless revoked meanwhile */
        return;
    }
    if (__atomic_load_n(&l->bias, __ATOMIC_ACQUIRE) != GASNETI_BIAS_OFF) bias_off(l, 1);
    word_lock(l);
}
int gasneti_nettrylock(gasneti_netlock_t *l) {
    if (gasneti_netlock_mine == l) {
        if (__atomic_load_n(&l->inside, __ATOMIC_RELAXED)) return 0; /* this thread holds it */
        if (__atomic_load_n(&l->bias, __ATOMIC_ACQUIRE) == GASNETI_BIAS_ON) {
            gasneti_netlock(l); /* by the bias (or, revoked meanwhile, the word) */
            return 1;
        }
        gasneti_netlock_mine = NULL;
    } else if (claim(l)) {
        gasneti_netlock(l);
        return 1;
    }
    if (__atomic_load_n(&l->bias, __ATOMIC_ACQUIRE) != GASNETI_BIAS_OFF && !bias_off(l, 0)) return 0;
    return word_trylock(l);
}
/* given back with waiters: one of them wakes (and takes it marked 2, so the next
 * unlock wakes another if there is one) */
void gasneti_netlock_wake(gasneti_netlock_t *l) { syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
#endif

void *gasneti_net_malloc(size_t n, const char *what) {
    void *p;
    if (posix_memalign(&p, 64, n ? n : 1))
        gasneti_fatalerror("%s-conduit: out of memory for %s (%zu bytes)", GASNETC_NAME, what, n);
    return p;
}

void gasneti_net_wait_local(gasneti_counter_t *c) {
    gasneti_replies_only++;
    while (gasneti_atomic_read(c) != 0) gasneti_wait_for_room(0);
    gasneti_replies_only--;
}

void gasneti_dirty_init(gasneti_dirty_t *d) {
    d->marked = gasneti_net_malloc(gasneti_nodes, "the peers put to");
    memset(d->marked, 0, gasneti_nodes);
    d->list = gasneti_net_malloc(gasneti_nodes * sizeof(gex_Rank_t), "the peers put to");
    d->n = 0;
}

size_t gasneti_dirty_take(gasneti_dirty_t *d, gex_Rank_t *out) {
    size_t n = d->n;
    for (size_t i = 0; i < n; i++) {
        out[i] = d->list[i];
        d->marked[out[i]] = 0;
    }
    d->n = 0;
    return n;
}

void gasneti_peer_fail(const char *call, const char *net_errstr, gex_Rank_t peer) {
    if (peer != GEX_RANK_INVALID)
        gasneti_fatalerror("%s-conduit: %s with rank %u (host %s) failed: %s", GASNETC_NAME, call, (unsigned)peer,
                           gasneti_host_name(peer), net_errstr);
    gasneti_fatalerror("%s-conduit: %s failed: %s", GASNETC_NAME, call, net_errstr);
}

void gasneti_wire_bad(const char *why, gex_Rank_t src) {
    gasneti_fatalerror("%s-conduit: a malformed message from rank %u (host %s): %s", GASNETC_NAME, (unsigned)src,
                       gasneti_host_name(src), why);
}
