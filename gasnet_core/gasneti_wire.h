/* gasneti_wire.h: the AM wire format of every network conduit (one layout, built, checked
 * and decoded here), the path of an arrived message into gasneti_am_deliver, and the
 * requests kept while only replies may run (gasneti_deferq.c). Part of the conduit
 * toolkit (gasneti_netkit.h). Layer: core, for network conduits.
 *
 * A message, from its first byte:
 *   [the conduit's prefix: `pre` bytes]  what only that network needs, read first:
 *                                       udp its job key, sender, sequence and ack fields;
 *                                       ofi the sender's rank; mpi nothing (MPI's status
 *                                       names the sender)
 *   [gasneti_wire_hdr_t: 8 bytes]        category, nargs, handler, flags, credits, endpoints
 *   [gasneti_wire_long_t: 16 bytes]      a Long's, or a Medium's with GASNETI_WIRE_ELSEWHERE:
 *                                        destination, size, a conduit word
 *   [gasneti_frag_t + 4: 16 bytes]       with GASNETI_WIRE_FRAG: this piece's place
 *   [the arguments, 4 bytes each]
 *   [the payload]                        at a 16-byte aligned offset (Medium, inline Long)
 *   [padding]                            (flags >> 4) bytes, for a conduit that rounds
 *                                        lengths up (ofi packs multi-receive buffers)
 * `pre` is a compile-time constant of the conduit, a multiple of 8 (0, 8, 48): a conduit's
 * own fields go before the common part rather than inside it, so the common part never
 * grows for one network and the prefix is read without knowing the rest. Offsets count
 * from the message's first byte, so a payload is 16-byte aligned when the message is
 * (receive buffers are; gasneti_wire_deliver copies one that is not). Sizes: a Short of n
 * arguments is pre + 8 + 4n bytes (mpi's Short with none: 8; ofi's with <= 4: 32, as
 * before the toolkit). A Medium's size is what follows the payload offset less the
 * padding; an empty Medium stops after its arguments.
 * A payload elsewhere (GASNETI_WIRE_ELSEWHERE): the message stops after its arguments and
 * the conduit moves the payload itself (mpi: a second message). A Long's lands at its
 * destination. A Medium's (a conduit with GASNETC_MEDIUM_PIECE_AT_RUN_TIME, whose big
 * Mediums exceed its receive buffers) has the 16 bytes of a Long, destination 0 on the
 * wire: the receiver asks gasneti_wire_elsewhere for a buffer of the core's pool
 * (gasneti_bigmed_get), which is recorded there, receives the payload into it, and
 * gasneti_wire_deliver gives it back once the handler has returned (gasneti_wire_forget
 * if it is never delivered).
 * Credits (gasneti_credit.h) ride in every header; a credit message is a header alone,
 * flags GASNETI_WIRE_CREDIT. Nothing here takes a lock. */
#ifndef GASNETI_WIRE_H
#define GASNETI_WIRE_H

#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <string.h>

typedef struct {
    uint8_t category, nargs, handler, flags; /* flags: GASNETI_WIRE_* | padding << 4 */
    uint16_t credits;                        /* request credits returned to the receiver */
    uint8_t dst_ep, src_ep;                  /* endpoint indices */
} gasneti_wire_hdr_t;
typedef struct {
    uint64_t dest_addr;
    uint32_t nbytes; /* the Long's payload, inline or not */
    uint32_t aux;    /* the conduit's (mpi: which separate message carries the payload) */
} gasneti_wire_long_t;
_Static_assert(sizeof(gasneti_wire_hdr_t) == 8 && sizeof(gasneti_wire_long_t) == 16, "wire layout");
_Static_assert(sizeof(gasneti_frag_t) <= 16, "gasneti_frag_t fits its place");
enum {
    GASNETI_WIRE_FRAG = 1,      /* one piece of a bigger AM (gasneti_frag.c) */
    GASNETI_WIRE_CREDIT = 2,    /* a credit message: nothing else in it */
    GASNETI_WIRE_ELSEWHERE = 4, /* the payload travels apart (a Long's, or a big Medium's: see above) */
    GASNETI_WIRE_CONDUIT = 8    /* free for the conduit */
};

