/* gasneti_deliver.h: running the handler of an arrived AM, inline in each transport's
 * receive loop (PSHM queues, a conduit's network poll) so dispatch costs no extra call.
 * Layer: core, internal. */
#ifndef GASNETI_DELIVER_H
#define GASNETI_DELIVER_H

#include "gasneti_internal.h"

extern void gasneti_bad_delivery(gex_Rank_t src, unsigned category, unsigned is_req, unsigned nargs, unsigned handler,
                                 const gex_AM_Entry_t *e) GASNETI_COLD GASNETI_NORETURN;
extern void gasneti_bad_endpoint(gex_Rank_t src, unsigned category, unsigned is_req, unsigned handler,
                                 unsigned dst_ep) GASNETI_COLD GASNETI_NORETURN;

/* Handlers are called through the unprototyped gex_AM_Fn_t with the spec's argument
 * lists; A(n) expands to the first n arguments. */
#define A0
#define A1 , a[0]
#define A2 A1, a[1]
#define A3 A2, a[2]
#define A4 A3, a[3]
#define A5 A4, a[4]
#define A6 A5, a[5]
#define A7 A6, a[6]
#define A8 A7, a[7]
#define A9 A8, a[8]
#define A10 A9, a[9]
#define A11 A10, a[10]
#define A12 A11, a[11]
#define A13 A12, a[12]
#define A14 A13, a[13]
#define A15 A14, a[14]
#define A16 A15, a[15]
#define CASES(PRE)                                                                                       \
    case 0: fn(PRE A0); break;   case 1: fn(PRE A1); break;   case 2: fn(PRE A2); break;                 \
    case 3: fn(PRE A3); break;   case 4: fn(PRE A4); break;   case 5: fn(PRE A5); break;                 \
    case 6: fn(PRE A6); break;   case 7: fn(PRE A7); break;   case 8: fn(PRE A8); break;                 \
    case 9: fn(PRE A9); break;   case 10: fn(PRE A10); break; case 11: fn(PRE A11); break;               \
    case 12: fn(PRE A12); break; case 13: fn(PRE A13); break; case 14: fn(PRE A14); break;               \
    case 15: fn(PRE A15); break; case 16: fn(PRE A16); break;
#define SHORT_PRE tok
#define MEDLONG_PRE tok, buf, nbytes

/* Run the handler of an arrived AM given field by field (so that a transport's receive
 * loop keeps them in registers; `lane` is the PSHM lane slot a request came through, or
 * NULL; dst_ep and src_ep the endpoint indices of receiver and sender), and
 * gasneti_am_deliver() given a network conduit's gasneti_am_recv_t. */
GASNETI_ALWAYS_INLINE void gasneti_deliver(gex_Rank_t src, unsigned category, unsigned is_req, unsigned nargs,
                                           gex_AM_Index_t handler, const gex_AM_Arg_t *a, void *buf,
                                           size_t nbytes, struct gasneti_lane_reply_s *lane, unsigned dst_ep,
                                           unsigned src_ep) {
    gex_EP_t ep = gasneti_client0->_ep0;
    const gex_AM_Entry_t *e = &gasneti_handler_table[handler];
    if (GASNETI_UNLIKELY(dst_ep != 0)) { /* another endpoint of this process */
        ep = dst_ep < GASNET_MAXEPS ? gasneti_eps[dst_ep] : NULL;
        if (!ep) gasneti_bad_endpoint(src, category, is_req, handler, dst_ep);
        e = &ep->_handlers[handler];
    }
    if (GASNETI_UNLIKELY(!e->gex_fnptr)) gasneti_bad_delivery(src, category, is_req, nargs, handler, e);
    if (GASNETI_DEBUG && handler >= GEX_AM_INDEX_BASE) {
        static const gex_Flags_t catflag[] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG};
        if (!(e->gex_flags & catflag[category]) ||
            !(e->gex_flags & (is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY)) ||
            (e->gex_nargs != GASNETI_NARGS_ANY && e->gex_nargs != nargs))
            gasneti_bad_delivery(src, category, is_req, nargs, handler, e);
    }
    GASNETI_TRACE_OP(is_req ? GASNETI_TK_AMRUN_REQ : GASNETI_TK_AMRUN_REP, src, nbytes, handler);
    GASNETI_HEARD_FROM(src); /* for the state dump: one store */
    struct gasneti_token_s t = {src, ep, e, (uint8_t)is_req, category == GASNETI_AM_LONG, 0, (uint8_t)src_ep, lane};
    gex_Token_t tok = &t, saved = gasneti_cur_token;
    gex_AM_Fn_t fn = e->gex_fnptr;
    gasneti_cur_token = tok;
    if (category == GASNETI_AM_SHORT) {
        switch (nargs) { CASES(SHORT_PRE) }
    } else {
        switch (nargs) { CASES(MEDLONG_PRE) }
    }
    gasneti_cur_token = saved;
}

GASNETI_ALWAYS_INLINE void gasneti_am_deliver(const gasneti_am_recv_t *m) {
    if (GASNETI_UNLIKELY(m->frag != NULL)) { /* one piece: the handler runs once all are here */
        gasneti_frag_recv(m);
        return;
    }
    gasneti_deliver(m->srcrank, m->category, m->is_req, m->nargs, m->handler, m->args, m->payload, m->nbytes,
                    NULL, m->dst_ep, m->src_ep);
}

#undef CASES

/* For a conduit that checks what arrives before delivering it (a malformed or forged
 * message must not run): NULL if endpoint dst_ep of this process exists and a Long's
 * destination lies in its bound segment; else the reason.  (A handler index nobody
 * registered is not checked here: it is the sender's mistake, and delivery makes it
 * fatal, naming the sender and the index, on every conduit.) */
GASNETI_ALWAYS_INLINE const char *gasneti_am_check_target(unsigned dst_ep, unsigned category, uint64_t dest,
                                                          size_t nbytes) {
    gex_EP_t ep = dst_ep < GASNET_MAXEPS ? __atomic_load_n(&gasneti_eps[dst_ep], __ATOMIC_ACQUIRE) : NULL;
    if (!ep) return "no such endpoint";
    if (category == GASNETI_AM_LONG && nbytes) {
        const gasneti_peerseg_t *s = gasneti_peerseg_of(gasneti_mynode, (gex_EP_Index_t)dst_ep);
        uint64_t b = (uintptr_t)s->_owner_addr;
        if (!s->_size || dest < b || dest + nbytes > b + s->_size) return "Long destination outside the segment";
    }
    return NULL;
}
#endif
