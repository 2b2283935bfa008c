/* mpi_am.c: Active Messages to non-neighbors over non-blocking point-to-point MPI.
 * Layer: mpi-conduit (the network half of conduit_contract.h; job start is mpi_boot.c).
 *
 * All traffic is on duplicates of MPI_COMM_WORLD (gasnetc_am_comm[]), so no client message
 * ever matches ours: the AMs on one, separate payloads on another. The AMs' receives are
 * all alike (any source, any tag; the tag says request or reply), so MPI matches an arrival
 * with the oldest posted one at once, and a poll tests that one alone (receives of one tag
 * each on one communicator made a reply walk past up to 16 request receives, about 15% of
 * the round trip; then requests and replies had a communicator each, whose receives cost
 * a poll two MPI_Tests, each making MPI's progress). An AM is one
 * MPI message: a header, the arguments and (Medium and Long up to INLINE_LONG bytes) the
 * payload. A bigger payload is a second message, received by an MPI_Irecv posted once its
 * header has arrived: a Long's at the destination address, sent from the client's source
 * buffer (no copy on either side); a Medium's into a buffer of the core's pool
 * (gasneti_bigmed_get, given back when the handler returns), sent from the source when the
 * client asked for local completion, else from a copy (the call returns at once, as for a
 * small Medium). Its tag names it (TAG_DATA + a per-peer, per-channel number), so the two
 * messages pair up whatever order MPI matches them in. So the receive buffers hold only
 * INLINE_LONG bytes of payload (GASNETC_NET_MEDIUM), and a 64 KiB Medium moves as MPI
 * moves any big message.
 *
 * Messages have the toolkit's layout (gasneti_wire.h) with no prefix: MPI's status names
 * the sender. A Short with no arguments is the 8-byte header alone (the round trip's cost
 * grows with the bytes MPI moves). A header whose payload is a second message has the
 * toolkit's GASNETI_WIRE_ELSEWHERE flag, and that message's number is its aux word.
 * Requests and replies (tags TAG_REQ / TAG_REP) share RECVS pre-posted receive buffers of
 * the largest message. A request's handler runs in place only while RESERVE buffers stay
 * posted, else from a copy (the deferred-request queue, run at the end of the poll), so
 * handlers waiting for room to reply never hold every buffer: a reply always finds one.
 * Flow control:
 *   - CREDITS request credits per peer (the toolkit's, gasneti_credit.h); credit messages
 *     are tagged as replies.
 *   - at most MAXSEND MPI sends are outstanding per process; a send that finds no slot
 *     or no credit makes progress until there is one (a request from outside a handler
 *     runs everything; a reply, or anything inside a handler, runs replies only, and
 *     requests that arrive meanwhile are copied and run at the next top-level poll), so a
 *     reply always goes out and no two ranks can wait on each other.
 * A poll tests the oldest posted receive with one MPI_Test and runs what arrived (after a
 * request, the next one too, and so on; after a reply it returns: its waiter goes on);
 * receive buffers whose handlers have returned are posted again at the start of the next
 * poll.
 * PAR: gasnetc_mpi_lock guards every MPI call and the state here; handlers run without
 * it, in place in the receive buffer, which is posted again after the handler returns. */
#include "mpi_internal.h"

#include <string.h>

#define RECVS 32         /* pre-posted receives */
#define RESERVE 8        /* receives kept posted while request handlers run in place */
#define MAXSEND 256      /* MPI sends outstanding per process */
#define TEST_SENDS_AT 16 /* outstanding sends a send or busy poll tests (test_sends) */
#define TEST_FIRST_ABOVE 1024 /* payload bytes above which a send tests the others first */
#define CREDITS 32       /* requests in flight to one peer */
#define INLINE_LONG 8192 /* a Medium or Long payload up to this size travels in the header's message */
enum { CH_REQ = 0, CH_REP = 1 };
enum { TAG_REQ = 1, TAG_REP = 2, TAG_DATA = 4096, TAG_DATA_SPAN = 8192 };
#define PRE 0 /* no prefix before the toolkit's header */
#define MSG_MAX GASNETI_WIRE_MAX(PRE, GASNETC_NET_MEDIUM)
_Static_assert(MSG_MAX <= INLINE_LONG + 128, "a receive buffer is 8 KiB of payload and the headers");
_Static_assert(CREDITS <= 65535, "credits owed fit the header");
_Static_assert(INLINE_LONG == GASNETC_NET_MEDIUM, "an inline Medium or Long fits a receive buffer");
#define COMM_AM gasnetc_am_comm[GASNETC_COMM_AM]
#define COMM_DATA gasnetc_am_comm[GASNETC_COMM_DATA]
#define DATA_TAG(ch, seq) (TAG_DATA + (ch)*TAG_DATA_SPAN + (int)((seq) % TAG_DATA_SPAN))