#define GASNETI_WIRE_ARGS_OFF(pre, cat, flags)                                                      \
    ((uint32_t)(pre) + 8u + ((cat) == GASNETI_AM_LONG || ((flags)&GASNETI_WIRE_ELSEWHERE) ? 16u : 0u) +            \
     (((flags)&GASNETI_WIRE_FRAG) ? 16u : 0u))
#define GASNETI_WIRE_PAYLOAD_OFF(pre, cat, flags, nargs) ((GASNETI_WIRE_ARGS_OFF(pre, cat, flags) + 4u * (nargs) + 15u) & ~15u)
/* the longest message with plen payload bytes (before padding) */
#define GASNETI_WIRE_MAX(pre, plen) (GASNETI_WIRE_PAYLOAD_OFF(pre, GASNETI_AM_LONG, GASNETI_WIRE_FRAG, GASNETI_MAX_ARGS) + (plen))
#define GASNETI_WIRE_HDR(msg, pre) ((gasneti_wire_hdr_t *)((uint8_t *)(msg) + (pre)))

/* The length of m's message (gasneti_wire_build's result), and building it at buf, the
 * prefix left to the caller. flags: 0, or
 * GASNETI_WIRE_ELSEWHERE for a Long or Medium whose payload goes apart (then aux names it); align:
 * the length is rounded up to a multiple of it (1, or 16), the padding recorded. Credits
 * are 0: gasneti_wire_set_credits sets them when the message goes. Returns the length. */
GASNETI_ALWAYS_INLINE uint32_t gasneti_wire_len(size_t pre, const gasneti_am_msg_t *m, unsigned flags, uint32_t align) {
    flags |= m->frag ? GASNETI_WIRE_FRAG : 0;
    size_t plen = m->category == GASNETI_AM_SHORT || (flags & GASNETI_WIRE_ELSEWHERE) ? 0 : m->nbytes;
    uint32_t len = plen ? GASNETI_WIRE_PAYLOAD_OFF(pre, m->category, flags, m->nargs) + (uint32_t)plen
                        : GASNETI_WIRE_ARGS_OFF(pre, m->category, flags) + 4u * m->nargs;
    return (len + align - 1) / align * align;
}
GASNETI_ALWAYS_INLINE uint32_t gasneti_wire_build(uint8_t *buf, size_t pre, const gasneti_am_msg_t *m, unsigned flags,
                                                  uint32_t aux, uint32_t align) {
    gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(buf, pre);
    uint32_t len = gasneti_wire_len(pre, m, flags, 1), padded = (len + align - 1) / align * align;
    flags |= m->frag ? GASNETI_WIRE_FRAG : 0;
    size_t plen = m->category == GASNETI_AM_SHORT || (flags & GASNETI_WIRE_ELSEWHERE) ? 0 : m->nbytes;
    uint32_t aoff = GASNETI_WIRE_ARGS_OFF(pre, m->category, flags);
    uint32_t poff = GASNETI_WIRE_PAYLOAD_OFF(pre, m->category, flags, m->nargs);
    h->category = m->category;
    h->nargs = m->nargs;
    h->handler = m->handler;
    h->flags = (uint8_t)(flags | (padded - len) << 4);
    h->credits = 0;
    h->dst_ep = m->dst_ep;
    h->src_ep = m->src_ep;
    if (m->category == GASNETI_AM_LONG || (flags & GASNETI_WIRE_ELSEWHERE)) {
        uint64_t dest = m->category == GASNETI_AM_LONG ? (uintptr_t)m->dest_addr : 0; /* a Medium's: the receiver's */
        gasneti_wire_long_t x = {dest, (uint32_t)m->nbytes, aux};
        memcpy(h + 1, &x, sizeof(x));
    }
    if (m->frag) {
        uint8_t *f = buf + aoff - 16;
        memcpy(f, m->frag, sizeof(gasneti_frag_t));
        memset(f + sizeof(gasneti_frag_t), 0, 16 - sizeof(gasneti_frag_t));
    }
    if (m->nargs) memcpy(buf + aoff, m->args, 4u * m->nargs);
    if (plen && m->src != buf + poff) memcpy(buf + poff, m->src, plen); /* (else written in place) */
    return padded;
}

