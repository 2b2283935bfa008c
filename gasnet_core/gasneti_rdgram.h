/* gasneti_rdgram.h: reliable datagrams for a network conduit's Active Messages to peers
 * without a connection (issue 43: per-peer memory toward 1 KiB) -- the protocol, written
 * once: numbers per peer, a window of WIN unacknowledged, cumulative ACKs carried by
 * every datagram back or sent alone, a NAK on a gap, resends at a doubling deadline, a
 * silent peer reported by rank and host after GASNET_REQUESTTIMEOUT_MAX. Part of the
 * conduit toolkit (gasneti_netkit.h; no network's calls here: the conduit sends through
 * the callbacks of gasneti_rdg_ops_t). Layer: core, for network conduits (ofi's
 * ofi_dgram.c; docs/conduit-toolkit.md).
 *
 * A datagram is gasneti_rdg_hdr_t, then what the conduit puts there (its prefix naming
 * the sender, then an AM in the toolkit's layout). The conduit keeps each data datagram
 * in a send slot of its own until gasneti_rdg's acked callback says the peer has it; it
 * may resend it at any time, with the header's ack brought up to date by the protocol
 * (hdr callback: where the slot's header lies).
 * The receiver takes only the next number due (go-back-N): a repeat is dropped and
 * acknowledged again at once, a gap is dropped and answered by one NAK per missing
 * number, which makes the sender resend everything unacknowledged at once. Otherwise the
 * sender resends at a deadline (RTO, doubling per retry up to RTO_MAX).
 * Per-peer state (gasneti_rdg_peer_t, ~100 bytes plus the conduit's extra bytes) is made
 * at first contact, either way; per process the protocol holds a pointer, and two ranks'
 * worth of list entries, per rank of the job.
 * Every function expects the conduit's lock held, except gasneti_rdg_peek (racy). */
#ifndef GASNETI_RDGRAM_H
#define GASNETI_RDGRAM_H

#include "gasneti_internal.h"

#define GASNETI_RDG_WIN 32 /* unacknowledged datagrams per peer */
enum { GASNETI_RDG_DATA = 1, GASNETI_RDG_ACK = 2, GASNETI_RDG_NAK = 3 };
typedef struct {
    uint16_t seq;  /* DATA: its number */
    uint16_t ack;  /* the next number due from the peer (all before it arrived) */
    uint8_t kind;  /* GASNETI_RDG_* */
    uint8_t pad;
    uint16_t pad2;
} gasneti_rdg_hdr_t;
_Static_assert(sizeof(gasneti_rdg_hdr_t) == 8, "a datagram's header is 8 bytes");

typedef struct { /* a peer's state, made at first contact */
    uint64_t deadline;    /* ns: resend what is unacknowledged (0: not armed) */
    uint64_t progress_at; /* ns: when the peer last acknowledged something new */
    uint64_t owed_since;  /* ns: the oldest datagram not yet acknowledged to it (0: none) */
    uint32_t n_sent;      /* data datagrams sent (a conduit connects after many) */
    uint16_t base, next;  /* [base, next): sent, not yet acknowledged */
    uint16_t expect;      /* the next number due from it */
    uint16_t owed;        /* datagrams taken since our last acknowledgement */
    uint16_t naked;       /* expect + 1 when a NAK for it went (0: none) */
    uint8_t retx, active, ackdue, pad;
    int16_t win[GASNETI_RDG_WIN]; /* the send slot of number s at s % WIN */
    /* then the conduit's extra bytes (gasneti_rdg_extra) */
} gasneti_rdg_peer_t;
_Static_assert(sizeof(gasneti_rdg_peer_t) <= 112, "a peer's datagram state stays small (issue 43)");
#define gasneti_rdg_extra(p) ((void *)((p) + 1))

/* What the conduit does for the protocol (lock held). Each send returns 0 (handed to the
 * network, or lost: the protocol resends) or 1 (no room now: tried again later). */
typedef struct {
    /* send data datagram `slot` (its header at hdr(slot), already written) to r */
    int (*xmit)(gex_Rank_t r, gasneti_rdg_peer_t *p, int slot);
    /* send a header alone (an ACK or NAK: the conduit adds its prefix) to r */
    int (*control)(gex_Rank_t r, gasneti_rdg_peer_t *p, const gasneti_rdg_hdr_t *h);
    /* the header of the datagram in `slot` */
    gasneti_rdg_hdr_t *(*hdr)(int slot);
    /* the peer has the datagram in `slot`: the conduit may reuse the slot (once its own
     * send, if still in the network's hands, completed) */
    void (*acked)(int slot);
    /* a peer's state was just made (the extra bytes zeroed): the conduit's part of it
     * (an address handle); NULL: nothing */
    void (*made)(gex_Rank_t r, gasneti_rdg_peer_t *p);
} gasneti_rdg_ops_t;