typedef struct {
    uint32_t dataseq[2];     /* per channel: the next separate payload's number */
    MPI_Request credit_req;  /* the last credit message */
    uint64_t credit_msg;
} peer_t;

typedef struct { /* a send slot's (the buffer is the pool's, same index) */
    int npend;              /* MPI sends of this AM not yet complete */
    gasneti_counter_t *lc;  /* done when the separate payload's send completes */
} slot_t;

/* an AM whose header arrived and whose payload is being received apart (a Long's in
 * place, a Medium's into a pool buffer) */
typedef struct {
    MPI_Request req;
    int src, is_req;
    size_t len;
    uint8_t *msg; /* header and arguments */
} pend_t;

static int ready;
static int medium_separate = 1; /* GASNET_MPI_MEDIUM_SEPARATE */
static int verbose;              /* GASNET_VERBOSEENV on rank 0: the counts below at exit */
static uint64_t nbig_sent, nmed_sent, nbig_recv; /* Mediums: separate payload, inside; separate received */
static peer_t *peers;
static gasneti_credits_t cr;
static gasneti_slots_t pool;
static uint8_t *rbuf[RECVS];
static MPI_Request rreq[RECVS];  /* persistent receives */
static uint8_t rposted[RECVS];   /* the receive is started (not completed) */
/* The started receives in the order they were started (a ring: the oldest is POSTED(0)).
 * Every receive has the same source (any), tag (any) and communicator, so MPI matches
 * messages to them in that order: the oldest completes first (a later one only when an
 * older one holds a large message still arriving), and a poll tests just that one, with
 * MPI_Test: it checks, makes MPI's progress when it found nothing and checks again if that
 * progress did anything, all in one call (MPI_Testsome does not check again). The next
 * YOUNGER ones are looked at every YOUNGER_EVERY polls. */
#define YOUNGER 2
#define YOUNGER_EVERY 64
_Static_assert((RECVS & (RECVS - 1)) == 0, "RECVS is a power of two (the ring)");
static int ring[RECVS];
static unsigned head, nposted;
#define POSTED(k) ring[(head + (unsigned)(k)) % RECVS]
static unsigned polls; /* counts polls, for the look at the younger receives */
/* Receive buffers whose handlers have returned, posted again at the start of the next
 * poll rather than at once: in a ping-pong that is after the client's next send, while
 * the peer works, not on the round trip's path (MPI_Start is about 240 instructions). */
static int repost[RECVS], nrepost;
static MPI_Request areq[2 * MAXSEND]; /* outstanding sends */
static slot_t slots[MAXSEND];
static int aslot[2 * MAXSEND], nactive; /* areq[0..nactive): outstanding sends */
static uint8_t adata[2 * MAXSEND];    /* 1: the separate payload's send */
static pend_t *pend;
static int npend, pend_cap;

static void post_recv(int i) {
    if (!ready) return; /* quiesced: the request is freed */
    rposted[i] = 1;
    MPI_Start(&rreq[i]);
    POSTED(nposted) = i;
    nposted++;
}

/* receive i has completed: no longer among the started ones */
static void unpost(int i) {
    rposted[i] = 0;
    if (POSTED(0) == i) { /* the oldest: nearly always */
        head = (head + 1) % RECVS;
    } else {
        unsigned k = 1;
        while (POSTED(k) != i) k++;
        for (; k + 1 < nposted; k++) POSTED(k) = POSTED(k + 1);
    }
    nposted--;
}

/* ---------------------------------------------------------------------------------
 * Sends (lock held)
 * --------------------------------------------------------------------------------- */
static void add_active(MPI_Request r, int slot, int data) {
    areq[nactive] = r;
    aslot[nactive] = slot;
    adata[nactive] = (uint8_t)data;
    nactive++;
}

