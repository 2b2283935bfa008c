/* gasnete_barrier.c: barriers over the primordial team (other teams: gasnete_coll.c):
 * gex_Coll_BarrierNB and gex_Coll_BarrierBlocking (any team), and the legacy
 * gasnet_barrier_notify/wait/try/result with named/anonymous/unnamed ids and mismatch
 * detection. gasnete_progress also drives the collectives.
 * Layer: extended. Algorithm: dissemination over AMs (ceil(log2 N) rounds; in round k a
 * rank tells rank+2^k what it has heard and waits to hear from rank-2^k). The (flags,
 * id) pair travels along and is merged, so after the last round every rank knows
 * whether any two named ids differed or any rank passed GASNET_BARRIERFLAG_MISMATCH.
 * Handlers only record arrivals; rounds advance in gasnete_progress (called by polls).
 * When every rank of the job shares this host's memory (one neighborhood), the barrier is
 * a counter in shared memory instead (below; GASNET_BARRIER=AMDISSEM keeps the AMs). */
#include "gasnete_internal.h"

#include <gasnet.h>
#include <strings.h>

#define SLOTS 4     /* arrivals for barrier seq land in slot seq % SLOTS (skew is at most 1) */
#define MAXROUNDS 32

typedef struct {
    int flags, value;
} barval_t;

typedef struct {
    uint32_t seq_plus1; /* which barrier this arrival belongs to (0: empty) */
    barval_t v;
} arrival_t;

typedef struct barop_s {
    uint32_t seq;
    int round, sent;  /* next round to finish; whether its message went out */
    barval_t acc;     /* merged so far */
    gex_Event_t ev;   /* completion (pending counter) */
    int keep;         /* legacy barrier: the waiter reads acc, then frees the op */
    struct barop_s *next;
} barop_t;

static gex_HSL_t lock = GEX_HSL_INITIALIZER;
static arrival_t arrivals[SLOTS][MAXROUNDS];
static barop_t *op_head, **op_tail = &op_head; /* started operations, oldest first (any number) */
static uint32_t next_seq;
static int nrounds = -1;
static int in_progress;       /* guards against re-entry through a poll while sending */
/* Bumped (lock held) by what may let the oldest barrier move: an arrival, a new barrier.
 * gasnete_progress notes its value (idle_at) when the oldest waits for a peer's message;
 * until it changes, a poll passes the barrier by without its lock (issue 45: a rank that
 * serves AMs while it waits in a barrier polls at the cost of two loads, not of a lock). */
static uint32_t moved, idle_at = UINT32_MAX;

static barval_t merge(barval_t a, barval_t b) {
    if ((a.flags | b.flags) & GASNET_BARRIERFLAG_MISMATCH) return (barval_t){GASNET_BARRIERFLAG_MISMATCH, 0};
    if (a.flags & GASNET_BARRIERFLAG_ANONYMOUS) return b;
    if (b.flags & GASNET_BARRIERFLAG_ANONYMOUS) return a;
    if (a.value != b.value) return (barval_t){GASNET_BARRIERFLAG_MISMATCH, 0};
    return a;
}

/* ---- the same-host barrier: an exchange of (flags, id) (gasnete_internal.h). One
 * barrier is in progress per rank at a time (the oldest started), and a rank merges every
 * rank's pair as soon as it sees its barrier complete, as the exchange requires. */
_Static_assert(sizeof(barval_t) == 8, "gasnete_coll.c's layout gives the barrier's exchange 8 bytes");
static int shm_on; /* decided at the first barrier (before any op exists) */

static int shm_decide(void) {
    const char *how = gasneti_getenv_dflt("GASNET_BARRIER", "PSHM"); /* NULL: unset */
    if (how && strcasecmp(how, "PSHM") && strcasecmp(how, "AMDISSEM") && strcasecmp(how, "DISSEM"))
        gasneti_fatalerror("GASNET_BARRIER=%s: the barriers here are PSHM (the default, when every rank is on this "
                           "host) and AMDISSEM",
                           how);
    return !(how && strcasecmp(how, "PSHM")) && gasneti_nodes > 1 && gasnete_coll_team_on_host(gasneti_tm0);
}

/* lock held: arrives at op's barrier (once), then returns whether it is complete; when it
 * is, op->acc holds every rank's (flags, id) merged */
