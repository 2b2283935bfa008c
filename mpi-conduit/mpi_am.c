/* mpi_am.c: Active Messages to non-neighbors over non-blocking point-to-point MPI.
 * Layer: mpi-conduit (the network half of conduit_contract.h; job start is mpi_boot.c).
 *
 * All traffic is on duplicates of MPI_COMM_WORLD (gasnetc_am_comm[]), so no client message
 * ever matches ours; requests, replies and separate payloads each have their own, so MPI
 * matches an arrival against the receives of its own kind only (replies behind 16 posted
 * request receives on one communicator cost about 15% of the AM round trip). An AM is one
 * MPI message: a header, the arguments and (Medium, and Long up to INLINE_LONG bytes) the
 * payload. A bigger Long payload is a second message, sent from the client's source
 * buffer and received by an MPI_Irecv posted at the destination address once its header
 * has arrived (no copy on either side); its tag names it (TAG_DATA + a per-peer,
 * per-channel number), so the two messages pair up whatever order MPI matches them in.
 *
 * Requests and replies are separate channels (communicators, tags TAG_REQ / TAG_REP), each with its own
 * pool of RECVS pre-posted receive buffers of the largest message. Flow control:
 *   - a rank may have at most CREDITS requests to one peer that the peer has not yet
 *     taken from MPI; the peer returns credits in the header of any message it sends
 *     back (a reply, usually) or, once CREDITS/2 are owed and nothing went back, in a
 *     header-only credit message. Replies need no credits: each answers a request.
 *   - at most MAXSEND MPI sends are outstanding per process; a send that finds no slot
 *     or no credit makes progress until there is one (a request from outside a handler
 *     runs everything; a reply, or anything inside a handler, runs replies only, and
 *     requests that arrive meanwhile are copied and run at the next top-level poll), so a
 *     reply always goes out and no two ranks can wait on each other.
 * PAR: gasnetc_mpi_lock guards every MPI call and the state here; handlers run without
 * it, in place in the receive buffer, which is posted again when the handler returns. */
#include "conduit_contract.h"
#include "gasneti_deliver.h"
#include "mpi_internal.h"

#include <string.h>

#define RECVS 16         /* pre-posted receives per channel */
#define MAXSEND 256      /* MPI sends outstanding per process */
#define CREDITS 32       /* requests in flight to one peer */
#define INLINE_LONG 8192 /* a Long payload up to this size travels in the header's message */
enum { CH_REQ = 0, CH_REP = 1 };
enum { TAG_REQ = 1, TAG_REP = 2, TAG_DATA = 4096, TAG_DATA_SPAN = 8192 };
enum { F_FRAG = 1, F_SEPARATE = 2, F_CREDIT = 4 };

/* A message: hdr_t; a Long's long_ext_t; with F_FRAG, the fragment's place (16 bytes);
 * the arguments; then, 16-byte aligned, the payload. A Short with no arguments is the
 * 8-byte hdr_t alone: the round trip's cost grows with the bytes MPI moves. A Medium's
 * payload size is what is left of the message. */
typedef struct {
    uint8_t category, nargs, handler, flags;
    uint16_t credits; /* request credits the sender returns to the receiver (<= CREDITS) */
    uint8_t dst_ep, src_ep; /* endpoint indices */
} hdr_t;
typedef struct {
    uint64_t dest_addr;
    uint32_t nbytes;
    uint32_t dataseq; /* F_SEPARATE: names the payload's message */
} long_ext_t;
_Static_assert(sizeof(hdr_t) == 8 && sizeof(long_ext_t) == 16, "message layout");
_Static_assert(sizeof(gasneti_frag_t) <= 16, "gasneti_frag_t fits its place");
static inline uint32_t args_off(unsigned category, unsigned flags) {
    return (uint32_t)sizeof(hdr_t) + (category == GASNETI_AM_LONG ? 16u : 0u) + ((flags & F_FRAG) ? 16u : 0u);
}
static inline uint32_t payload_off(unsigned category, unsigned flags, unsigned nargs) {
    return (args_off(category, flags) + 4u * nargs + 15u) & ~15u;
}
#define MSG_MAX (payload_off(GASNETI_AM_LONG, F_FRAG, GASNETI_MAX_ARGS) + GASNETC_NET_MEDIUM)
_Static_assert(INLINE_LONG <= GASNETC_NET_MEDIUM, "an inline Long fits a receive buffer");
#define CH_COMM(ch) gasnetc_am_comm[(ch) == CH_REQ ? GASNETC_COMM_REQ : GASNETC_COMM_REP]
#define COMM_REP gasnetc_am_comm[GASNETC_COMM_REP]
#define COMM_DATA gasnetc_am_comm[GASNETC_COMM_DATA]
#define DATA_TAG(ch, seq) (TAG_DATA + (ch)*TAG_DATA_SPAN + (int)((seq) % TAG_DATA_SPAN))