/* m, a Short, as a copy whose known fields (category, no payload, no pieces) are
 * constants: a conduit's send path inlined on it (the builders above, its own checks) is
 * folded by the compiler to what a Short needs, about a hundred instructions fewer than
 * the general path. */
GASNETI_ALWAYS_INLINE gasneti_am_msg_t gasneti_wire_short(const gasneti_am_msg_t *m) {
    gasneti_am_msg_t s = *m;
    s.category = GASNETI_AM_SHORT;
    s.src = NULL;
    s.nbytes = 0;
    s.dest_addr = NULL;
    s.frag = NULL;
    return s;
}

/* the credits a message carries back, set when it goes (under the conduit's lock) */
GASNETI_ALWAYS_INLINE void gasneti_wire_set_credits(void *msg, size_t pre, unsigned owed) {
    GASNETI_WIRE_HDR(msg, pre)->credits = (uint16_t)owed;
}

/* A credit message's header at buf (its prefix left to the caller); length pre + 8 */
GASNETI_ALWAYS_INLINE uint32_t gasneti_wire_credit_msg(uint8_t *buf, size_t pre, unsigned owed) {
    gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(buf, pre);
    memset(h, 0, sizeof(*h));
    h->flags = GASNETI_WIRE_CREDIT;
    h->credits = (uint16_t)owed;
    return (uint32_t)pre + 8u;
}

/* A received message of len bytes (from its prefix on) is well formed: NULL, or what is
 * wrong. target: also that its endpoint exists and a Long lands inside the segment (a
 * network anyone can send to: udp). A handler index nobody registered is not checked:
 * delivery makes it fatal, naming the sender (gasneti_deliver.h). */
GASNETI_NOINLINE static const char *gasneti_wire_check_any(const uint8_t *msg, size_t pre, size_t len, int target);
/* The length of the message whose header is at msg + pre if that header is a plain
 * Short's (no padding, no flags: the commonest message), else 0; the header must be there
 * (a conduit whose network gives no length cheaply, mpi, takes a Short's from it). */
GASNETI_ALWAYS_INLINE size_t gasneti_wire_short_len(const uint8_t *msg, size_t pre) {
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, pre);
    return h->category == GASNETI_AM_SHORT && h->flags == 0 && h->nargs <= GASNETI_MAX_ARGS
               ? pre + sizeof(*h) + 4u * h->nargs
               : 0;
}
/* Is it a plain Short, well formed? A few comparisons, inline (a conduit may take such a
 * message on a path of its own). */
