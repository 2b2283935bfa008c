/* gasneti_am_prepare.c: negotiated-payload Active Messages (gex_AM_Prepare*, then
 * gex_AM_Commit*, gex_AM_Commit*_v2 or gex_AM_Cancel*) and the per-thread source
 * descriptor between the two calls.
 * Layer: core.
 *
 * Prepare records the destination, flags and argument count in this thread's one
 * descriptor, picks the payload size and the buffer:
 *   - the client's (client_buf);
 *   - for a Medium request to a neighbor with the library's buffer: the same-host slot
 *     the message will travel in (a lane slot when most_payload fits one, else a
 *     payload block of the shared queue), claimed at Prepare; the client writes its
 *     payload in place and the Commit only writes the header and publishes: no copy;
 *     (not to this process itself: its AMs run before the Commit returns, gasneti_am.c);
 *   - to a non-neighbor, where the conduit offers it (GASNETC_AM_PREPARE, conduit_contract.h),
 *     a buffer inside the conduit's own send memory, the message built around it at Commit;
 *   - otherwise one of this thread's library buffers, which grow on demand and are kept
 *     for the next Prepare (so a Commit sends from one with local completion NOW): one
 *     for Prepares outside handlers, one for replies prepared inside a request handler.
 *     Two, because a Commit may run handlers before its payload has left the buffer (the
 *     conduit polls while it waits for credits or slots, or for an RDMA write from the
 *     buffer to complete), and a reply prepared there must not take the same buffer. A
 *     reply's Commit runs only reply handlers, which send nothing: two are enough.
 * Commit turns the descriptor into an ordinary AM and sends it down the same path as
 * the fixed-payload calls (gasneti_am_request / gasneti_am_reply, or the claimed slot
 * with the same checks), so ordering, reply and local-completion rules are the same by
 * construction.
 * Checked in every build (one comparison each, as for fixed-payload AMs): least_payload
 * against the call's maximum, most < least, numargs above 16, a Commit's nbytes beyond
 * the prepared size, a Commit of another category or argument count than prepared.
 * Debug builds also check the pairing (no nesting, Commit in the same thread with the
 * descriptor of the preceding Prepare) and forbid other communication in between. */
#include "conduit_contract.h"

#include <string.h>

#if GASNETI_DEBUG
GASNETI_THREADLOCAL const char *gasneti_prepare_pending;
#endif

typedef struct {
    struct gasneti_srcdesc_s pub; /* _addr, _size: what the client sees */
    gasneti_am_msg_t m;           /* jobrank, category, is_req, nargs, flags of the Commit to come */
    gex_TM_t tm;                  /* request: for the checks of gasneti_am_request */
    gex_Rank_t rank;
    gex_Token_t token;            /* reply */
    void *dest;                   /* Long: dest_addr given to Prepare (NULL: any at Commit) */
    gex_Event_t *lc_opt;          /* client buffer: the client's; library buffer: NOW */
    const char *call;
    gasneti_pshm_claim_t claim;   /* library buffer to a neighbor: the slot the payload is written in */
    gasneti_am_prep_t net;        /* claim.where GASNETI_CLAIM_NET: the conduit's buffer (gasnetc_am_prepare) */
} srcdesc_t;

static GASNETI_THREADLOCAL srcdesc_t sd_self;
/* this thread's library buffers ([1]: inside a handler): aligned for any type, kept
 * between Prepares */
static GASNETI_THREADLOCAL uint8_t *lib_buf[2];
static GASNETI_THREADLOCAL size_t lib_cap[2];

/* The library buffer offers at least this much (or least_payload, if more) when the
 * client's most_payload allows: larger offers would only cost memory. */
#define LIB_OFFER ((size_t)65536)

static const char *const prep_name[2][2] = {{"gex_AM_PrepareReplyMedium", "gex_AM_PrepareRequestMedium"},
                                            {"gex_AM_PrepareReplyLong", "gex_AM_PrepareRequestLong"}};