typedef struct {
    int credits;             /* requests we may still send to this peer */
    int owed;                /* credits we owe it (requests taken from MPI) */
    int listed;              /* in due_list */
    uint32_t dataseq[2];     /* per channel: the next separate payload's number */
    MPI_Request credit_req;  /* the last credit message */
    hdr_t credit_msg;
} peer_t;

typedef struct {
    uint8_t *buf;
    size_t cap;
    int npend;              /* MPI sends of this AM not yet complete */
    gasneti_counter_t *lc;  /* done when the separate payload's send completes */
} slot_t;

/* a Long whose header arrived and whose payload is being received in place */
typedef struct {
    MPI_Request req;
    int src, is_req;
    size_t len;
    uint8_t *msg; /* header and arguments */
} pend_t;

static int ready;
static peer_t *peers;
static gex_Rank_t *due_list;
static size_t due_count;
static uint8_t *rbuf[2 * RECVS];
static MPI_Request rreq[2 * RECVS];  /* persistent receives: CH_REQ's, then CH_REP's */
static uint8_t rposted[2 * RECVS];   /* the receive is started (not completed) */
/* Per channel, the started receives in the order they were started. Every receive of a
 * channel has the same source (any), tag and communicator, so MPI matches messages to
 * them in that order: only the oldest few can have completed (a later one only when an
 * older one holds a large message still arriving), and a poll tests just those. */
#define TESTED 2
static int posted[2][RECVS], nposted[2];
/* One array for one MPI_Testsome per poll: the oldest receives of each channel (copies
 * of the persistent handles), then the outstanding sends */
static MPI_Request reqs[2 * TESTED + 2 * MAXSEND];
static int rtested[2 * TESTED]; /* reqs[k] is a copy of rreq[rtested[k]] */
#define areq (reqs + 2 * TESTED)
static slot_t slots[MAXSEND];
static int free_slots[MAXSEND], nfree;
static int aslot[2 * MAXSEND], nactive; /* areq[0..nactive): outstanding sends */
static uint8_t adata[2 * MAXSEND];    /* 1: the separate payload's send */
static pend_t *pend;
static int npend, pend_cap;

static void *xmalloc_aligned(size_t n) {
    void *p;
    if (posix_memalign(&p, 64, n ? n : 1)) gasneti_fatalerror("mpi-conduit: out of memory for %zu bytes", n);
    return p;
}

static void post_recv(int i) {
    if (!ready) return; /* quiesced: the request is freed */
    rposted[i] = 1;
    MPI_Start(&rreq[i]);
    int ch = i < RECVS ? CH_REQ : CH_REP;
    posted[ch][nposted[ch]++] = i;
}

/* reqs[0 .. 2*TESTED): the oldest started receives of each channel, MPI_REQUEST_NULL
 * in the unused places (Testsome skips those) */
static void load_tested(void) {
    for (int ch = 0; ch < 2; ch++)
        for (int k = 0; k < TESTED; k++) {
            int j = ch * TESTED + k;
            rtested[j] = k < nposted[ch] ? posted[ch][k] : -1;
            reqs[j] = k < nposted[ch] ? rreq[posted[ch][k]] : MPI_REQUEST_NULL;
        }
}

