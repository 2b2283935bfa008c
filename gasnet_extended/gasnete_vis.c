/* gasnete_vis.c: VIS (vector, indexed, strided put/get), spec "Vector/Indexed/Strided".
 * Layer: extended. Each call is cut into the contiguous pieces on which the local and the
 * remote description agree, and every piece is one gex_RMA_* call: that call already takes
 * the same-host load/store shortcut, or the conduit's native RDMA, or the AM reference,
 * so VIS behaves the same on every conduit. Pieces of a Blocking or NB call are issued as
 * NB RMA, up to VIS_INFLIGHT at once, and all are synchronized before return (an NB call
 * then returns GEX_EVENT_INVALID, which the spec allows: the operation completed at
 * initiation). Pieces of an NBI call are NBI RMA, so they join the thread's NBI counts or
 * the open access region like any other NBI put/get.
 *
 * Packing: to a peer reached through the network (not a load/store neighbor), pieces of at
 * most GASNET_VIS_AMPIPE_MAX bytes (default 8192; GASNET_VIS_AMPIPE=0 turns packing off)
 * are not sent one RMA each but packed, as (address, length[, data]) entries, into AM
 * Mediums of up to one network message: a put's packet carries the data and the target
 * copies it into place (one reply per call, vis_tally_packet); a get's packet carries the
 * list, and the reply carries the bytes,
 * which the initiator scatters with the list it kept. Several packets are in flight at
 * once (the conduit's window is the limit); each counts in the call's completion like a
 * piece. */
#include "gasnete_internal.h"
#include <gasnet_vis.h>
#include <stdlib.h>
#include <string.h>

/* gasnet_vis.h passes a GASNet-1 memvec list as a gex_Memvec_t one: the same layout */
_Static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t) &&
                   offsetof(gasnet_memvec_t, addr) == offsetof(gex_Memvec_t, gex_addr) &&
                   offsetof(gasnet_memvec_t, len) == offsetof(gex_Memvec_t, gex_len),
               "gasnet_memvec_t and gex_Memvec_t must have one layout");

#define VIS_INFLIGHT 64 /* NB pieces outstanding before the initiator waits for them */

/* one entry of a packet: the target address and length, then (put) the bytes, padded to 8 */
typedef struct {
    uint64_t addr;
    uint64_t len;
} vis_entry_t;
#define VIS_PAD8(n) (((n) + 7) & ~(size_t)7)

/* the initiator's side of a get packet: where each entry's bytes go */
typedef struct {
    gasneti_counter_t *done;
    size_t n;
    gex_Memvec_t e[];
} vis_getdesc_t;

static int vis_pack_on = -1; /* GASNET_VIS_AMPIPE, read at the first call */
static size_t vis_pack_max;  /* GASNET_VIS_AMPIPE_MAX */

static void vis_pack_config(void) {
    if (__atomic_load_n(&vis_pack_on, __ATOMIC_ACQUIRE) >= 0) return;
    int64_t mx = gasneti_getenv_int("GASNET_VIS_AMPIPE_MAX", 8192);
    if (mx < 0) gasneti_fatalerror("GASNET_VIS_AMPIPE_MAX=%lld: must be >= 0", (long long)mx);
    vis_pack_max = (size_t)mx;
    __atomic_store_n(&vis_pack_on, gasneti_getenv_yesno("GASNET_VIS_AMPIPE", 1), __ATOMIC_RELEASE);
}

typedef struct {
    int mode, is_put;
    gex_TM_t tm;
    gex_Rank_t rank;
    gex_Flags_t flags; /* passed to every piece */
    gex_Event_t *lc;   /* a put's local completion */
    const char *call;  /* the VIS call, for debug-build messages */
    size_t nev;
    gex_Event_t ev[VIS_INFLIGHT];
    /* packing (pack != 0): the packet being filled and where packets count */
    int pack;
    gex_Rank_t jr;
    size_t cap, used, reply_bytes; /* reply_bytes: a get packet's reply so far */
    uint8_t *buf;
    vis_getdesc_t *gd;
    gasneti_counter_t own;  /* Blocking/NB: packets in flight */
    gasneti_counter_t *done; /* &own, or the NBI put/get count */
    uint64_t put_id;         /* puts: this call's packets, acknowledged once all arrived */
    uint32_t put_packets;    /* put packets sent so far */
    gex_AM_Index_t peer_h;   /* armed peer completion handler of this put (0: none) */
    const void *peer_src;
    size_t peer_n;
} vis_ctx_t;