typedef struct {
    const gasneti_rdg_ops_t *ops;
    const char *what;           /* for the give-up report: "ofi-conduit's datagrams" */
    size_t extra;               /* the conduit's bytes per peer */
    double give_up;             /* s: GASNET_REQUESTTIMEOUT_MAX (0: never) */
    gasneti_rdg_peer_t **peer;  /* [gasneti_nodes], NULL until first contact */
    gex_Rank_t *active, *ackdue; /* peers with datagrams unacknowledged; owed an ACK */
    int nactive, nackdue;
    size_t n_data, n_ack, n_nak, n_resent, n_dup, n_gap, n_peers; /* counts (verbose) */
} gasneti_rdg_t;

/* the tables for gasneti_nodes ranks, GASNET_REQUESTTIMEOUT_MAX read (a bad value is a
 * launch error) */
extern void gasneti_rdg_init(gasneti_rdg_t *d, const gasneti_rdg_ops_t *ops, size_t extra, const char *what);
/* r's state, made at first contact */
extern gasneti_rdg_peer_t *gasneti_rdg_make(gasneti_rdg_t *d, gex_Rank_t r) GASNETI_COLD;
GASNETI_ALWAYS_INLINE gasneti_rdg_peer_t *gasneti_rdg_peer(gasneti_rdg_t *d, gex_Rank_t r) {
    gasneti_rdg_peer_t *p = d->peer[r];
    return GASNETI_LIKELY(p != NULL) ? p : gasneti_rdg_make(d, r);
}
/* room in r's window for one more datagram */
GASNETI_ALWAYS_INLINE int gasneti_rdg_room(const gasneti_rdg_t *d, gex_Rank_t r) {
    const gasneti_rdg_peer_t *p = d->peer[r];
    return !p || (uint16_t)(p->next - p->base) < GASNETI_RDG_WIN;
}
GASNETI_ALWAYS_INLINE int gasneti_rdg_peek(const gasneti_rdg_t *d, gex_Rank_t r) {
    const gasneti_rdg_peer_t *p = __atomic_load_n(&d->peer[r], __ATOMIC_RELAXED);
    return !p || (uint16_t)(__atomic_load_n(&p->next, __ATOMIC_RELAXED) - __atomic_load_n(&p->base, __ATOMIC_RELAXED)) <
                     GASNETI_RDG_WIN;
}
/* the datagram in `slot` (room said yes) numbered, its header written, sent to r by the
 * xmit callback; returns how many data datagrams r has been sent, this one included */
extern uint32_t gasneti_rdg_send(gasneti_rdg_t *d, gex_Rank_t r, int slot);
/* A datagram from src arrived, its header h (the conduit checked src): returns
 * GASNETI_RDG_TAKE when what follows the header is to be delivered, GASNETI_RDG_DROP when
 * not (control, repeat), GASNETI_RDG_GAP when not and a number was missing (one was
 * dropped: a conduit may post more receive buffers). */
enum { GASNETI_RDG_DROP = 0, GASNETI_RDG_TAKE = 1, GASNETI_RDG_GAP = 2 };
extern int gasneti_rdg_recv(gasneti_rdg_t *d, gex_Rank_t src, const gasneti_rdg_hdr_t *h);
/* in every poll: ACKs owed, resends due, the give-up check (cheap when nothing is) */
extern void gasneti_rdg_progress_slow(gasneti_rdg_t *d);
GASNETI_ALWAYS_INLINE void gasneti_rdg_progress(gasneti_rdg_t *d) {
    if (d->nactive | d->nackdue) gasneti_rdg_progress_slow(d);
}
/* nothing unacknowledged to anyone */
GASNETI_ALWAYS_INLINE int gasneti_rdg_idle(const gasneti_rdg_t *d) { return d->nactive == 0; }
/* "N AM(s) sent over datagrams to P peer(s) (R resent), A ACK(s) and K NAK(s) alone, D
 * repeat(s) and G gap(s) dropped" into buf */
extern void gasneti_rdg_say(const gasneti_rdg_t *d, char *buf, size_t len);

#endif