/* receive i has completed: no longer among the started ones of its channel */
static void unpost(int i) {
    int ch = i < RECVS ? CH_REQ : CH_REP, k = 0;
    rposted[i] = 0;
    while (posted[ch][k] != i) k++;
    memmove(&posted[ch][k], &posted[ch][k + 1], (size_t)(nposted[ch] - k - 1) * sizeof(int));
    nposted[ch]--;
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
    if (--s->npend == 0) free_slots[nfree++] = aslot[a];
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

/* credit messages for peers owed CREDITS/2 or more that nothing carried back */
static void send_credits(void) {
    size_t keep = 0;
    for (size_t i = 0; i < due_count; i++) {
        peer_t *p = &peers[due_list[i]];
        if (p->owed < CREDITS / 2) {
            p->listed = 0;
            continue;
        }
        int done = 1;
        if (p->credit_req != MPI_REQUEST_NULL) MPI_Test(&p->credit_req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            due_list[keep++] = due_list[i];
            continue;
        }
        memset(&p->credit_msg, 0, sizeof(p->credit_msg));
        p->credit_msg.flags = F_CREDIT;
        p->credit_msg.credits = (uint16_t)p->owed;
        p->owed = 0;
        p->listed = 0;
        MPI_Isend(&p->credit_msg, sizeof(hdr_t), MPI_BYTE, (int)due_list[i], TAG_REP, COMM_REP,
                  &p->credit_req);
    }
    due_count = keep;
}

/* ---------------------------------------------------------------------------------
 * Receives
 * --------------------------------------------------------------------------------- */
/* the message buf, len bytes (a separate Long's: its header part) */
static void dispatch(int src, const uint8_t *buf, size_t len, int is_req) {
    const hdr_t *h = (const hdr_t *)buf;
    uint32_t poff = payload_off(h->category, h->flags, h->nargs);
    uint8_t *payload = (uint8_t *)buf + poff;
    gasneti_am_recv_t m;
    m.srcrank = (gex_Rank_t)src;
    m.handler = h->handler;
    m.category = h->category;
    m.is_req = (uint8_t)is_req;
    m.nargs = h->nargs;
    m.dst_ep = h->dst_ep;
    m.src_ep = h->src_ep;
    m.args = (const gex_AM_Arg_t *)(buf + args_off(h->category, h->flags));
    m.frag = (h->flags & F_FRAG) ? (const gasneti_frag_t *)(buf + args_off(h->category, 0)) : NULL;
    if (h->category == GASNETI_AM_LONG) {
        const long_ext_t *x = (const long_ext_t *)(h + 1);
        m.nbytes = x->nbytes;
        if (x->nbytes && !(h->flags & F_SEPARATE)) memcpy((void *)(uintptr_t)x->dest_addr, payload, x->nbytes);
        m.payload = (void *)(uintptr_t)x->dest_addr;
    } else if (h->category == GASNETI_AM_MEDIUM) {
        m.nbytes = len > poff ? (uint32_t)(len - poff) : 0; /* an empty one is not padded */
        m.payload = payload;
    } else {
        m.nbytes = 0;
        m.payload = NULL;
    }
    gasneti_am_deliver(&m);
}

/* requests kept while only replies could run (gasneti_deferq.c) */
static int run_deferred(void) {
    int n = 0;
    for (gasneti_deferred_t *d; (d = gasneti_defer_pop()); n++) {
        dispatch((int)d->src, d->data, d->len, 1);
        free(d);
    }
    return n;
}

/* lock held: the header of message `src` sent arrived; credits in it, credits we owe */
static void account(int src, const hdr_t *h, int is_req) {
    peer_t *p = &peers[src];
    p->credits += (int)h->credits;
    if (is_req) {
        p->owed++;
        if (p->owed >= CREDITS / 2 && !p->listed) {
            p->listed = 1;
            due_list[due_count++] = (gex_Rank_t)src;
        }
    }
}

static int mpi_poll(int nested) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return 0;
    int n = 0;
    int outcount = 0, nrecv = 0, sends = 0;
    static int idx[2 * TESTED + 2 * MAXSEND];
    static MPI_Status st[2 * TESTED + 2 * MAXSEND];
    int ridx[2 * RECVS], rsrc[2 * RECVS], rlen[2 * RECVS];
    MPI_LOCK();
    if (!ready) {
        MPI_UNLOCK();
        return 0;
    }
    /* one progress call for receives and sends. Testsome checks, then (when nothing had
     * completed) makes progress and returns: a message that progress took in would wait
     * for the next poll. So the receives are checked once more, as MPI_Recv would (about
     * 3% of the AM round trip). */
    load_tested();
    MPI_Testsome(2 * TESTED + nactive, reqs, &outcount, idx, st);
    if (outcount == MPI_UNDEFINED) outcount = 0;
    if (outcount == 0) {
        MPI_Testsome(2 * TESTED, reqs, &outcount, idx, st);
        if (outcount == MPI_UNDEFINED) outcount = 0;
    }
    for (int k = 0; k < outcount; k++) {
        if (idx[k] >= 2 * TESTED) {
            send_done(idx[k] - 2 * TESTED);
            sends = 1;
            continue;
        }
        int i = rtested[idx[k]];
        ridx[nrecv] = i;
        rsrc[nrecv] = st[k].MPI_SOURCE;
        unpost(i);
        MPI_Get_count(&st[k], MPI_BYTE, &rlen[nrecv]);
        nrecv++;
    }
    if (sends) compact_sends();
    /* header arrivals: account now; separate payloads get their receive posted; requests
     * that may not run now are copied; the rest run below, in place */
    int run[2 * RECVS], nrun = 0;
    for (int k = 0; k < nrecv; k++) {
        int i = ridx[k], src = rsrc[k], is_req = i < RECVS, len = rlen[k];
        const hdr_t *h = (const hdr_t *)rbuf[i];
        gasneti_assert(len >= (int)sizeof(hdr_t) && len >= (int)args_off(h->category, h->flags) + 4 * h->nargs);
        account(src, h, is_req);
        if (h->flags & F_CREDIT) {
            post_recv(i);
        } else if (h->flags & F_SEPARATE) {
            if (npend == pend_cap) {
                pend_cap = pend_cap ? 2 * pend_cap : 16;
                pend = realloc(pend, pend_cap * sizeof(pend_t));
                if (!pend) gasneti_fatalerror("mpi-conduit: out of memory");
            }
            pend_t *e = &pend[npend++];
            e->src = src;
            e->is_req = is_req;
            const long_ext_t *x = (const long_ext_t *)(h + 1);
            e->len = (size_t)len;
            e->msg = xmalloc_aligned(e->len);
            memcpy(e->msg, h, e->len);
            MPI_Irecv((void *)(uintptr_t)x->dest_addr, (int)x->nbytes, MPI_BYTE, src,
                      DATA_TAG(is_req ? CH_REQ : CH_REP, x->dataseq), COMM_DATA, &e->req);
            post_recv(i);
        } else if (nested && is_req) {
            gasneti_defer_push((gex_Rank_t)src, rbuf[i], (size_t)len);
            post_recv(i);
        } else {
            run[nrun++] = k;
        }
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
        if (nested && pend[j].is_req) {
            gasneti_defer_push((gex_Rank_t)pend[j].src, pend[j].msg, pend[j].len);
            free(pend[j].msg);
        } else {
            done[ndone++] = pend[j];
        }
        pend[j] = pend[--npend];
    }
    if (due_count) send_credits();
    MPI_UNLOCK();

    for (int r = 0; r < nrun; r++) {
        int i = ridx[run[r]];
        dispatch(rsrc[run[r]], rbuf[i], (size_t)rlen[run[r]], i < RECVS);
        MPI_LOCK();
        post_recv(i);
        MPI_UNLOCK();
        n++;
    }
    for (int j = 0; j < ndone; j++) {
        dispatch(done[j].src, done[j].msg, done[j].len, done[j].is_req);
        free(done[j].msg);
        n++;
    }
    if (!nested && __atomic_load_n(&gasneti_defer_nonempty, __ATOMIC_RELAXED)) n += run_deferred();
    return n;
}