/* the send areq[a] has completed */
static void send_done(int a) {
    slot_t *s = &slots[aslot[a]];
    if (adata[a] && s->lc) {
        gasneti_counter_done(s->lc);
        s->lc = NULL;
    }
    if (--s->npend == 0) gasneti_slots_put(&pool, aslot[a]);
}

static void compact_sends(void) {
    int keep = 0; /* completed requests are MPI_REQUEST_NULL now */
    for (int i = 0; i < nactive; i++)
        if (areq[i] != MPI_REQUEST_NULL) {
            areq[keep] = areq[i];
            aslot[keep] = aslot[i];
            adata[keep] = adata[i];
            keep++;
        }
    nactive = keep;
}

static void test_sends(void) {
    if (!nactive) return;
    int outcount = 0;
    static int idx[2 * MAXSEND];
    MPI_Testsome(nactive, areq, &outcount, idx, MPI_STATUSES_IGNORE);
    if (outcount == MPI_UNDEFINED || outcount == 0) return;
    for (int k = 0; k < outcount; k++) send_done(idx[k]);
    compact_sends();
}

/* a credit message to r (gasneti_credit_flush), unless the last one is still going */
static int send_credit(gex_Rank_t r, unsigned n) {
    peer_t *p = &peers[r];
    int done = 1;
    if (p->credit_req != MPI_REQUEST_NULL) MPI_Test(&p->credit_req, &done, MPI_STATUS_IGNORE);
    if (!done) return 1;
    uint32_t len = gasneti_wire_credit_msg((uint8_t *)&p->credit_msg, PRE, n);
    MPI_Isend(&p->credit_msg, (int)len, MPI_BYTE, (int)r, TAG_REP, COMM_AM, &p->credit_req);
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Receives
 * --------------------------------------------------------------------------------- */
/* Receive i (now unposted) completed with a message of len bytes from src with tag
 * (lock held): accounted; a credit message, a header whose payload comes apart and a
 * request that may not run now (nested) or not in place (fewer than RESERVE receives
 * posted) are taken care of and the buffer posted again: returns 0. Returns 1 for a
 * message the caller runs in place (deliver). */
GASNETI_ALWAYS_INLINE int arrived(int i, int src, int tag, int len, int nested) {
    int is_req = tag == TAG_REQ;
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(rbuf[i], PRE);
    const char *why = tag == TAG_REQ || tag == TAG_REP ? gasneti_wire_check(rbuf[i], PRE, (size_t)len, 0) : "bad tag";
    if (why) gasneti_wire_bad(why, (gex_Rank_t)src);
    gasneti_credit_arrived(&cr, (gex_Rank_t)src, h->credits, is_req);
    if (h->flags & GASNETI_WIRE_CREDIT) {
        post_recv(i);
        return 0;
    }
    if (h->flags & GASNETI_WIRE_ELSEWHERE) {
        if (npend == pend_cap) {
            pend_cap = pend_cap ? 2 * pend_cap : 16;
            pend = realloc(pend, pend_cap * sizeof(pend_t));
            if (!pend) gasneti_fatalerror("mpi-conduit: out of memory");
        }
        pend_t *e = &pend[npend++];
        e->src = src;
        e->is_req = is_req;
        e->len = (size_t)len;
        e->msg = gasneti_net_malloc(e->len, "a separate payload's header");
        memcpy(e->msg, h, e->len);
        const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(GASNETI_WIRE_HDR(e->msg, PRE) + 1);
        void *dest = gasneti_wire_elsewhere(e->msg, PRE); /* a Medium's: a pool buffer */
        if (h->category == GASNETI_AM_MEDIUM) nbig_recv++;
        MPI_Irecv(dest, (int)x->nbytes, MPI_BYTE, src, DATA_TAG(is_req ? CH_REQ : CH_REP, x->aux), COMM_DATA, &e->req);
        post_recv(i);
        return 0;
    }
    if (gasneti_defer_if(nested || nposted < RESERVE, is_req, (gex_Rank_t)src, rbuf[i], (size_t)len)) {
        post_recv(i);
        return 0;
    }
    return 1;
}

/* the handler of the message in receive buffer i, run without the lock (held on entry
 * and on return); the buffer is posted again at the next poll */
GASNETI_ALWAYS_INLINE void deliver(int i, int src, int len, int is_req) {
    MPI_UNLOCK();
    gasneti_wire_deliver(rbuf[i], PRE, (size_t)len, (gex_Rank_t)src, is_req);
    MPI_LOCK();
    repost[nrepost++] = i;
}

/* Now and then (lock held): the receives after the oldest, one of which may have
 * completed while the oldest still receives a large message. Returns how many messages
 * ran. */
static int test_younger(int nested) {
    MPI_Request r[YOUNGER];
    int which[YOUNGER], idx[YOUNGER], m = 0, outcount = 0, n = 0;
    MPI_Status st[YOUNGER];
    for (unsigned k = 1; k <= YOUNGER && k < nposted; k++) {
        which[m] = POSTED(k);
        r[m++] = rreq[POSTED(k)]; /* a copy of the persistent handle */
    }
    if (!m) return 0;
    MPI_Testsome(m, r, &outcount, idx, st);
    if (outcount == MPI_UNDEFINED) return 0;
    int got[YOUNGER], gsrc[YOUNGER], glen[YOUNGER], greq[YOUNGER], ng = 0;
    for (int k = 0; k < outcount; k++) { /* all accounted before any handler runs (unlocked) */
        int i = which[idx[k]], len;
        unpost(i);
        MPI_Get_count(&st[k], MPI_BYTE, &len);
        if (arrived(i, st[k].MPI_SOURCE, st[k].MPI_TAG, len, nested)) {
            got[ng] = i;
            gsrc[ng] = st[k].MPI_SOURCE;
            greq[ng] = st[k].MPI_TAG == TAG_REQ;
            glen[ng++] = len;
        }
    }
    for (int k = 0; k < ng; k++, n++) deliver(got[k], gsrc[k], glen[k], greq[k]);
    return n;
}

static int mpi_poll(int nested) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return 0;
    int n = 0;
    MPI_LOCK();
    if (!ready) {
        MPI_UNLOCK();
        return 0;
    }
    for (int k = 0; k < nrepost; k++) post_recv(repost[k]);
    nrepost = 0;
    if (GASNETI_UNLIKELY(++polls % YOUNGER_EVERY == 0)) n += test_younger(nested);
    /* The oldest receive; after a request (its handler usually sent a reply, so a peer
     * waits no more), the next oldest, while they come; after a reply, stop: a client
     * waiting for it goes on at once (one more test would make MPI's progress first); and
     * after a header whose payload comes apart: each such payload costs every later poll
     * an MPI_Test until it is in, so taking a stream's headers faster than their payloads
     * arrive only adds tests (a 64 KiB Medium stream lost 13% that way). */
    for (int k = 0; nposted && ready && k < RECVS; k++) {
        int i = POSTED(0), flag = 0, len, had = npend;
        MPI_Status st;
        MPI_Test(&rreq[i], &flag, &st);
        if (!flag) break;
        unpost(i);
        /* A plain Short's length is its header's (MPI delivers whole messages, and only
         * this conduit sends on its communicator); anything else asks MPI (~90
         * instructions), so that gasneti_wire_check compares what arrived. */
        if (!(len = (int)gasneti_wire_short_len(rbuf[i], PRE))) MPI_Get_count(&st, MPI_BYTE, &len);
        int is_req = st.MPI_TAG == TAG_REQ;
        if (arrived(i, st.MPI_SOURCE, st.MPI_TAG, len, nested)) {
            deliver(i, st.MPI_SOURCE, len, is_req);
            n++;
        }
        if (!is_req || npend != had) break;
    }
    /* separate payloads that have arrived */
    pend_t done[16];
    int ndone = 0;
    for (int j = 0; j < npend && ndone < 16;) {
        int flag = 0;
        MPI_Test(&pend[j].req, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            j++;
            continue;
        }
        if (gasneti_defer_if(nested, pend[j].is_req, (gex_Rank_t)pend[j].src, pend[j].msg, pend[j].len)) {
            free(pend[j].msg);
        } else {
            done[ndone++] = pend[j];
        }
        pend[j] = pend[--npend];
    }
    /* Completed sends give their slots back: in a poll where nothing ran (the client
     * waits: the test is free), or once TEST_SENDS_AT are out (a poll that always finds
     * something must still free them). After a message ran, its waiter goes on first. */
    if (nactive && (!n || nactive >= TEST_SENDS_AT)) test_sends();
    if (cr.ndue) gasneti_credit_flush(&cr, send_credit);
    MPI_UNLOCK();

    for (int j = 0; j < ndone; j++) {
        gasneti_wire_deliver(done[j].msg, PRE, done[j].len, (gex_Rank_t)done[j].src, done[j].is_req);
        free(done[j].msg);
        n++;
    }
    return n + gasneti_defer_run(nested, PRE);
}