/* gex_VIS_SetPeerCompletionHandler: armed per thread, taken by the thread's next VIS put */
static GASNETI_THREADLOCAL struct {
    gex_AM_Index_t h;
    const void *src;
    size_t n;
} vis_armed;

void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr, size_t nbytes,
                                      gex_Flags_t flags) {
    (void)flags;
    if (handler && nbytes > GEX_VIS_MAX_PEERCOMPLETION)
        gasneti_fatalerror("gex_VIS_SetPeerCompletionHandler: nbytes=%zu is above GEX_VIS_MAX_PEERCOMPLETION (%zu)",
                           nbytes, (size_t)GEX_VIS_MAX_PEERCOMPLETION);
    if (handler && handler < GEX_AM_INDEX_BASE)
        gasneti_fatalerror("gex_VIS_SetPeerCompletionHandler: handler index %u is reserved for the library",
                           (unsigned)handler);
    vis_armed.h = handler;
    vis_armed.src = nbytes ? source_addr : NULL;
    vis_armed.n = nbytes;
}

/* the target's side: runs the client's 0-argument Medium Reply handler, after the put's
 * data (the notification is sent only once the put has completed at the initiator) */
void gasnete_vis_peer_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t hidx) {
    const gex_AM_Entry_t *e = &gasneti_handler_table[(uint8_t)hidx];
    if (!e->gex_fnptr || (e->gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST)) ||
        (e->gex_nargs != 0 && e->gex_nargs != GASNETI_NARGS_ANY))
        gasneti_fatalerror("gex_VIS_SetPeerCompletionHandler: handler %u at rank %u is not registered as a "
                           "0-argument AM Medium Reply handler",
                           (unsigned)(uint8_t)hidx, (unsigned)gasneti_mynode);
    ((void (*)(gex_Token_t, void *, size_t))e->gex_fnptr)(t, buf, n);
}

static void vis_init(vis_ctx_t *c, int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags,
                     const char *call) {
    int lc_now = (mode & GASNETE_VIS_LC_NOW) != 0; /* GASNet-1 non-bulk NBI put: source free at return */
    mode &= ~GASNETE_VIS_LC_NOW;
    c->call = call;
    c->mode = mode;
    c->is_put = is_put;
    c->tm = tm;
    c->rank = rank;
    /* IMMEDIATE: a VIS call may always proceed; LEAF_LC is about the VIS call, not its pieces */
    c->flags = flags & ~(GEX_FLAG_IMMEDIATE | GEX_FLAG_ENABLE_LEAF_LC);
    c->lc = (mode == GASNETE_VIS_NBI && (flags & GEX_FLAG_ENABLE_LEAF_LC)) ? GEX_EVENT_GROUP : GEX_EVENT_DEFER;
    if (lc_now) c->lc = GEX_EVENT_NOW;
    c->nev = 0;
    vis_pack_config();
    c->jr = gasneti_tm_jobrank(tm, rank);
    c->pack = vis_pack_on && vis_pack_max && gasneti_tm_peerseg(tm, rank, c->jr)->_nbr_delta == GASNETI_NOT_NBR;
    c->cap = gasneti_medium_unsplit(c->jr); /* a packet is never split */
    c->used = c->reply_bytes = 0;
    c->buf = NULL;
    c->gd = NULL;
    gasneti_atomic_set(&c->own, 0);
    c->done = mode == GASNETE_VIS_NBI ? gasneti_nbi_counter(is_put ? GASNETI_NBI_PUT : GASNETI_NBI_GET) : &c->own;
    c->put_id = 0;
    c->put_packets = 0;
    c->peer_h = 0;
    if (is_put && vis_armed.h) { /* this put takes the armed handler; it completes before returning */
        c->peer_h = vis_armed.h, c->peer_src = vis_armed.src, c->peer_n = vis_armed.n;
        vis_armed.h = 0;
        c->mode = GASNETE_VIS_BLOCKING;
        c->lc = GEX_EVENT_DEFER;
        c->done = &c->own;
    }
}