int gasnetc_poll(void) { return mpi_poll(gasneti_cur_token != NULL); }

/* ---------------------------------------------------------------------------------
 * gasnetc_am_send
 * --------------------------------------------------------------------------------- */
static inline int no_room(const peer_t *p, int is_req) { return nfree == 0 || (is_req && p->credits <= 0); }

int gasnetc_am_would_block(const gasneti_am_msg_t *m) {
    MPI_LOCK();
    int full = no_room(&peers[m->jobrank], m->is_req);
    MPI_UNLOCK();
    return full;
}

int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    peer_t *p = &peers[m->jobrank];
    int ch = m->is_req ? CH_REQ : CH_REP;
    size_t plen = m->category == GASNETI_AM_SHORT ? 0 : m->nbytes;
    int separate = m->category == GASNETI_AM_LONG && plen > INLINE_LONG;
    unsigned flags = (m->frag ? F_FRAG : 0) | (separate ? F_SEPARATE : 0);
    size_t aoff = args_off(m->category, flags);
    size_t len = plen && !separate ? payload_off(m->category, flags, m->nargs) + plen : aoff + 4u * m->nargs;
    gasneti_assert(separate ? plen <= GASNETC_NET_LONG : plen <= GASNETC_NET_MEDIUM);
    gasneti_counter_t mine; /* separate payload without lc: we wait for its send */
    MPI_LOCK();
    while (no_room(p, m->is_req)) {
        MPI_UNLOCK();
        if (m->flags & GEX_FLAG_IMMEDIATE) return GASNETI_AM_WOULD_BLOCK;
        gasneti_wait_for_room(m->is_req);
        MPI_LOCK();
    }
    if (m->is_req) p->credits--;
    int si = free_slots[--nfree];
    slot_t *s = &slots[si];
    if (s->cap < len) {
        free(s->buf);
        s->cap = len < 256 ? 256 : len;
        s->buf = xmalloc_aligned(s->cap);
    }
    hdr_t *h = (hdr_t *)s->buf;
    h->category = m->category;
    h->nargs = m->nargs;
    h->handler = m->handler;
    h->flags = (uint8_t)flags;
    h->credits = (uint16_t)p->owed; /* piggy-backed: nothing owed any more */
    h->dst_ep = m->dst_ep;
    h->src_ep = m->src_ep;
    p->owed = 0;
    uint32_t dataseq = separate ? p->dataseq[ch]++ : 0;
    if (m->category == GASNETI_AM_LONG) {
        long_ext_t *x = (long_ext_t *)(h + 1);
        x->dest_addr = (uintptr_t)m->dest_addr;
        x->nbytes = (uint32_t)plen;
        x->dataseq = dataseq;
    }
    if (m->frag) memcpy(s->buf + args_off(m->category, 0), m->frag, sizeof(gasneti_frag_t));
    if (m->nargs) memcpy(s->buf + aoff, m->args, 4u * m->nargs);
    if (plen && !separate) memcpy(s->buf + payload_off(m->category, flags, m->nargs), m->src, plen);
    MPI_Request r;
    MPI_Isend(s->buf, (int)len, MPI_BYTE, (int)m->jobrank, ch == CH_REQ ? TAG_REQ : TAG_REP, CH_COMM(ch), &r);
    s->npend = 0;
    s->lc = NULL;
    int sent = 0; /* a small message is usually copied out by the Isend itself */
    MPI_Test(&r, &sent, MPI_STATUS_IGNORE);
    if (!sent) {
        add_active(r, si, 0);
        s->npend = 1;
    }
    if (separate) {
        if (!lc) {
            gasneti_atomic_set(&mine, 1);
            s->lc = &mine;
        } else {
            s->lc = lc;
        }
        MPI_Isend((void *)m->src, (int)plen, MPI_BYTE, (int)m->jobrank, DATA_TAG(ch, dataseq), COMM_DATA,
                  &r);
        add_active(r, si, 1);
        s->npend++;
    }
    if (!s->npend) free_slots[nfree++] = si;
    MPI_UNLOCK();
    if (!separate) {
        if (lc) gasneti_counter_done(lc); /* copied: the source may be reused */
    } else if (!lc) {
        /* replies only while we wait: a request handler could reuse our source (a
         * Prepare's library buffer is per thread); the receiver posts its receive for the
         * payload in any poll, so this ends */
        while (gasneti_atomic_read(&mine) != 0) gasneti_poll_backoff(mpi_poll(1) + gasneti_poll_replies());
    }
    return GASNET_OK;
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    (void)boot;
    peers = calloc(gasneti_nodes, sizeof(peer_t));
    due_list = calloc(gasneti_nodes, sizeof(gex_Rank_t));
    if (!peers || !due_list) gasneti_fatalerror("mpi-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        peers[r].credits = CREDITS;
        peers[r].credit_req = MPI_REQUEST_NULL;
    }
    for (int i = 0; i < MAXSEND; i++) free_slots[nfree++] = MAXSEND - 1 - i;
    if (gasneti_nbrhd_size < gasneti_nodes) { /* some peer is not a neighbor */
        MPI_LOCK();
        for (int i = 0; i < 2 * RECVS; i++) { /* persistent: MPI_Start posts one again */
            rbuf[i] = xmalloc_aligned(MSG_MAX);
            MPI_Recv_init(rbuf[i], (int)MSG_MAX, MPI_BYTE, MPI_ANY_SOURCE, i < RECVS ? TAG_REQ : TAG_REP,
                          CH_COMM(i < RECVS ? CH_REQ : CH_REP), &rreq[i]);
        }
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 2 * RECVS; i++) post_recv(i);
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
    double end = MPI_Wtime() + 0.1;
    while (nactive && MPI_Wtime() < end) test_sends();
    for (int i = 0; i < nactive; i++) MPI_Request_free(&areq[i]);
    nactive = 0;
    for (int i = 0; i < 2 * RECVS; i++) {
        if (rposted[i]) {
            MPI_Cancel(&rreq[i]);
            MPI_Wait(&rreq[i], MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&rreq[i]);
    }
    for (int j = 0; j < npend; j++) {
        MPI_Cancel(&pend[j].req);
        MPI_Wait(&pend[j].req, MPI_STATUS_IGNORE);
    }
    npend = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (peers[r].credit_req != MPI_REQUEST_NULL) MPI_Request_free(&peers[r].credit_req);
    MPI_UNLOCK();
}

void gasnetc_network_fini(void) { gasnetc_mpi_finalize(); }
