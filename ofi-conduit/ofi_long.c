/* ofi_long.c: ofi-conduit's Long AMs whose payload goes by fi_write, the whole protocol
 * from top to bottom. Layer: ofi-conduit (part of gasnetc_am_send; the message path is
 * ofi_am.c, the RDMA ofi_rma.c).
 *
 *   1. Decide (gasnetc_ofi_long_by_write): a Long of long_min bytes or more
 *      (GASNET_OFI_LONG_RDMA_MIN, default 16384; 0: never; always 0 without native RMA)
 *      whose destination lies in the target endpoint's bound segment, when that segment
 *      has a key (conduit_contract.h, "Segments reached by RDMA"). Such a Long is taken
 *      whole (gasnetc_long_piece: GASNETC_MAX_LONG), not split by the core.
 *   2. Take a request credit (gasnetc_ofi_am_credit: the toolkit's credits,
 *      gasneti_credit.h, waited for by gasneti_lock_room), build the AM's message without
 *      the payload in the toolkit's layout behind ofi's prefix, flagged
 *      GASNETI_WIRE_ELSEWHERE (gasnetc_ofi_am_build_written; gasneti_wire.h), and write
 *      the payload with fi_write in pieces (gasnetc_ofi_rma_write_long) with delivery
 *      completion.
 *   3. Each piece's completion (ofi_rma.c's completion, lock held) calls
 *      gasnetc_ofi_long_written; the last one means the payload is in place at the
 *      target: the source may be reused (lc), and the message is queued and sent
 *      (gasnetc_ofi_am_send_built: by fi_inject, or from a send slot of ofi_am.c's
 *      pool, carrying the credits owed); what cannot go at once waits in the queue, which
 *      every poll retries (gasnetc_ofi_long_send_queued), in order.
 *   4. The receiver (gasneti_wire_deliver, from ofi_am.c's poll) sees the flag and runs
 *      the handler on the payload already in place.
 * Without lc the sender waits for step 3 inside gasnetc_ofi_long_send
 * (gasneti_net_wait_local: replies only meanwhile). */
#include "conduit_contract.h"
#include "ofi_internal.h"

#include <string.h>

#define LONG_RDMA_MIN 16384 /* GASNET_OFI_LONG_RDMA_MIN's default (docs/ofi-conduit.md) */

struct gasnetc_ofi_long_s {
    struct gasnetc_ofi_long_s *next; /* in the queue, or free */
    gasneti_counter_t *lc;           /* done when the write completes (the source may be reused) */
    size_t pending;                  /* pieces of the write not completed */
    gex_Rank_t dest;
    int is_req;
    uint32_t len; /* of msg */
    uint64_t msg[GASNETC_OFI_HDR_MAX / 8];
};

static size_t long_min;
static gasnetc_ofi_long_t *wl_free, *wl_head, *wl_tail; /* free ones; messages waiting to go (lock held) */
int gasnetc_ofi_long_queued;                           /* wl_head is not NULL */
size_t gasnetc_ofi_longs_inline;                       /* Longs sent inside messages (gasnetc_ofi_verbose) */
static size_t longs_written;

void gasnetc_ofi_long_init(void) {
    int64_t lm = gasneti_getenv_int("GASNET_OFI_LONG_RDMA_MIN", LONG_RDMA_MIN);
    if (lm < 0) gasneti_launch_error("GASNET_OFI_LONG_RDMA_MIN=%lld: a number of bytes, 0 or more", (long long)lm);
    long_min = gasnetc_rma_native ? (size_t)lm : 0;
}

/* 1. Decide */
int gasnetc_ofi_long_by_write(const gasneti_am_msg_t *m) {
    if (!long_min || m->nbytes < long_min) return 0;
    const gasneti_peerseg_t *ps = gasneti_peerseg_of(m->jobrank, m->dst_ep);
    return ps->_rkey && gasnetc_ofi_in_range((uintptr_t)ps->_owner_addr, ps->_size, m->dest_addr, m->nbytes);
}

size_t gasnetc_long_piece(const gasneti_am_msg_t *m) {
    return gasnetc_ofi_long_by_write(m) ? GASNETC_MAX_LONG : GASNETC_NET_LONG;
}

/* 2. Send: credit, message, write */
int gasnetc_ofi_long_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (gasnetc_ofi_verbose) __atomic_fetch_add(&longs_written, 1, __ATOMIC_RELAXED);
    gasnetc_ofi_dg_mark(m->jobrank); /* (by the RDM endpoint: a connection) */
    if (m->is_req && gasnetc_ofi_am_credit(m)) return GASNETI_AM_WOULD_BLOCK;
    OFI_LOCK();
    gasnetc_ofi_long_t *w = wl_free;
    if (w) wl_free = w->next;
    OFI_UNLOCK();
    if (!w) w = gasneti_net_malloc(sizeof(*w), "a written Long's message");
    w->len = gasnetc_ofi_am_build_written(w->msg, m);
    w->dest = m->jobrank;
    w->is_req = m->is_req;
    gasneti_counter_t mine; /* no lc: wait here until the source may be reused */
    gasneti_atomic_set(&mine, 0);
    if (!lc) gasneti_counter_add(&mine);
    w->lc = lc ? lc : &mine;
    w->pending = gasnetc_ofi_rma_npieces(m->nbytes);
    const void *rkey = gasneti_peerseg_of(m->jobrank, m->dst_ep)->_rkey;
    if (gasnetc_ofi_rma_write_long(m->jobrank, rkey, m->src, m->dest_addr, m->nbytes, w, m->flags)) {
        OFI_LOCK(); /* GEX_FLAG_IMMEDIATE and no room: nothing written */
        w->next = wl_free;
        wl_free = w;
        OFI_UNLOCK();
        if (m->is_req) gasnetc_ofi_am_uncredit(m->jobrank);
        return GASNETI_AM_WOULD_BLOCK;
    }
    if (!lc) gasneti_net_wait_local(&mine);
    return GASNET_OK;
}

/* 3. A piece of the write completed (lock held) */
void gasnetc_ofi_long_written(gasnetc_ofi_long_t *w) {
    if (--w->pending) return;
    if (w->lc) gasneti_counter_done(w->lc);
    w->lc = NULL;
    w->next = NULL;
    if (!gasnetc_ofi_up) { /* shutting down: nothing more goes out */
        w->next = wl_free;
        wl_free = w;
        return;
    }
    if (wl_tail) wl_tail->next = w;
    else wl_head = w;
    wl_tail = w;
    gasnetc_ofi_long_queued = 1;
    gasnetc_ofi_long_send_queued();
}

/* lock held: the queued messages, in order, while they go */
void gasnetc_ofi_long_send_queued(void) {
    while (wl_head && gasnetc_ofi_am_send_built(wl_head->is_req, wl_head->dest, wl_head->msg, wl_head->len) == 0) {
        gasnetc_ofi_long_t *w = wl_head;
        wl_head = w->next;
        if (!wl_head) wl_tail = NULL;
        w->next = wl_free;
        wl_free = w;
    }
    gasnetc_ofi_long_queued = wl_head != NULL;
}

void gasnetc_ofi_long_say(void) {
    fprintf(stderr, "ofi-conduit: rank %u sent %zu Long(s) with the payload by fi_write, %zu inside messages\n",
            (unsigned)gasneti_mynode, __atomic_load_n(&longs_written, __ATOMIC_RELAXED),
            __atomic_load_n(&gasnetc_ofi_longs_inline, __ATOMIC_RELAXED));
}