static int shm_step(barop_t *op) {
    if (!op->sent) {
        gasnete_shmx_arrive(GASNETE_SHM_BARRIER_OFF, sizeof(barval_t), op->seq, &op->acc, sizeof(barval_t));
        op->sent = 1;
    }
    if (!gasnete_shmx_done(GASNETE_SHM_BARRIER_OFF, op->seq)) return 0;
    barval_t acc, v;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        memcpy(&v, gasnete_shmx_data(GASNETE_SHM_BARRIER_OFF, sizeof(barval_t), op->seq, r), sizeof(v));
        acc = r ? merge(acc, v) : v;
    }
    op->acc = acc;
    op->round = nrounds;
    return 1;
}

void gasnete_barrier_handler(gex_Token_t t, gex_AM_Arg_t team, gex_AM_Arg_t seq, gex_AM_Arg_t round,
                             gex_AM_Arg_t flags, gex_AM_Arg_t value) {
    (void)t, (void)team;
    gex_HSL_Lock(&lock);
    arrival_t *a = &arrivals[(uint32_t)seq % SLOTS][round];
    if (a->seq_plus1 == (uint32_t)seq + 1)
        gasneti_fatalerror("barrier: duplicate arrival for barrier %u round %d", (unsigned)seq, (int)round);
    a->v.flags = flags;
    a->v.value = value;
    a->seq_plus1 = (uint32_t)seq + 1;
    __atomic_store_n(&moved, moved + 1, __ATOMIC_RELEASE);
    gex_HSL_Unlock(&lock);
}

/* Advance the oldest barriers as far as arrivals allow. Sends happen outside the lock. */
void gasnete_progress(void) {
    if (__atomic_load_n(&idle_at, __ATOMIC_RELAXED) == __atomic_load_n(&moved, __ATOMIC_ACQUIRE)) {
        gasnete_coll_progress(); /* the oldest barrier still waits for the same peer */
        return;
    }
    if (__atomic_exchange_n(&in_progress, 1, __ATOMIC_ACQUIRE)) { /* another thread (or a caller up the stack) is at it */
        gasnete_coll_progress();
        return;
    }
    for (;;) {
        gex_HSL_Lock(&lock);
        barop_t *op = op_head;
        if (!op) {
            gex_HSL_Unlock(&lock);
            break;
        }
        int send_round = -1;
        barval_t send_val = op->acc;
        if (shm_on) {
            if (!shm_step(op)) {
                gex_HSL_Unlock(&lock);
                break; /* waiting for a rank */
            }
        } else if (op->round < nrounds && !op->sent) {
            send_round = op->round;
            op->sent = 1;
        } else if (op->round < nrounds) {
            arrival_t *a = &arrivals[op->seq % SLOTS][op->round];
            if (a->seq_plus1 == op->seq + 1) {
                op->acc = merge(op->acc, a->v);
                a->seq_plus1 = 0;
                op->round++;
                op->sent = 0;
            } else {
                __atomic_store_n(&idle_at, moved, __ATOMIC_RELAXED);
                gex_HSL_Unlock(&lock);
                break; /* waiting for a peer */
            }
        }
        uint32_t seq = op->seq;
        if (op->round == nrounds) { /* complete */
            if (!(op_head = op->next)) op_tail = &op_head;
            __atomic_sub_fetch(&gasneti_progress_needed, 1, __ATOMIC_RELAXED);
            gasneti_counter_done(&op->ev->pending);
            if (!op->keep) free(op);
        }
        gex_HSL_Unlock(&lock);
        if (send_round >= 0) {
            gex_Rank_t peer = (gex_Rank_t)((gasneti_mynode + (1u << send_round)) % gasneti_nodes);
            gex_AM_RequestShort5(gasneti_tm0, peer, GASNETI_HIDX_BARRIER, 0, 0, (gex_AM_Arg_t)seq, send_round,
                                 send_val.flags, send_val.value);
        }
    }
    __atomic_store_n(&in_progress, 0, __ATOMIC_RELEASE);
    gasnete_coll_progress();
}

