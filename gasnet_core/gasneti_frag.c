/* gasneti_frag.c: Mediums and Longs bigger than one message of the conduit's network.
 * Layer: core. Written once for every conduit whose natural message (GASNETC_NET_MEDIUM,
 * GASNETC_NET_LONG in <net>_conduit.h) is smaller than what the library offers clients
 * (GASNETC_MAX_MEDIUM, at least 64 KiB everywhere, and GASNETC_MAX_LONG).
 *
 * Sender: the AM is cut into pieces of the natural size, each sent by gasnetc_am_send as
 * an AM of the same category, handler and arguments, with a fragment header (message id,
 * offset, total) the conduit carries opaquely. A Long piece goes straight to its place
 * in the destination (dest_addr + offset).
 * Target: pieces may arrive in any order (and interleaved with pieces of other messages
 * from any sender). Medium pieces are copied into one buffer per message; Long pieces
 * are already in place and only counted. When the last byte has arrived, the handler
 * runs once, with the whole payload, exactly as for an unsplit AM (a request handler may
 * reply; the reply may be split in turn).
 * Cost: one copy of a split Medium at the target (the conduit's receive buffer to the
 * reassembly buffer), a lock and a hash lookup per piece; a split Long costs only the
 * lookup. Unsplit AMs pay one predictable branch on each side. */
#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <string.h>
#if GASNETI_LOCKS
#  include <pthread.h>
#endif

#if GASNETC_FRAGMENTS

static uint32_t next_msgid;

int gasneti_frag_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    size_t piece = m->category == GASNETI_AM_LONG ? GASNETI_LONG_PIECE(m) : GASNETC_NET_MEDIUM;
    gasneti_frag_t fh = {__atomic_fetch_add(&next_msgid, 1, __ATOMIC_RELAXED), 0, (uint32_t)m->nbytes};
    gasneti_am_msg_t f = *m;
    f.frag = &fh;
    for (size_t off = 0; off < m->nbytes; off += piece) {
        fh.offset = (uint32_t)off;
        f.src = (const uint8_t *)m->src + off;
        f.nbytes = m->nbytes - off < piece ? m->nbytes - off : piece;
        if (m->category == GASNETI_AM_LONG) f.dest_addr = (uint8_t *)m->dest_addr + off;
        /* the source may be reused when each piece returns (lc NULL) */
        int rc = gasnetc_am_send(&f, NULL);
        if (rc) return rc; /* IMMEDIATE, and only on the first piece: nothing went out */
        f.flags &= ~(gex_Flags_t)GEX_FLAG_IMMEDIATE; /* once started, the rest must follow */
    }
    gasneti_lc_done_at_once(lc_opt);
    return GASNET_OK;
}

/* ---- reassembly: messages partly arrived, by (sender, request/reply, message id) ---- */
typedef struct entry_s {
    struct entry_s *next;
    gex_Rank_t src;
    uint32_t msgid, total, got;
    uint8_t is_req, category;
    uint8_t *buf; /* Medium: the whole payload; Long: the start of the destination */
} entry_t;

#define NBUCKETS 256
static entry_t *bucket[NBUCKETS];
static size_t nentries;
#if GASNETI_LOCKS
static pthread_mutex_t frag_lock = PTHREAD_MUTEX_INITIALIZER;
#  define LOCK() pthread_mutex_lock(&frag_lock)
#  define UNLOCK() pthread_mutex_unlock(&frag_lock)
#else
#  define LOCK() ((void)0)
#  define UNLOCK() ((void)0)
#endif

size_t gasneti_frag_reassembling(void) { return __atomic_load_n(&nentries, __ATOMIC_RELAXED); }

GASNETI_COLD static void bad_piece(const gasneti_am_recv_t *m, const char *why) {
    /* the conduit checked the datagram; this is a sender that does not follow the
     * protocol (or a corrupted one): drop the piece, say so */
    gasneti_warning("dropped a piece of a split AM from rank %u (message %u, offset %u of %u, %zu bytes): %s",
                    (unsigned)m->srcrank, m->frag->msgid, m->frag->offset, m->frag->total, m->nbytes, why);
}

void gasneti_frag_recv(const gasneti_am_recv_t *m) {
    const gasneti_frag_t *f = m->frag;
    size_t limit = m->category == GASNETI_AM_LONG ? gasneti_am_max_long : gasneti_am_max_medium;
    if (m->category == GASNETI_AM_SHORT || f->total > limit || f->offset > f->total ||
        m->nbytes > f->total - f->offset || m->nbytes == 0) {
        bad_piece(m, "lengths do not fit the message");
        return;
    }
    unsigned b = (m->srcrank * 31u + f->msgid) % NBUCKETS;
    LOCK();
    entry_t **pp = &bucket[b], *e;
    while ((e = *pp) && !(e->src == m->srcrank && e->msgid == f->msgid && e->is_req == m->is_req)) pp = &e->next;
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (e && m->category == GASNETI_AM_MEDIUM && !(e->buf = malloc(f->total))) {
            free(e);
            e = NULL;
        }
        if (!e) {
            UNLOCK();
            gasneti_fatalerror("out of memory reassembling a %u-byte AM from rank %u", f->total,
                               (unsigned)m->srcrank);
        }
        e->src = m->srcrank;
        e->msgid = f->msgid;
        e->total = f->total;
        e->is_req = m->is_req;
        e->category = m->category;
        if (m->category == GASNETI_AM_LONG) e->buf = (uint8_t *)m->payload - f->offset;
        e->next = bucket[b];
        bucket[b] = e;
        pp = &bucket[b];
        nentries++;
    } else if (e->total != f->total || e->category != m->category ||
               (m->category == GASNETI_AM_LONG && e->buf != (uint8_t *)m->payload - f->offset)) {
        UNLOCK();
        bad_piece(m, "it does not match the earlier pieces of the message");
        return;
    }
    /* copied under the lock: pieces of one message may arrive on several threads */
    if (m->category == GASNETI_AM_MEDIUM) memcpy(e->buf + f->offset, m->payload, m->nbytes);
    e->got += (uint32_t)m->nbytes;
    int done = e->got >= e->total;
    if (done) {
        *pp = e->next;
        nentries--;
    }
    UNLOCK();
    if (!done) return;
    gasneti_deliver(m->srcrank, m->category, m->is_req, m->nargs, m->handler, m->args, e->buf, e->total, NULL,
                    m->dst_ep, m->src_ep);
    if (e->category == GASNETI_AM_MEDIUM) free(e->buf);
    free(e);
}

#else /* no conduit in this library splits AMs */

int gasneti_frag_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    return gasnete_am_send_network(m, lc_opt);
}
void gasneti_frag_recv(const gasneti_am_recv_t *m) {
    gasneti_fatalerror("an AM piece from rank %u, but %s-conduit never splits AMs", (unsigned)m->srcrank,
                       GASNETC_NAME);
}
size_t gasneti_frag_reassembling(void) { return 0; }

#endif