GASNETI_ALWAYS_INLINE int gasneti_wire_plain_short(const uint8_t *msg, size_t pre, size_t len) {
    return len >= pre + sizeof(gasneti_wire_hdr_t) && gasneti_wire_short_len(msg, pre) == len;
}
GASNETI_ALWAYS_INLINE const char *gasneti_wire_check(const uint8_t *msg, size_t pre, size_t len, int target) {
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, pre);
    if (gasneti_wire_plain_short(msg, pre, len))
        return target ? gasneti_am_check_target(h->dst_ep, GASNETI_AM_SHORT, 0, 0) : NULL;
    return gasneti_wire_check_any(msg, pre, len, target);
}
/* every other message, out of line */
GASNETI_NOINLINE static const char *gasneti_wire_check_any(const uint8_t *msg, size_t pre, size_t len, int target) {
    if (len < pre + sizeof(gasneti_wire_hdr_t)) return "shorter than a header";
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, pre);
    unsigned pad = h->flags >> 4;
    if (h->category > GASNETI_AM_LONG || h->nargs > GASNETI_MAX_ARGS || pad > len) return "bad header";
    if (h->flags & GASNETI_WIRE_CREDIT) return len - pad == pre + 8 ? NULL : "credit message with a body";
    size_t exact = len - pad, aoff = GASNETI_WIRE_ARGS_OFF(pre, h->category, h->flags) + 4u * h->nargs;
    size_t poff = GASNETI_WIRE_PAYLOAD_OFF(pre, h->category, h->flags, h->nargs), nbytes = 0;
    if (exact < aoff) return "lengths do not add up";
    if (h->category == GASNETI_AM_SHORT) {
        if (exact != aoff || (h->flags & (GASNETI_WIRE_FRAG | GASNETI_WIRE_ELSEWHERE))) return "Short with a payload";
    } else if (h->category == GASNETI_AM_MEDIUM && (h->flags & GASNETI_WIRE_ELSEWHERE)) {
        if (!GASNETC_MEDIUM_PIECE_AT_RUN_TIME) return "Medium with its payload elsewhere";
        if (exact != aoff) return "lengths do not add up";
        nbytes = ((const gasneti_wire_long_t *)(h + 1))->nbytes;
        if (nbytes > GASNETC_MAX_MEDIUM) return "payload too long";
    } else if (h->category == GASNETI_AM_MEDIUM) {
        if (exact != aoff && exact <= poff) return "lengths do not add up";
        nbytes = exact > poff ? exact - poff : 0;
        if (nbytes > GASNETC_NET_MEDIUM) return "payload too long";
    } else {
        const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(h + 1);
        nbytes = x->nbytes;
        if (nbytes > GASNETC_MAX_LONG) return "payload too long";
        if (!(h->flags & GASNETI_WIRE_ELSEWHERE) && exact != (nbytes ? poff + nbytes : aoff))
            return "lengths do not add up";
        if (target) return gasneti_am_check_target(h->dst_ep, h->category, x->dest_addr, nbytes);
    }
    return target ? gasneti_am_check_target(h->dst_ep, h->category, 0, 0) : NULL;
}

/* A message failed gasneti_wire_check (a network whose messages only the job sends:
 * mpi, ofi): end the job naming the sender (gasneti_netkit.c). */
extern void gasneti_wire_bad(const char *why, gex_Rank_t src) GASNETI_COLD GASNETI_NORETURN;
/* a copy of a Medium's payload aligned for any type (per thread; gasneti_deferq.c) */
extern void *gasneti_wire_realign(const void *payload, size_t nbytes) GASNETI_COLD;

/* An arrived message with GASNETI_WIRE_ELSEWHERE (msg: the conduit's own copy, from its
 * prefix on): where to receive its payload (nbytes in its gasneti_wire_long_t). A Long's
 * destination; for a Medium a pool buffer, recorded in msg for gasneti_wire_deliver. */
GASNETI_ALWAYS_INLINE void *gasneti_wire_elsewhere(uint8_t *msg, size_t pre) {
    gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, pre);
    gasneti_wire_long_t *x = (gasneti_wire_long_t *)(h + 1);
#if GASNETC_MEDIUM_PIECE_AT_RUN_TIME
    if (h->category == GASNETI_AM_MEDIUM) x->dest_addr = (uintptr_t)gasneti_bigmed_get();
#endif
    return (void *)(uintptr_t)x->dest_addr;
}
/* such a message will not be delivered (shut-down): its Medium's pool buffer back */
GASNETI_ALWAYS_INLINE void gasneti_wire_forget(uint8_t *msg, size_t pre) {
    gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, pre);
#if GASNETC_MEDIUM_PIECE_AT_RUN_TIME
    if (h->category == GASNETI_AM_MEDIUM)
        gasneti_bigmed_put((void *)(uintptr_t)((gasneti_wire_long_t *)(h + 1))->dest_addr);
#endif
    (void)h;
}

/* Run the handler of the message msg (len bytes from its prefix on, checked) from src. A
 * Long's inline payload is copied to its destination first; a Medium's pool buffer
 * (GASNETI_WIRE_ELSEWHERE) is given back after the handler. */
