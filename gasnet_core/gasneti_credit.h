/* gasneti_credit.h: request credits, the flow control of a network conduit whose peers
 * have a fixed number of receive buffers (mpi, ofi). Part of the conduit toolkit
 * (gasneti_netkit.h). Layer: core, for network conduits.
 *
 * The protocol: a rank may have at most `max` requests to one peer that the peer has not
 * yet taken from the network. The peer counts the requests it takes (owed) and returns
 * them in the header of any message it sends back (gasneti_wire_hdr_t.credits: a reply,
 * usually); once max/2 are owed and nothing carried them, the peer is on the due list
 * and the conduit sends a credit message (a header alone) from its poll
 * (gasneti_credit_flush). Replies need no credit: each answers a request, whose sender
 * has room for it (requests and replies have separate receive buffers), so a reply can
 * always go.
 * Every function expects the conduit's lock held, except gasneti_credit_peek (racy by
 * design, for gasnetc_am_would_block). */
#ifndef GASNETI_CREDIT_H
#define GASNETI_CREDIT_H

#include "gasneti_internal.h"

typedef struct {
    int credits; /* requests we may still send to this peer */
    int owed;    /* credits we owe it (its requests we took) */
    int listed;  /* in the due list */
} gasneti_credit_peer_t;
typedef struct {
    gasneti_credit_peer_t *peer; /* [gasneti_nodes] */
    gex_Rank_t *due;             /* peers that may need a credit message */
    size_t ndue;
    int max;
    int half; /* max / 2 (made once: the arrival path's division costs instructions) */
} gasneti_credits_t;

/* at network init: every peer starts with max credits */
extern void gasneti_credits_init(gasneti_credits_t *c, int max);

/* may a message of this kind go to rank r now (a reply: always) */
GASNETI_ALWAYS_INLINE int gasneti_credit_ok(const gasneti_credits_t *c, gex_Rank_t r, int is_req) {
    return !is_req || c->peer[r].credits > 0;
}
GASNETI_ALWAYS_INLINE int gasneti_credit_peek(const gasneti_credits_t *c, gex_Rank_t r, int is_req) {
    return !is_req || __atomic_load_n(&c->peer[r].credits, __ATOMIC_RELAXED) > 0;
}
/* what a message to r carries back (gasneti_wire_set_credits), read before it goes */
GASNETI_ALWAYS_INLINE unsigned gasneti_credit_owed(const gasneti_credits_t *c, gex_Rank_t r) {
    return (unsigned)c->peer[r].owed;
}
/* a message to r went, carrying gasneti_credit_owed's count: a request's credit is
 * spent, and nothing is owed any more */
GASNETI_ALWAYS_INLINE void gasneti_credit_sent(gasneti_credits_t *c, gex_Rank_t r, int is_req) {
    if (is_req) c->peer[r].credits--;
    c->peer[r].owed = 0;
}
/* a request's credit taken before its message goes (the message carries what is owed
 * later), and given back if it never goes */
GASNETI_ALWAYS_INLINE void gasneti_credit_take(gasneti_credits_t *c, gex_Rank_t r) { c->peer[r].credits--; }
GASNETI_ALWAYS_INLINE void gasneti_credit_give_back(gasneti_credits_t *c, gex_Rank_t r) { c->peer[r].credits++; }
/* a message from r arrived: the credits its header returns; a request is one more owed */
GASNETI_ALWAYS_INLINE void gasneti_credit_arrived(gasneti_credits_t *c, gex_Rank_t r, unsigned returned, int is_req) {
    gasneti_credit_peer_t *p = &c->peer[r];
    p->credits += (int)returned;
    if (is_req && ++p->owed >= c->half && !p->listed) {
        p->listed = 1;
        c->due[c->ndue++] = r;
    }
}
/* From the poll, while c->ndue: a credit message to every listed peer still owed max/2
 * or more that nothing carried back. send(r, n) sends one returning n credits: 0 if it
 * went (nothing owed any more), non-zero if it could not go now (tried again next time). */
/* the state dump's text on r's credits; 1 if requests to r are not yet acknowledged */
extern int gasneti_credit_diag(const gasneti_credits_t *c, gex_Rank_t r, char *buf, size_t len);
extern void gasneti_credit_flush(gasneti_credits_t *c, int (*send)(gex_Rank_t r, unsigned n));

#endif