static const char *const commit_name[2][2] = {{"gex_AM_CommitReplyMedium", "gex_AM_CommitRequestMedium"},
                                              {"gex_AM_CommitReplyLong", "gex_AM_CommitRequestLong"}};
static const char *const cancel_name[2][2] = {{"gex_AM_CancelReplyMedium", "gex_AM_CancelRequestMedium"},
                                              {"gex_AM_CancelReplyLong", "gex_AM_CancelRequestLong"}};

#if GASNETI_THREADS
#  include <pthread.h>
/* a thread's library buffers are freed when the thread exits */
static pthread_key_t lib_key[2];
static pthread_once_t lib_key_once = PTHREAD_ONCE_INIT;
static void lib_key_init(void) {
    pthread_key_create(&lib_key[0], free);
    pthread_key_create(&lib_key[1], free);
}
#  define LIB_BUF_OWNED(i, p) (pthread_once(&lib_key_once, lib_key_init), pthread_setspecific(lib_key[i], p))
#else
#  define LIB_BUF_OWNED(i, p) ((void)0)
#endif

static uint8_t *lib_buffer(size_t need) {
    int i = gasneti_cur_token != NULL;
    if (need > lib_cap[i]) {
        size_t cap = need < LIB_OFFER ? LIB_OFFER : need;
        void *p = NULL;
        if (posix_memalign(&p, 64, cap)) gasneti_fatalerror("out of memory for a %zu-byte AM source buffer", cap);
        free(lib_buf[i]); /* nothing is in it: the previous Commit at this level sent it */
        lib_buf[i] = p;
        lib_cap[i] = cap;
        LIB_BUF_OWNED(i, p);
    }
    return lib_buf[i];
}

/* Prepared: the payload goes at `at`, in the message's own slot (sd->claim says whose) */
static gex_AM_SrcDesc_t in_place(srcdesc_t *sd, void *at, size_t size) {
    sd->pub._addr = at;
    sd->pub._size = size;
#if GASNETI_DEBUG
    gasneti_prepare_pending = sd->call;
#endif
    return &sd->pub;
}