/* Returns the event; *keep_p (legacy) receives the op, which the caller frees. */
static gex_Event_t barrier_start(int flags, int value, barop_t **keep_p) {
    barop_t *op = calloc(1, sizeof(*op));
    if (!op) gasneti_fatalerror("out of memory starting a barrier");
    op->acc = (barval_t){flags, value};
    op->ev = gasneti_event_new(1);
    op->keep = (keep_p != NULL);
    if (keep_p) *keep_p = op;
    gex_Event_t ev = op->ev;
    gex_HSL_Lock(&lock);
    if (nrounds < 0) {
        for (nrounds = 0; (1u << nrounds) < gasneti_nodes; nrounds++) {}
        shm_on = shm_decide();
        if (gasneti_mynode == 0 && gasnett_verboseenv()) /* checked by tests/api/test_collpath.sh */
            fprintf(stderr, "gasnet: the primordial team's barrier: %s\n",
                    shm_on ? "shared memory (every rank on this host)" : "AM dissemination");
    }
    op->seq = next_seq++;
    op->ev->barrier_seq1 = op->seq + 1;
    __atomic_store_n(&gasneti_barriers_started, next_seq, __ATOMIC_RELEASE);
    *op_tail = op;
    op_tail = &op->next;
    __atomic_store_n(&moved, moved + 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&gasneti_progress_needed, 1, __ATOMIC_RELAXED);
    gex_HSL_Unlock(&lock);
    return ev;
}

gex_Event_t(gex_Coll_BarrierNB)(gex_TM_t tm, gex_Flags_t flags) {
    GASNETI_CHECK_INIT("gex_Coll_BarrierNB");
    GASNETI_CHECK_NOT_IN_HANDLER("gex_Coll_BarrierNB");
    if (flags) gasneti_fatalerror("gex_Coll_BarrierNB: flags must be 0 (got 0x%x)", (unsigned)flags);
    if (tm != gasneti_tm0) return gasnete_coll_barrier(tm); /* other teams: gasnete_coll.c */
    GASNETI_TRACE_OP(GASNETI_TK_BARRIER_NOTIFY, gasneti_mynode, 0, 0);
    gex_Event_t ev = barrier_start(GASNET_BARRIERFLAG_ANONYMOUS, 0, NULL);
    gasnete_progress();
    return ev;
}

void(gex_Coll_BarrierBlocking)(gex_TM_t tm, gex_Flags_t flags) {
    GASNETI_WAITING("gex_Coll_BarrierBlocking", GASNETI_WAIT_OTHER, tm);
    GASNETI_CHECK_NOT_IN_HANDLER("gex_Coll_BarrierBlocking");
    if (flags) gasneti_fatalerror("gex_Coll_BarrierBlocking: flags must be 0 (got 0x%x)", (unsigned)flags);
    (gex_Event_Wait)((gex_Coll_BarrierNB)(tm, 0)); /* traced there, with the caller's line */
}

/* ---- legacy split-phase barrier ---- */
static struct {
    int pending; /* notified, not yet waited */
    barval_t mine;
    gex_Event_t ev;
    barop_t *op;
    int done;    /* a barrier completed: its outcome below, for gasnet_barrier_result */
    barval_t outcome;
} legacy;

#define LEGACY_FLAGS (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH | GASNET_BARRIERFLAG_UNNAMED)

void(gasnet_barrier_notify)(int id, int flags) {
    GASNETI_CHECK_INIT("gasnet_barrier_notify");
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_barrier_notify");
    if (legacy.pending) gasneti_fatalerror("gasnet_barrier_notify: called twice without an intervening wait");
    if (flags & ~LEGACY_FLAGS) gasneti_fatalerror("gasnet_barrier_notify: unknown flags 0x%x", (unsigned)flags);
    GASNETI_TRACE_OP(GASNETI_TK_BARRIER_NOTIFY, gasneti_mynode, 0, 0);
    legacy.pending = 1;
    legacy.mine = (barval_t){flags, id};
    /* an unnamed caller gives no name, as an anonymous one: it matches any */
    int sent = flags & GASNET_BARRIERFLAG_UNNAMED ? (flags & ~GASNET_BARRIERFLAG_UNNAMED) | GASNET_BARRIERFLAG_ANONYMOUS
                                                  : flags;
    legacy.ev = barrier_start(sent, id, &legacy.op);
    gasnete_progress();
}