int gasnetc_poll(void) { return mpi_poll(gasneti_net_nested()); }

/* ---------------------------------------------------------------------------------
 * gasnetc_am_send
 * --------------------------------------------------------------------------------- */
int gasnetc_am_would_block(const gasneti_am_msg_t *m) {
    return !gasneti_slots_peek(&pool) || !gasneti_credit_peek(&cr, m->jobrank, m->is_req);
}

/* lock held: a slot is free and, for a request, a credit left */
static int room(void *m) {
    return gasneti_slots_avail(&pool) && gasneti_credit_ok(&cr, ((gasneti_am_msg_t *)m)->jobrank, ((gasneti_am_msg_t *)m)->is_req);
}

/* a Medium above INLINE_LONG goes as one AM with its payload in a message of its own */
size_t gasnetc_medium_piece(const gasneti_am_msg_t *m) {
    (void)m;
    return medium_separate ? GASNETC_MAX_MEDIUM : GASNETC_NET_MEDIUM;
}

GASNETI_ALWAYS_INLINE int am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    peer_t *p = &peers[m->jobrank];
    int ch = m->is_req ? CH_REQ : CH_REP;
    size_t plen = m->category == GASNETI_AM_SHORT ? 0 : m->nbytes;
    int separate = plen > INLINE_LONG; /* the payload in a message of its own */
    int copied = separate && m->category == GASNETI_AM_MEDIUM && !lc; /* ... sent from the slot */
    unsigned flags = separate ? GASNETI_WIRE_ELSEWHERE : 0;
    uint32_t len = gasneti_wire_len(PRE, m, flags, 1);
    /* a copied payload: in the slot after the header, 16-byte aligned */
    uint32_t poff = GASNETI_WIRE_PAYLOAD_OFF(PRE, m->category, flags | (m->frag ? GASNETI_WIRE_FRAG : 0), m->nargs);
    gasneti_assert(!separate                          ? plen <= GASNETC_NET_MEDIUM
                   : m->category == GASNETI_AM_LONG ? plen <= GASNETC_NET_LONG
                                                    : plen <= GASNETC_MAX_MEDIUM);
    gasneti_counter_t mine; /* separate payload without lc: we wait for its send */
    if (gasneti_lock_room(&gasnetc_mpi_lock, room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
    /* a payload of some size: the slots of completed sends back first, so that the slot
     * just used (its buffer warm in the cache) is taken again; a test is little beside
     * such a message, while a small one leaves it to the poll (below) */
    if (plen > TEST_FIRST_ABOVE && nactive) test_sends();
    int si = gasneti_slots_get(&pool);
    slot_t *s = &slots[si];
    uint8_t *buf = gasneti_slots_buf(&pool, si, copied ? poff + plen : len);
    uint32_t dataseq = separate ? p->dataseq[ch]++ : 0;
    gasneti_wire_build(buf, PRE, m, flags, dataseq, 1);
    if (copied) memcpy(buf + poff, m->src, plen);
    if (m->category == GASNETI_AM_MEDIUM) {
        if (separate) nbig_sent++;
        else nmed_sent++;
    }
    gasneti_wire_set_credits(buf, PRE, gasneti_credit_owed(&cr, m->jobrank)); /* piggy-backed */
    gasneti_credit_sent(&cr, m->jobrank, m->is_req);
    MPI_Request r;
    MPI_Isend(buf, (int)len, MPI_BYTE, (int)m->jobrank, ch == CH_REQ ? TAG_REQ : TAG_REP, COMM_AM, &r);
    /* tested by a later poll (test_sends), not here: a small message is usually copied
     * out by the Isend itself, but an MPI_Test at once would cost the round trip ~70
     * instructions that a poll waiting for the answer spends for free */
    add_active(r, si, 0);
    s->npend = 1;
    s->lc = NULL;
    if (separate) {
        if (copied) {
            s->lc = NULL;
        } else if (!lc) {
            gasneti_atomic_set(&mine, 1);
            s->lc = &mine;
        } else {
            s->lc = lc;
        }
        MPI_Isend(copied ? (void *)(buf + poff) : (void *)m->src, (int)plen, MPI_BYTE, (int)m->jobrank,
                  DATA_TAG(ch, dataseq), COMM_DATA, &r);
        add_active(r, si, 1);
        s->npend++;
    }
    if (nactive >= TEST_SENDS_AT) test_sends(); /* a flood of sends between polls */
    MPI_UNLOCK();
    if (!separate || copied) {
        if (lc) gasneti_counter_done(lc); /* copied: the source may be reused */
    } else if (!lc) {
        /* the receiver posts its receive for the payload in any poll, so this ends */
        gasneti_net_wait_local(&mine);
    }
    return GASNET_OK;
}
int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (m->category == GASNETI_AM_SHORT) { /* the same path, folded for a Short */
        gasneti_am_msg_t s = gasneti_wire_short(m);
        return am_send(&s, NULL);
    }
    return am_send(m, lc);
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
/* the state dump's lines (gasneti_watchdog.c): racy reads, no lock */
static int diag_peer(gex_Rank_t r, char *buf, size_t len) { return gasneti_credit_diag(&cr, r, buf, len); }
static void diag_lines(void (*line)(const char *fmt, ...)) {
    line("MPI: %d sends in flight (of %d send slots), %d payloads being received apart, %d receives",
         __atomic_load_n(&nactive, __ATOMIC_RELAXED), MAXSEND, __atomic_load_n(&npend, __ATOMIC_RELAXED), RECVS);
}
static const gasneti_diag_conduit_t diag = {diag_peer, diag_lines};

int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    (void)boot;
    gasneti_diag_register(&diag);
    peers = calloc(gasneti_nodes, sizeof(peer_t));
    if (!peers) gasneti_fatalerror("mpi-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) peers[r].credit_req = MPI_REQUEST_NULL;
    gasneti_credits_init(&cr, CREDITS);
    gasneti_slots_init(&pool, MAXSEND, 256, NULL, NULL);
    medium_separate = gasneti_getenv_yesno("GASNET_MPI_MEDIUM_SEPARATE", 1);
    verbose = gasneti_mynode == 0 && gasneti_getenv_yesno("GASNET_VERBOSEENV", 0);
    if (gasneti_nbrhd_size < gasneti_nodes) { /* some peer is not a neighbor */
        MPI_LOCK();
        for (int i = 0; i < RECVS; i++) { /* persistent: MPI_Start posts one again */
            rbuf[i] = gasneti_net_malloc(MSG_MAX, "a receive buffer");
            MPI_Recv_init(rbuf[i], (int)MSG_MAX, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, COMM_AM, &rreq[i]);
        }
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < RECVS; i++) post_recv(i);
        MPI_UNLOCK();
    }
    return GASNET_OK;
}