/* A put's packets are acknowledged once, by the target's handler of whichever packet
 * completes the set (datagrams arrive in any order): every packet carries the call's id,
 * the last one sent also the number of packets. The target counts them here, per
 * (sender, id), until the count is known and reached. One Short reply per call instead
 * of one per packet: on udp each reply is a datagram the target must send while the
 * next packets wait. */
typedef struct vis_tally_s {
    struct vis_tally_s *next;
    gex_Rank_t src;
    uint64_t id;
    uint32_t got, total;
} vis_tally_t;
#define VIS_TALLY_BUCKETS 64
static vis_tally_t *vis_tally[VIS_TALLY_BUCKETS];
static gex_HSL_t vis_tally_lock = GEX_HSL_INITIALIZER;
static uint64_t vis_next_id;

/* counts one packet of (src, id); total is 0 or the call's packet count. True when the
 * set is complete (the caller acknowledges it). */
static int vis_tally_packet(gex_Rank_t src, uint64_t id, uint32_t total) {
    vis_tally_t **pp = &vis_tally[(id ^ src) % VIS_TALLY_BUCKETS], *t;
    gex_HSL_Lock(&vis_tally_lock);
    for (t = *pp; t && (t->src != src || t->id != id); t = t->next) {
    }
    if (!t) {
        t = calloc(1, sizeof(*t));
        if (!t) gasneti_fatalerror("VIS: out of memory counting packets");
        t->src = src, t->id = id, t->next = *pp, *pp = t;
    }
    t->got++;
    if (total) t->total = total;
    int complete = t->total && t->got == t->total;
    if (complete) {
        while (*pp != t) pp = &(*pp)->next;
        *pp = t->next;
        free(t);
    }
    gex_HSL_Unlock(&vis_tally_lock);
    return complete;
}

/* ---- packets ---- */

void gasnete_vis_put_req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo,
                                 gex_AM_Arg_t ihi, gex_AM_Arg_t ilo, gex_AM_Arg_t total) {
    for (size_t off = 0; off + sizeof(vis_entry_t) <= n;) {
        vis_entry_t h;
        memcpy(&h, (uint8_t *)buf + off, sizeof h);
        off += sizeof h;
        memcpy((void *)(uintptr_t)h.addr, (uint8_t *)buf + off, (size_t)h.len);
        off += VIS_PAD8((size_t)h.len);
    }
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    uint64_t id = ((uint64_t)(uint32_t)ihi << 32) | (uint32_t)ilo;
    if (vis_tally_packet(ti.gex_srcrank, id, (uint32_t)total)) gex_AM_ReplyShort2(t, GASNETI_HIDX_VIS_PUT_REP, 0, dhi, dlo);
}

void gasnete_vis_put_rep_handler(gex_Token_t t, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo) {
    (void)t;
    gasneti_counter_done((gasneti_counter_t *)GASNETE_PTR(dhi, dlo));
}

void gasnete_vis_get_req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo) {
    size_t total = 0;
    for (size_t off = 0; off + sizeof(vis_entry_t) <= n; off += sizeof(vis_entry_t)) {
        vis_entry_t h;
        memcpy(&h, (uint8_t *)buf + off, sizeof h);
        total += (size_t)h.len;
    }
    uint8_t *out = malloc(total ? total : 1);
    if (!out) gasneti_fatalerror("VIS: out of memory for a %zu-byte reply", total);
    size_t pos = 0;
    for (size_t off = 0; off + sizeof(vis_entry_t) <= n; off += sizeof(vis_entry_t)) {
        vis_entry_t h;
        memcpy(&h, (uint8_t *)buf + off, sizeof h);
        memcpy(out + pos, (void *)(uintptr_t)h.addr, (size_t)h.len);
        pos += (size_t)h.len;
    }
    gex_AM_ReplyMedium2(t, GASNETI_HIDX_VIS_GET_REP, out, total, GEX_EVENT_NOW, 0, dhi, dlo);
    free(out);
}

void gasnete_vis_get_rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo) {
    (void)t;
    vis_getdesc_t *d = GASNETE_PTR(dhi, dlo);
    size_t pos = 0;
    for (size_t i = 0; i < d->n && pos < n; i++) {
        memcpy(d->e[i].gex_addr, (uint8_t *)buf + pos, d->e[i].gex_len);
        pos += d->e[i].gex_len;
    }
    gasneti_counter_t *done = d->done;
    free(d);
    gasneti_counter_done(done);
}