static int legacy_result(int id, int flags) {
    barval_t acc = legacy.op->acc; /* final: the op is complete and kept for us */
    free(legacy.op);
    legacy.op = NULL;
    legacy.pending = 0;
    gasneti_event_test(legacy.ev);
    const int named = !(flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED));
    int mismatch = (acc.flags & GASNET_BARRIERFLAG_MISMATCH) || flags != legacy.mine.flags ||
                   (named && id != legacy.mine.value) ||
                   (named && !(acc.flags & GASNET_BARRIERFLAG_ANONYMOUS) && acc.value != id);
    legacy.done = 1;
    legacy.outcome = mismatch ? (barval_t){GASNET_BARRIERFLAG_MISMATCH, 0} : acc;
    return mismatch ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK;
}

int(gasnet_barrier_wait)(int id, int flags) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_barrier_wait");
    if (!legacy.pending) gasneti_fatalerror("gasnet_barrier_wait: called without a matching gasnet_barrier_notify");
    GASNETI_TRACE_BARRIER_BEGIN(mark);
    GASNETI_WAITING("gasnet_barrier_wait", GASNETI_WAIT_LEGACY_BARRIER, legacy.ev);
    while (gasneti_atomic_read(&legacy.ev->pending)) {
        gasneti_AMPoll();
        /* a rank that began its exit before this barrier never comes */
        if (gasneti_atomic_read(&legacy.ev->pending)) gasneti_join_peer_exit(legacy.ev->barrier_seq1 - 1);
    }
    GASNETI_TRACE_BARRIER_END(mark);
    return legacy_result(id, flags);
}

int gasnet_barrier_try(int id, int flags) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_barrier_try");
    if (!legacy.pending) gasneti_fatalerror("gasnet_barrier_try: called without a matching gasnet_barrier_notify");
    gasneti_AMPoll();
    if (gasneti_atomic_read(&legacy.ev->pending)) return GASNET_ERR_NOT_READY;
    return legacy_result(id, flags);
}

int(gasnet_barrier)(int id, int flags) {
    (gasnet_barrier_notify)(id, flags);
    return (gasnet_barrier_wait)(id, flags);
}

/* The outcome of the last legacy barrier this process completed (every rank merged the
 * same pairs, so every rank gets the same answer): ANONYMOUS when nobody named it, else
 * its name in *id; MISMATCH when it mismatched (then *id is not written). */
int gasnet_barrier_result(int *id) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_barrier_result");
    if (!legacy.done)
        gasneti_fatalerror("gasnet_barrier_result: no gasnet_barrier_wait or _try has completed a barrier yet");
    if (legacy.pending)
        gasneti_fatalerror("gasnet_barrier_result: called between gasnet_barrier_notify and its wait");
    barval_t r = legacy.outcome;
    if (r.flags & GASNET_BARRIERFLAG_MISMATCH) return GASNET_BARRIERFLAG_MISMATCH;
    if (r.flags & GASNET_BARRIERFLAG_ANONYMOUS) return GASNET_BARRIERFLAG_ANONYMOUS;
    if (id) *id = r.value;
    return 0;
}

/* The state dump's words on the oldest primordial barrier in progress (gasnete_diag.c). */
void gasnete_barrier_describe(char *buf, size_t len) {
    if (gex_HSL_Trylock(&lock) != GASNET_OK) return (void)snprintf(buf, len, "a barrier (being advanced)");
    const barop_t *op = op_head;
    gex_Rank_t n = gasneti_nodes, from = (gex_Rank_t)((gasneti_mynode + n - (op ? (1u << op->round) % n : 0)) % n);
    if (!op)
        snprintf(buf, len, "no barrier of the primordial team in progress");
    else if (shm_on) {
        uint64_t in = __atomic_load_n(gasnete_shmx_count(GASNETE_SHM_BARRIER_OFF, op->seq), __ATOMIC_ACQUIRE) -
                      (uint64_t)(op->seq / 2) * n;
        snprintf(buf, len, "barrier %u of the primordial team (%u ranks, in shared memory): %llu of %u ranks arrived, "
                 "%llu missing", (unsigned)op->seq, (unsigned)n, (unsigned long long)in, (unsigned)n,
                 (unsigned long long)(n - in));
    } else
        snprintf(buf, len, "barrier %u of the primordial team (%u ranks, AM dissemination): round %d of %d, waiting "
                 "to hear from rank %u", (unsigned)op->seq, (unsigned)n, op->round + 1, nrounds, (unsigned)from);
    gex_HSL_Unlock(&lock);
}