GASNETI_ALWAYS_INLINE void gasneti_wire_deliver(const uint8_t *msg, size_t pre, size_t len, gex_Rank_t src, int is_req) {
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, pre);
    if (h->category == GASNETI_AM_SHORT) { /* checked: no pieces, arguments right after the header */
        gasneti_deliver(src, GASNETI_AM_SHORT, (unsigned)is_req, h->nargs, h->handler,
                        (const gex_AM_Arg_t *)(msg + pre + 8), NULL, 0, NULL, h->dst_ep, h->src_ep);
        return;
    }
    uint32_t aoff = GASNETI_WIRE_ARGS_OFF(pre, h->category, h->flags);
    uint32_t poff = GASNETI_WIRE_PAYLOAD_OFF(pre, h->category, h->flags, h->nargs);
    uint8_t *payload = (uint8_t *)msg + poff;
    gasneti_am_recv_t m;
    m.srcrank = src;
    m.handler = h->handler;
    m.category = h->category;
    m.is_req = (uint8_t)is_req;
    m.nargs = h->nargs;
    m.dst_ep = h->dst_ep;
    m.src_ep = h->src_ep;
    m.args = (const gex_AM_Arg_t *)(msg + aoff);
    m.frag = (h->flags & GASNETI_WIRE_FRAG) ? (const gasneti_frag_t *)(msg + aoff - 16) : NULL;
    if (h->category == GASNETI_AM_LONG) {
        const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(h + 1);
        m.nbytes = x->nbytes;
        if (x->nbytes && !(h->flags & GASNETI_WIRE_ELSEWHERE)) memcpy((void *)(uintptr_t)x->dest_addr, payload, x->nbytes);
        m.payload = (void *)(uintptr_t)x->dest_addr;
#if GASNETC_MEDIUM_PIECE_AT_RUN_TIME
    } else if (h->category == GASNETI_AM_MEDIUM && (h->flags & GASNETI_WIRE_ELSEWHERE)) {
        const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(h + 1);
        m.nbytes = x->nbytes;
        m.payload = (void *)(uintptr_t)x->dest_addr; /* the pool buffer it was received in */
        gasneti_am_deliver(&m);
        gasneti_bigmed_put(m.payload);
        return;
#endif
    } else if (h->category == GASNETI_AM_MEDIUM) {
        size_t exact = len - (h->flags >> 4);
        m.nbytes = exact > poff ? exact - poff : 0;
        if (GASNETI_UNLIKELY(((uintptr_t)payload & 15) && m.nbytes)) payload = gasneti_wire_realign(payload, m.nbytes);
        m.payload = payload;
    } else {
        m.nbytes = 0;
        m.payload = NULL;
    }
    gasneti_am_deliver(&m);
}

/* ---- requests kept while only replies may run (gasneti_deferq.c) ----
 * A request that arrives while its receiver may run replies only (inside a handler, or
 * while waiting for room to send a reply: gasneti_net_nested) is copied by
 * gasneti_defer_push (data 64-byte aligned, so an aligned payload stays aligned) and run
 * at the conduit's next top-level poll by gasneti_defer_replay. */
extern int gasneti_defer_nonempty; /* read without a lock */
extern void gasneti_defer_push(gex_Rank_t src, const void *msg, size_t len);
extern int gasneti_defer_replay(size_t pre); /* runs them; returns how many */

/* The receive loop's choice for an arrived message: 1 if it was a request that may not
 * run now (nested), kept for gasneti_defer_replay; 0: the caller delivers it. */
GASNETI_ALWAYS_INLINE int gasneti_defer_if(int nested, int is_req, gex_Rank_t src, const void *msg, size_t len) {
    if (!nested || !is_req) return 0;
    gasneti_defer_push(src, msg, len);
    return 1;
}
/* at the end of a top-level poll (nested 0): the kept requests, if any */
GASNETI_ALWAYS_INLINE int gasneti_defer_run(int nested, size_t pre) {
    if (!__atomic_load_n(&gasneti_defer_nonempty, __ATOMIC_RELAXED) || nested) return 0; /* (nested: often a
                                                                                              * computed value) */
    return gasneti_defer_replay(pre);
}

#endif