/* sends the packet being filled; `last`: no more packets for this call follow */
static void vis_flush(vis_ctx_t *c, int last) {
    if (!c->used) return;
    gex_AM_Arg_t args[5];
    unsigned nargs = 2;
    if (c->is_put) {
        if (!c->put_packets++) { /* the call's first packet: one completion for all of them */
            c->put_id = __atomic_add_fetch(&vis_next_id, 1, __ATOMIC_RELAXED);
            gasneti_counter_add(c->done);
        }
        args[0] = GASNETE_HI(c->done), args[1] = GASNETE_LO(c->done);
        args[2] = (gex_AM_Arg_t)(uint32_t)(c->put_id >> 32), args[3] = (gex_AM_Arg_t)(uint32_t)c->put_id;
        args[4] = last ? (gex_AM_Arg_t)c->put_packets : 0;
        nargs = 5;
    } else {
        args[0] = GASNETE_HI(c->gd), args[1] = GASNETE_LO(c->gd);
        gasneti_counter_add(c->done);
    }
    gasneti_am_msg_t m = {c->jr, GASNETI_AM_MEDIUM, 1, (uint8_t)nargs,
                          c->is_put ? GASNETI_HIDX_VIS_PUT_REQ : GASNETI_HIDX_VIS_GET_REQ, 0, args, c->buf, c->used,
                          NULL};
    gasneti_am_send(&m, GEX_EVENT_NOW); /* the payload is copied: the packet buffer is free again */
    c->used = c->reply_bytes = 0;
    c->gd = NULL;
}

/* Adds one piece to the packet (sending the packet first if it is full). */
static void vis_pack(vis_ctx_t *c, void *local, void *remote, size_t n) {
    size_t need = sizeof(vis_entry_t) + (c->is_put ? VIS_PAD8(n) : 0);
    if (c->used + need > c->cap || (!c->is_put && c->reply_bytes + n > c->cap)) vis_flush(c, 0);
    if (!c->buf) {
        c->buf = malloc(c->cap);
        if (!c->buf) gasneti_fatalerror("%s: out of memory for a packet", c->call);
    }
    if (!c->is_put && !c->gd) {
        size_t most = c->cap / sizeof(vis_entry_t);
        c->gd = malloc(sizeof(vis_getdesc_t) + most * sizeof(gex_Memvec_t));
        if (!c->gd) gasneti_fatalerror("%s: out of memory for a packet", c->call);
        c->gd->done = c->done;
        c->gd->n = 0;
    }
    vis_entry_t h = {(uint64_t)(uintptr_t)remote, (uint64_t)n};
    memcpy(c->buf + c->used, &h, sizeof h);
    c->used += sizeof h;
    if (c->is_put) {
        memcpy(c->buf + c->used, local, n);
        c->used += VIS_PAD8(n);
    } else {
        c->gd->e[c->gd->n].gex_addr = local;
        c->gd->e[c->gd->n].gex_len = n;
        c->gd->n++;
        c->reply_bytes += n;
    }
}

/* one contiguous piece: local is on this process, remote at c->rank */
static void vis_piece(vis_ctx_t *c, void *local, void *remote, size_t n) {
    /* the RMA call checks the piece too, but naming the VIS call tells the client which one */
    GASNETI_CHECK_RMA(c->tm, c->rank, remote, n, c->flags, c->call);
    if (c->pack && n <= vis_pack_max && n + sizeof(vis_entry_t) <= c->cap) {
        vis_pack(c, local, remote, n);
        return;
    }
    if (c->mode == GASNETE_VIS_NBI) {
        if (c->is_put) (void)gex_RMA_PutNBI(c->tm, c->rank, remote, local, n, c->lc, c->flags);
        else (void)gex_RMA_GetNBI(c->tm, local, c->rank, remote, n, c->flags);
        return;
    }
    gex_Event_t e = c->is_put ? gex_RMA_PutNB(c->tm, c->rank, remote, local, n, GEX_EVENT_DEFER, c->flags)
                              : gex_RMA_GetNB(c->tm, local, c->rank, remote, n, c->flags);
    if (e == GEX_EVENT_INVALID) return;
    c->ev[c->nev++] = e;
    if (c->nev == VIS_INFLIGHT) {
        gex_Event_WaitAll(c->ev, c->nev, 0);
        c->nev = 0;
    }
}