/* Every rank is leaving (or MPI is about to be finalized by the client): give our sends
 * a brief chance, then cancel what is still posted. Nothing more is delivered. */
void gasnetc_am_quiesce(void) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return;
    MPI_LOCK();
    ready = 0;
    if (verbose)
        fprintf(stderr,
                "mpi-conduit: rank 0 sent %llu Medium(s) with the payload in a message of its own (above %d "
                "bytes), %llu inside the AM's message; received %llu of its own\n",
                (unsigned long long)nbig_sent, INLINE_LONG, (unsigned long long)nmed_sent,
                (unsigned long long)nbig_recv);
    double end = MPI_Wtime() + 0.1;
    while (nactive && MPI_Wtime() < end) test_sends();
    for (int i = 0; i < nactive; i++) MPI_Request_free(&areq[i]);
    nactive = 0;
    nrepost = 0; /* (buffers not posted again: their requests are inactive) */
    for (int i = 0; i < RECVS; i++) {
        if (rposted[i]) {
            MPI_Cancel(&rreq[i]);
            MPI_Wait(&rreq[i], MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&rreq[i]);
    }
    for (int j = 0; j < npend; j++) {
        MPI_Cancel(&pend[j].req);
        MPI_Wait(&pend[j].req, MPI_STATUS_IGNORE);
        gasneti_wire_forget(pend[j].msg, PRE); /* a Medium's pool buffer */
    }
    npend = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (peers[r].credit_req != MPI_REQUEST_NULL) MPI_Request_free(&peers[r].credit_req);
    MPI_UNLOCK();
}

void gasnetc_network_fini(void) { gasnetc_mpi_finalize(); }