/* The common part of the four Prepare calls; m->jobrank and m->is_req are set. */
static gex_AM_SrcDesc_t prepare(srcdesc_t *sd, const void *client_buf, size_t least, size_t most,
                                gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs) {
    const char *call = sd->call;
    int is_long = sd->m.category == GASNETI_AM_LONG;
    size_t limit = is_long ? gasneti_am_max_long : gasneti_am_max_medium;
    if (GASNETI_UNLIKELY(numargs > GASNETI_MAX_ARGS))
        gasneti_fatalerror("%s: numargs=%u exceeds gex_AM_MaxArgs()=%d", call, numargs, GASNETI_MAX_ARGS);
    if (GASNETI_UNLIKELY(least > limit))
        gasneti_fatalerror("%s: least_payload of %zu bytes exceeds the maximum of %zu for this call", call, least,
                           limit);
    if (GASNETI_UNLIKELY(most < least))
        gasneti_fatalerror("%s: most_payload (%zu) is less than least_payload (%zu)", call, most, least);
#if GASNETI_DEBUG
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", call);
    if (gasneti_prepare_pending)
        gasneti_fatalerror("%s called before the Commit of %s (Prepare/Commit pairs do not nest)", call,
                           gasneti_prepare_pending);
    if (!client_buf && lc_opt) gasneti_fatalerror("%s: lc_opt must be NULL when client_buf is NULL", call);
    if (client_buf) {
        if (lc_opt == GEX_EVENT_DEFER) gasneti_fatalerror("%s: lc_opt GEX_EVENT_DEFER is not allowed for AMs", call);
        if (!sd->m.is_req && lc_opt == GEX_EVENT_GROUP)
            gasneti_fatalerror("%s: lc_opt GEX_EVENT_GROUP is not allowed for replies", call);
        if (!lc_opt) gasneti_fatalerror("%s: lc_opt is NULL with a client buffer", call);
    }
    if (flags & GEX_FLAG_SELF_SEG_OFFSET)
        gasneti_fatalerror("%s: GEX_FLAG_SELF_SEG_OFFSET is prohibited in Prepare calls (flags 0x%x)", call,
                           (unsigned)flags);
    if ((flags & GASNETI_FLAG_SELF_SEG_ALL) && !client_buf)
        gasneti_fatalerror("%s: GEX_FLAG_SELF_SEG_* (flags 0x%x) describe a client_buf, which is NULL", call,
                           (unsigned)flags);
    if (flags & (GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC)) {
        /* "ignored in Prepare calls": accepted, but they must not both be given */
        if ((flags & GEX_FLAG_AM_PREPARE_LEAST_CLIENT) && (flags & GEX_FLAG_AM_PREPARE_LEAST_ALLOC))
            gasneti_fatalerror("%s: GEX_FLAG_AM_PREPARE_LEAST_CLIENT and _ALLOC are mutually exclusive", call);
    }
#endif
    sd->m.nargs = (uint8_t)numargs;
    sd->m.flags = flags & ~(GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC);
    size_t size;
    if (client_buf) {
        size = most < limit ? most : limit;
        sd->pub._addr = (void *)client_buf;
        sd->lc_opt = lc_opt;
    } else {
        size_t offer = least > LIB_OFFER ? least : LIB_OFFER;
        if (offer > limit) offer = limit;
        size = most < offer ? most : offer;
        sd->lc_opt = GEX_EVENT_NOW;
        int32_t idx = gasneti_nbrhd_index[sd->m.jobrank];
        if (sd->m.is_req && !is_long && (GASNETC_NBRHD_ONLY || idx >= 0) && sd->m.jobrank != gasneti_mynode) {
            /* a Medium request to a neighbor: the client writes straight into the slot the
             * message goes in (a lane's when it fits, else the shared queue's payload
             * block), claimed now, published by the Commit; IMMEDIATE is then exact */
            void *at;
            sd->m.nbytes = size;
            if (gasneti_lanes_on && most <= GASNETI_LANE_INLINE)
                at = gasneti_lanes_claim(&sd->m, idx, &sd->claim);
            else
                at = gasneti_pshm_claim(&sd->m, &sd->claim);
            return at ? in_place(sd, at, size) : GEX_AM_SRCDESC_NO_OP;
        }
#if GASNETC_AM_PREPARE
        if (idx < 0 && sd->m.jobrank != gasneti_mynode) { /* the conduit's own send memory, if it offers it */
            void *at = gasnetc_am_prepare(&sd->m, least, size, &size, &sd->net);
            if (at) {
                sd->claim.where = GASNETI_CLAIM_NET;
                return in_place(sd, at, size);
            }
        }
#endif
        sd->pub._addr = lib_buffer(size);
    }
    sd->claim.where = GASNETI_CLAIM_NONE;
    sd->pub._size = size;
    if (flags & GEX_FLAG_IMMEDIATE) {
        /* ask about the largest message the Commit may send */
        sd->m.nbytes = size;
        if (gasneti_am_would_block(&sd->m, sd->token)) return GEX_AM_SRCDESC_NO_OP;
    }
#if GASNETI_DEBUG
    gasneti_prepare_pending = call;
#endif
    return &sd->pub;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least,
                                             size_t most, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs) {
    srcdesc_t *sd = &sd_self;
    sd->call = prep_name[0][1];
#if !GASNETI_DEBUG
    /* the small case, a lane slot to a neighbor (the general path below would choose it
     * too), with no more work than a fixed-payload request's: a negotiated payload must
     * not cost more than a copy of the 168 bytes it saves at most */
    if (!client_buf && most <= GASNETI_LANE_INLINE && least <= most && numargs <= GASNETI_MAX_ARGS &&
        gasneti_lanes_on) {
        gex_Rank_t jr = gasneti_tm_jobrank_checked(tm, rank, sd->call);
        int32_t idx = gasneti_nbrhd_index[jr];
        if (idx >= 0 && jr != gasneti_mynode) { /* (to itself: the general path, which runs it at once) */
            sd->m.jobrank = jr, sd->m.category = GASNETI_AM_MEDIUM, sd->m.is_req = 1, sd->m.nargs = (uint8_t)numargs;
            sd->m.flags = flags & ~(GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC);
            sd->m.nbytes = most;
            sd->m.dst_ep = (uint8_t)gasneti_tm_epidx(tm, rank), sd->m.src_ep = (uint8_t)tm->_ep->_index;
            void *at = gasneti_lanes_claim(&sd->m, idx, &sd->claim);
            if (!at) return GEX_AM_SRCDESC_NO_OP;
            sd->tm = tm, sd->rank = rank;
            sd->pub._addr = at;
            sd->pub._size = most;
            return &sd->pub;
        }
    }
#endif
    GASNETI_CHECK_NOT_IN_HANDLER(sd->call);
    sd->m = (gasneti_am_msg_t){gasneti_tm_jobrank_checked(tm, rank, sd->call), GASNETI_AM_MEDIUM, 1, 0, 0, 0, NULL, NULL, 0, NULL};
    sd->tm = tm, sd->rank = rank, sd->token = NULL, sd->dest = NULL;
    return prepare(sd, client_buf, least, most, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least,
                                           size_t most, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned numargs) {
    srcdesc_t *sd = &sd_self;
    sd->call = prep_name[1][1];
    GASNETI_CHECK_NOT_IN_HANDLER(sd->call);
    sd->m = (gasneti_am_msg_t){gasneti_tm_jobrank_checked(tm, rank, sd->call), GASNETI_AM_LONG, 1, 0, 0, 0, NULL, NULL, 0, dest_addr};
    sd->tm = tm, sd->rank = rank, sd->token = NULL, sd->dest = dest_addr;
    return prepare(sd, client_buf, least, most, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf, size_t least, size_t most,
                                           gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs) {
    srcdesc_t *sd = &sd_self;
    sd->call = prep_name[0][0];
#if GASNETI_DEBUG
    gasneti_check_reply_token(token, sd->call);
#endif
    sd->m = (gasneti_am_msg_t){token->srcrank, GASNETI_AM_MEDIUM, 0, 0, 0, 0, NULL, NULL, 0, NULL};
    sd->tm = NULL, sd->rank = 0, sd->token = token, sd->dest = NULL;
    return prepare(sd, client_buf, least, most, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf, size_t least, size_t most,
                                         void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs) {
    srcdesc_t *sd = &sd_self;
    sd->call = prep_name[1][0];
#if GASNETI_DEBUG
    gasneti_check_reply_token(token, sd->call);
#endif
    sd->m = (gasneti_am_msg_t){token->srcrank, GASNETI_AM_LONG, 0, 0, 0, 0, NULL, NULL, 0, dest_addr};
    sd->tm = NULL, sd->rank = 0, sd->token = token, sd->dest = dest_addr;
    return prepare(sd, client_buf, least, most, lc_opt, flags, numargs);
}

#if GASNETI_DEBUG
void gasneti_srcdesc_check(gex_AM_SrcDesc_t sd, const char *call) {
    if (sd == GEX_AM_SRCDESC_NO_OP) gasneti_fatalerror("%s: GEX_AM_SRCDESC_NO_OP is not a source descriptor", call);
    if (sd != &sd_self.pub || !gasneti_prepare_pending)
        gasneti_fatalerror("%s: %p is not the result of a pending Prepare on this thread", call, (void *)sd);
}
#endif

/* The common part of the four Commit calls (both forms: the void one passes
 * commit_flags 0). Returns non-zero only when GEX_FLAG_IMMEDIATE in commit_flags found no
 * room: then nothing was sent and the descriptor is still this thread's pending one. A
 * payload in a slot claimed at Prepare has its room already: that Commit never declines. */
static int commit(gex_AM_SrcDesc_t pub, unsigned category, unsigned is_req, gex_AM_Index_t handler, size_t nbytes,
                  void *dest_addr, gex_Flags_t cflags, unsigned nargs, const gex_AM_Arg_t *args) {
    srcdesc_t *sd = (srcdesc_t *)pub;
    const char *call = commit_name[category == GASNETI_AM_LONG][is_req];
#if GASNETI_DEBUG
    gasneti_srcdesc_check(pub, call);
    if (sd->dest && dest_addr != sd->dest)
        gasneti_fatalerror("%s: dest_addr %p differs from the %p given to %s", call, dest_addr, sd->dest, sd->call);
    if (cflags & ~GEX_FLAG_IMMEDIATE)
        gasneti_fatalerror("%s_v2: commit_flags 0x%x: only GEX_FLAG_IMMEDIATE is supported", call, (unsigned)cflags);
    gasneti_prepare_pending = NULL;
#endif
    if (GASNETI_UNLIKELY(sd->m.category != category || sd->m.is_req != is_req))
        gasneti_fatalerror("%s: the pending Prepare was %s", call, sd->call);
    if (GASNETI_UNLIKELY(nargs != sd->m.nargs))
        gasneti_fatalerror("%s: %u handler arguments, but %s was given numargs=%u", call, nargs, sd->call,
                           (unsigned)sd->m.nargs);
    if (GASNETI_UNLIKELY(nbytes > sd->pub._size))
        gasneti_fatalerror("%s: nbytes=%zu exceeds the %zu bytes prepared by %s", call, nbytes, sd->pub._size,
                           sd->call);
    gasneti_am_msg_t m = sd->m;
    m.handler = handler;
    m.args = args;
    m.src = sd->pub._addr;
    m.nbytes = nbytes;
    m.dest_addr = dest_addr;
    /* "Commit-time behavior is unaffected by" the Prepare's IMMEDIATE; the _v2 one counts */
    m.flags = (m.flags & ~GEX_FLAG_IMMEDIATE) | (cflags & GEX_FLAG_IMMEDIATE);
    int rc;
#if GASNETC_AM_PREPARE
    if (sd->claim.where == GASNETI_CLAIM_NET) {
        rc = gasneti_am_commit_net(sd->tm, sd->rank, sd->token, &m, &sd->net);
        sd->claim.where = GASNETI_CLAIM_NONE;
    } else
#endif
    if (sd->claim.where != GASNETI_CLAIM_NONE) {
        GASNETI_TRACE_OP((is_req ? GASNETI_TK_AMREQ_SHORT : GASNETI_TK_AMREP_SHORT) + category, m.jobrank, nbytes,
                         handler);
        rc = gasneti_am_commit_claimed(sd->tm, sd->rank, &m, &sd->claim);
    } else if (is_req) {
        rc = gasneti_am_request(sd->tm, sd->rank, &m, sd->lc_opt);
    } else {
        rc = gasneti_am_reply(sd->token, &m, sd->lc_opt);
    }
#if GASNETI_DEBUG
    if (rc) gasneti_prepare_pending = sd->call; /* declined: still to Commit or Cancel */
#endif
    return rc;
}

int gasneti_AM_CommitRequestMediumA(gex_AM_SrcDesc_t pub, gex_AM_Index_t handler, size_t nbytes, gex_Flags_t cflags,
                                    unsigned nargs, const gex_AM_Arg_t *args) {
#if !GASNETI_DEBUG
    /* the small case of gex_AM_PrepareRequestMedium, with the checks of commit() */
    srcdesc_t *sd = (srcdesc_t *)pub;
    if (sd->claim.where == GASNETI_CLAIM_LANE && sd->m.category == GASNETI_AM_MEDIUM && sd->m.is_req &&
        nargs == sd->m.nargs && nbytes <= sd->pub._size && !(sd->m.flags & GASNETI_FLAG_SEG_OFFSET)) {
        gasneti_am_msg_t m = {sd->m.jobrank, GASNETI_AM_MEDIUM, 1, (uint8_t)nargs, handler, 0, args, sd->pub._addr,
                              nbytes, NULL, NULL, sd->m.dst_ep, sd->m.src_ep};
        GASNETI_TRACE_OP(GASNETI_TK_AMREQ_MEDIUM, m.jobrank, nbytes, handler);
        gasneti_lanes_commit(&sd->claim, &m);
        return 0;
    }
#endif
    return commit(pub, GASNETI_AM_MEDIUM, 1, handler, nbytes, NULL, cflags, nargs, args);
}
int gasneti_AM_CommitReplyMediumA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes, gex_Flags_t cflags,
                                  unsigned nargs, const gex_AM_Arg_t *args) {
    return commit(sd, GASNETI_AM_MEDIUM, 0, handler, nbytes, NULL, cflags, nargs, args);
}
int gasneti_AM_CommitRequestLongA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes, void *dest_addr,
                                  gex_Flags_t cflags, unsigned nargs, const gex_AM_Arg_t *args) {
    return commit(sd, GASNETI_AM_LONG, 1, handler, nbytes, dest_addr, cflags, nargs, args);
}
int gasneti_AM_CommitReplyLongA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes, void *dest_addr,
                                gex_Flags_t cflags, unsigned nargs, const gex_AM_Arg_t *args) {
    return commit(sd, GASNETI_AM_LONG, 0, handler, nbytes, dest_addr, cflags, nargs, args);
}