static gex_Event_t vis_finish(vis_ctx_t *c) {
    vis_flush(c, 1);
    free(c->buf);
    c->buf = NULL;
    if (c->nev) gex_Event_WaitAll(c->ev, c->nev, 0);
    c->nev = 0;
    while (gasneti_atomic_read(&c->own)) gasneti_AMPoll(); /* packets of a Blocking/NB call */
    if (c->peer_h) { /* the data is at the target: now the notification */
        gex_AM_Arg_t arg = c->peer_h;
        gasneti_am_msg_t m = {c->jr, GASNETI_AM_MEDIUM, 1, 1, GASNETI_HIDX_VIS_PEER, 0, &arg, c->peer_src, c->peer_n,
                              NULL};
        gasneti_am_send(&m, GEX_EVENT_NOW);
    }
    return GEX_EVENT_INVALID;
}

/* A list of (address, length) entries, either memvecs or addresses of one common length. */
typedef struct {
    size_t count;
    const gex_Memvec_t *mv;
    void *const *ptr;
    size_t len;
} vis_list_t;

static inline void *vl_addr(const vis_list_t *l, size_t i) { return l->mv ? l->mv[i].gex_addr : l->ptr[i]; }
static inline size_t vl_len(const vis_list_t *l, size_t i) { return l->mv ? l->mv[i].gex_len : l->len; }

static size_t vl_total(const vis_list_t *l) {
    if (!l->mv) return l->count * l->len;
    size_t t = 0;
    for (size_t i = 0; i < l->count; i++) t += l->mv[i].gex_len;
    return t;
}

/* Walk both lists in step: each piece ends where a local or a remote entry ends. */
static void vis_walk(vis_ctx_t *c, const vis_list_t *loc, const vis_list_t *rem) {
    size_t i = 0, j = 0, oi = 0, oj = 0;
    while (i < loc->count && j < rem->count) {
        size_t li = vl_len(loc, i), lj = vl_len(rem, j);
        if (oi == li) { i++; oi = 0; continue; }
        if (oj == lj) { j++; oj = 0; continue; }
        size_t n = li - oi < lj - oj ? li - oi : lj - oj;
        vis_piece(c, (char *)vl_addr(loc, i) + oi, (char *)vl_addr(rem, j) + oj, n);
        oi += n;
        oj += n;
    }
}

static void vis_common_checks(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags, int is_put, const char *call) {
    (void)tm; (void)rank; (void)flags; (void)is_put; (void)call;
#if GASNETI_DEBUG
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    const gex_Flags_t allowed = GEX_FLAG_IMMEDIATE | GASNETI_FLAG_SELF_SEG_ALL | GASNETI_FLAG_PEER_SEG_ALL |
                                (is_put ? GEX_FLAG_ENABLE_LEAF_LC : 0);
    if (flags & ~allowed) gasneti_fatalerror("%s: flags 0x%x include bits it does not accept", call,
                                             (unsigned)(flags & ~allowed));
    if (!tm) gasneti_fatalerror("%s: the team is NULL", call);
#endif
    (void)gasneti_tm_jobrank_checked(tm, rank, call); /* in every build */
}

static gex_Event_t vis_lists(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, const vis_list_t *dst,
                             const vis_list_t *src, gex_Flags_t flags, const char *call) {
    vis_common_checks(tm, rank, flags, is_put, call);
#if GASNETI_DEBUG
    if ((dst->count && !(dst->mv || dst->ptr)) || (src->count && !(src->mv || src->ptr)))
        gasneti_fatalerror("%s: NULL list with a non-zero count", call);
    size_t dt = vl_total(dst), st = vl_total(src);
    if (dt != st)
        gasneti_fatalerror("%s: destination holds %zu bytes but source holds %zu", call, dt, st);
#endif
    vis_ctx_t c;
    vis_init(&c, mode, is_put, tm, rank, flags, call);
    if (is_put) vis_walk(&c, src, dst);
    else vis_walk(&c, dst, src);
    return vis_finish(&c);
}

gex_Event_t gasnete_vis_vector(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               gex_Memvec_t const dstlist[], size_t srccount, gex_Memvec_t const srclist[],
                               gex_Flags_t flags, const char *call) {
    vis_list_t d = {dstcount, dstlist, NULL, 0}, s = {srccount, srclist, NULL, 0};
    return vis_lists(mode, is_put, tm, rank, &d, &s, flags, call);
}

gex_Event_t gasnete_vis_indexed(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                void *const dstlist[], size_t dstlen, size_t srccount, void *const srclist[],
                                size_t srclen, gex_Flags_t flags, const char *call) {
    vis_list_t d = {dstcount, NULL, dstlist, dstlen}, s = {srccount, NULL, srclist, srclen};
    if (!dstlen) d.count = 0; /* zero-length entries carry nothing and need no address */
    if (!srclen) s.count = 0;
    return vis_lists(mode, is_put, tm, rank, &d, &s, flags, call);
}

gex_Event_t gasnete_vis_strided(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                                const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                                size_t elemsz, const size_t count[], size_t stridelevels, gex_Flags_t flags,
                                const char *call) {
    vis_common_checks(tm, rank, flags, is_put, call);
    if (!elemsz) return GEX_EVENT_INVALID;
    for (size_t k = 0; k < stridelevels; k++)
        if (!count[k]) return GEX_EVENT_INVALID;
    /* Fold leading levels that are contiguous on both sides into the element: a row of
     * elements laid end to end becomes one piece (and a dense block one RMA). */
    size_t lv = 0;
    while (lv < stridelevels && dststrides[lv] == (ptrdiff_t)elemsz && srcstrides[lv] == (ptrdiff_t)elemsz) {
        elemsz *= count[lv];
        lv++;
    }
    const ptrdiff_t *ds = dststrides + lv, *ss = srcstrides + lv;
    const size_t *cnt = count + lv;
    size_t levels = stridelevels - lv;
    size_t idx_stack[16];
    size_t *idx = levels <= 16 ? idx_stack : calloc(levels, sizeof *idx);
    if (!idx) gasneti_fatalerror("%s: out of memory for %zu stride levels", call, levels);
    for (size_t k = 0; k < levels; k++) idx[k] = 0;
    vis_ctx_t c;
    vis_init(&c, mode, is_put, tm, rank, flags, call);
    char *d = dstaddr, *s = srcaddr;
    for (;;) {
        if (is_put) vis_piece(&c, s, d, elemsz);
        else vis_piece(&c, d, s, elemsz);
        /* odometer step: advance the lowest level, carrying into higher ones */
        size_t k = 0;
        for (; k < levels; k++) {
            if (++idx[k] < cnt[k]) {
                d += ds[k];
                s += ss[k];
                break;
            }
            idx[k] = 0;
            d -= ds[k] * (ptrdiff_t)(cnt[k] - 1);
            s -= ss[k] * (ptrdiff_t)(cnt[k] - 1);
        }
        if (k == levels) break;
    }
    if (idx != idx_stack) free(idx);
    return vis_finish(&c);
}

/* GASNet-1 prototype strided form: count[0] contiguous bytes, count[1..levels] counts,
 * non-negative strides */
gex_Event_t gasnete_vis_strided_legacy(int mode, int is_put, gex_Rank_t node, void *dstaddr, const size_t dststrides[],
                                       void *srcaddr, const size_t srcstrides[], const size_t count[],
                                       size_t stridelevels, const char *call) {
    ptrdiff_t ds_stack[16], ss_stack[16];
    ptrdiff_t *ds = stridelevels <= 16 ? ds_stack : malloc(stridelevels * sizeof *ds);
    ptrdiff_t *ss = stridelevels <= 16 ? ss_stack : malloc(stridelevels * sizeof *ss);
    if (!ds || !ss) gasneti_fatalerror("%s: out of memory for %zu stride levels", call, stridelevels);
    for (size_t k = 0; k < stridelevels; k++) {
        ds[k] = (ptrdiff_t)dststrides[k];
        ss[k] = (ptrdiff_t)srcstrides[k];
    }
    gex_Event_t ev = gasnete_vis_strided(mode, is_put, gasneti_tm0, node, dstaddr, ds, srcaddr, ss, count[0], count + 1,
                                         stridelevels, 0, call);
    if (ds != ds_stack) free(ds);
    if (ss != ss_stack) free(ss);
    return ev;
}