/* ---- Cancel: the Prepare's resources back, nothing delivered ----
 * A library or client buffer needs nothing (the library's stays this thread's for the
 * next Prepare); the conduit's takes gasnetc_am_cancel. A same-host slot claimed at Prepare cannot be handed back (later
 * positions may be claimed by other senders already), so it is published holding a
 * Short request to the library's no-op handler, which the receiver runs and drops. */
void gasneti_noop_handler(gex_Token_t token) { (void)token; }

static int cancel(gex_AM_SrcDesc_t pub, unsigned category, unsigned is_req, gex_Flags_t flags) {
    srcdesc_t *sd = (srcdesc_t *)pub;
    const char *call = cancel_name[category == GASNETI_AM_LONG][is_req];
    if (GASNETI_UNLIKELY(pub == GEX_AM_SRCDESC_NO_OP))
        gasneti_fatalerror("%s: GEX_AM_SRCDESC_NO_OP is not a source descriptor", call);
#if GASNETI_DEBUG
    gasneti_srcdesc_check(pub, call);
#endif
    if (GASNETI_UNLIKELY(sd->m.category != category || sd->m.is_req != is_req))
        gasneti_fatalerror("%s: the pending Prepare was %s", call, sd->call);
    if (flags) return gasneti_error_return(GASNET_ERR_BAD_ARG, call, "flags 0x%x: must be 0", (unsigned)flags);
#if GASNETI_DEBUG
    gasneti_prepare_pending = NULL;
#endif
#if GASNETC_AM_PREPARE
    if (sd->claim.where == GASNETI_CLAIM_NET) {
        gasnetc_am_cancel(&sd->net);
        sd->claim.where = GASNETI_CLAIM_NONE;
    }
#endif
    if (sd->claim.where != GASNETI_CLAIM_NONE) {
        gasneti_am_msg_t m = {sd->m.jobrank, GASNETI_AM_SHORT, 1, 0, GASNETI_HIDX_NOOP, 0, NULL, NULL, 0, NULL,
                              NULL, (uint8_t)gasneti_tm_epidx(sd->tm, sd->rank), (uint8_t)sd->tm->_ep->_index};
        gasneti_claim_commit(&sd->claim, &m);
        sd->claim.where = GASNETI_CLAIM_NONE;
    }
    return GASNET_OK;
}

int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
    return cancel(sd, GASNETI_AM_MEDIUM, 1, flags);
}
int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags) { return cancel(sd, GASNETI_AM_MEDIUM, 0, flags); }
int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags) { return cancel(sd, GASNETI_AM_LONG, 1, flags); }
int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags) { return cancel(sd, GASNETI_AM_LONG, 0, flags); }
