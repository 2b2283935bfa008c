/* gasneti_internal.h: declarations shared inside the library (core, extended, conduits).
 * Layer: core, internal (never installed). */
#ifndef GASNETI_INTERNAL_H
#define GASNETI_INTERNAL_H

#include <gasnetex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GASNETI_STRINGIFY2(x) #x
#define GASNETI_STRINGIFY(x) GASNETI_STRINGIFY2(x)
#define GASNETI_CONFIG_MODE_STR \
    GASNETI_STRINGIFY(GASNETI_THREADMODEL) "-" GASNETI_STRINGIFY(GASNETI_DEBUG_NAME) "-" GASNETI_STRINGIFY(GASNETI_SEGMENT_NAME)

/* ---- completion counters: the one way any layer signals completion ---- */
typedef gasneti_atomic_t gasneti_counter_t;
#define gasneti_counter_done(c) gasneti_atomic_decrement(c)
#define gasneti_counter_add(c) gasneti_atomic_increment(c)

/* ---- an AM on its way out (core -> PSHM or conduit) ---- */
enum { GASNETI_AM_SHORT = 0, GASNETI_AM_MEDIUM = 1, GASNETI_AM_LONG = 2 };
#define GASNETI_AM_WOULD_BLOCK 1
/* One piece of a Medium or Long the core split because the conduit's messages are
 * smaller (gasneti_frag.c): the conduit carries these 12 bytes opaquely. */
typedef struct {
    uint32_t msgid;  /* unique per sender */
    uint32_t offset; /* of this piece in the whole payload */
    uint32_t total;  /* bytes of the whole payload */
} gasneti_frag_t;
typedef struct {
    gex_Rank_t jobrank;       /* destination */
    uint8_t category;         /* GASNETI_AM_* */
    uint8_t is_req;
    uint8_t nargs;
    gex_AM_Index_t handler;
    gex_Flags_t flags;
    const gex_AM_Arg_t *args;
    const void *src;
    size_t nbytes;
    void *dest_addr;          /* Long: address in the target's address space */
    const gasneti_frag_t *frag; /* NULL, or: this is one piece of a bigger AM */
    uint8_t dst_ep, src_ep;   /* endpoint indices (< GASNET_MAXEPS) of receiver and sender */
} gasneti_am_msg_t;

/* The meta word of a same-host slot (PSHM queues and lanes): category and receiving
 * endpoint (2 + 6 bits), is_req and sending endpoint (1 + 7 bits), nargs and handler of
 * an AM, a byte each, packed and unpacked arithmetically. */
#define GASNETI_META(cat, is_req, nargs, handler, dst_ep, src_ep)                                         \
    ((uint32_t)(cat) | (uint32_t)(dst_ep) << 2 | (uint32_t)(is_req) << 8 | (uint32_t)(src_ep) << 9 |     \
     (uint32_t)(nargs) << 16 | (uint32_t)(handler) << 24)
#define GASNETI_META_OF(m) GASNETI_META((m)->category, (m)->is_req, (m)->nargs, (m)->handler, (m)->dst_ep, (m)->src_ep)
#define GASNETI_META_CAT(w) ((unsigned)(w)&3)
#define GASNETI_META_DST_EP(w) ((unsigned)((w) >> 2) & 0x3f)
#define GASNETI_META_IS_REQ(w) ((unsigned)((w) >> 8) & 1)
#define GASNETI_META_SRC_EP(w) ((unsigned)((w) >> 9) & 0x7f)
#define GASNETI_META_NARGS(w) ((unsigned)((w) >> 16) & 0xff)
#define GASNETI_META_HANDLER(w) ((gex_AM_Index_t)((w) >> 24))

/* ---- an AM arriving through a network conduit (conduit -> core) ---- */
typedef struct {
    gex_Rank_t srcrank;
    gex_AM_Index_t handler;
    uint8_t category, is_req, nargs;
    const gex_AM_Arg_t *args;
    void *payload;            /* Medium: the data; Long: dest_addr (data already there) */
    size_t nbytes;
    const gasneti_frag_t *frag; /* as the sender's gasneti_am_msg_t had it */
    uint8_t dst_ep, src_ep;     /* as the sender's gasneti_am_msg_t had them */
} gasneti_am_recv_t;

/* Medium payload bytes a PSHM lane slot carries (gasneti_pshm_lanes.c); a reply to a
 * request that came through a lane is handled by struct gasneti_lane_reply_s there. */
#define GASNETI_LANE_INLINE 168
struct gasneti_lane_reply_s;

struct gasneti_token_s {
    gex_Rank_t srcrank;
    gex_EP_t ep;                 /* the receiving endpoint */
    const gex_AM_Entry_t *entry;
    uint8_t is_req, is_long, replied;
    uint8_t src_ep;              /* the sender's endpoint index (where a reply goes) */
    struct gasneti_lane_reply_s *lane;
};

/* Running the handler of an arrived AM: gasneti_am_deliver() in gasneti_deliver.h. */
/* Send one AM to a neighbor (PSHM) or through the conduit. */
extern int gasneti_am_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt);
/* The checks of one injection call, then gasneti_am_send (gasneti_am.c); a reply also
 * marks the token as replied. */
extern int gasneti_am_request(gex_TM_t tm, gex_Rank_t rank, gasneti_am_msg_t *m, gex_Event_t *lc_opt);
extern int gasneti_am_reply(gex_Token_t token, gasneti_am_msg_t *m, gex_Event_t *lc_opt);
extern int gasneti_am_would_block(const gasneti_am_msg_t *m, gex_Token_t token);
/* The network half (gasneti_event.c): maps lc_opt to the counter gasnetc_am_send signals. */
extern int gasneti_am_send_network(const gasneti_am_msg_t *m, gex_Event_t *lc_opt);

/* ---- fragmentation (gasneti_frag.c) for conduits whose one message is smaller than
 * what the library offers (GASNETC_NET_MEDIUM / _LONG below GASNETC_MAX_*) ---- */
extern int gasneti_frag_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt);
extern void gasneti_frag_recv(const gasneti_am_recv_t *m);
/* the pool of GASNETC_MAX_MEDIUM-byte buffers (reassembly, and conduits that receive a big
 * Medium's payload apart from its message: GASNETC_MEDIUM_PIECE_AT_RUN_TIME) */
extern void *gasneti_bigmed_get(void);
extern void gasneti_bigmed_put(void *buf);

/* ---- handler indices reserved for the library (1..GASNETI_HANDLER_CLIENT_MIN-1) ---- */
enum {
    GASNETI_HIDX_BARRIER = 1,
    GASNETI_HIDX_AMRMA_PUT_REQ,
    GASNETI_HIDX_AMRMA_PUT_REP,
    GASNETI_HIDX_AMRMA_GET_REQ,
    GASNETI_HIDX_AMRMA_GET_REP,
    GASNETI_HIDX_AMO_REQ,
    GASNETI_HIDX_AMO_REP,
    GASNETI_HIDX_VIS_PUT_REQ,
    GASNETI_HIDX_VIS_PUT_REP,
    GASNETI_HIDX_VIS_GET_REQ,
    GASNETI_HIDX_VIS_GET_REP,
    GASNETI_HIDX_VIS_PEER,
    GASNETI_HIDX_COLL,
    GASNETI_HIDX_AMRMA_PUTM_REQ,
    GASNETI_HIDX_NOOP, /* runs nothing: fills a same-host slot a gex_AM_Cancel* gave up */
    GASNETI_HIDX_LAST
};
extern void gasneti_noop_handler(gex_Token_t token); /* gasneti_am_prepare.c */
#define GASNETI_NARGS_ANY (~0u) /* legacy registrations: any argument count */
extern int gasneti_register_handlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries, int legacy);
/* What the layer above the core (the extended layer) registers with it: the public
 * gex_Client_Init and gasnet_init macros pass the extended layer's record to
 * gasneti_Client_Init, so the core never names that layer (dependence runs downward).
 *   handlers: its own AM handlers, below GEX_AM_INDEX_BASE, terminated by a NULL
 *             gex_fnptr; registered on every endpoint (gasneti_handlers_init);
 *   progress: polled by gasneti_AMPoll while gasneti_progress_needed is nonzero (barriers,
 *             collectives);
 *   quiesce:  at a normal exit, every put issued so far complete at its target (a flush,
 *             when puts need one: conduit_contract.h, GASNETC_RMA_FLUSH).
 * Any member may be NULL (a core used alone, as in unit tests). */
struct gasneti_waitrec_s; /* gasneti_watchdog.h */
struct gasneti_layer_s {
    const gex_AM_Entry_t *handlers;
    void (*progress)(void);
    void (*quiesce)(void);
    /* describe: one line about a wait it marked with GASNETI_WAITING (gasneti_watchdog.h),
     *           for the state dump: its team, barrier round, collective, counters */
    void (*describe)(const struct gasneti_waitrec_s *w, char *buf, size_t len);
};
extern const struct gasneti_layer_s *gasneti_layer; /* set by gasneti_Client_Init */

/* ---- job, neighborhood, host ---- */
typedef struct gasneti_bootstrap_s gasneti_bootstrap_t; /* defined in conduit_contract.h */
extern gasneti_bootstrap_t *gasneti_boot;
extern gex_Rank_t gasneti_nbrhd_size, gasneti_nbrhd_myidx, *gasneti_nbrhd_ranks;
extern gex_Rank_t gasneti_host_size, gasneti_host_myidx, *gasneti_host_ranks;
extern gex_Rank_t gasneti_nbrhd_set_size, gasneti_nbrhd_set_rank, gasneti_host_set_size, gasneti_host_set_rank;
extern int32_t *gasneti_nbrhd_index; /* [gasneti_nodes]: index in my neighborhood, or -1 */
extern gex_Client_t gasneti_client0;
extern gex_AM_Entry_t *gasneti_handler_table; /* the primordial endpoint's */
extern gex_EP_t gasneti_eps[GASNET_MAXEPS];    /* this process's endpoints by index (gasneti_ep.c) */
extern void gasneti_handlers_init(gex_EP_t ep); /* the library's handlers into a new endpoint's table */
extern void gasneti_ep_init0(gex_EP_t ep);      /* the primordial endpoint, at gex_Client_Init */
extern void gasneti_segments_fini(void);        /* at exit: shared-memory names still linked are removed */
/* The conduit's key blob of one segment (conduit_contract.h, "Segments reached by RDMA"):
 * at most GASNETC_SEGKEY_MAX bytes, 0 (the default) when the conduit has none. */
#ifndef GASNETC_SEGKEY_MAX
#  define GASNETC_SEGKEY_MAX 0
#endif
#define GASNETI_SEGKEY_BYTES (GASNETC_SEGKEY_MAX ? (GASNETC_SEGKEY_MAX + 7) / 8 * 8 : 8)
typedef struct gasneti_segkey_s {
    uint32_t len; /* 0: no key, reached by AMs */
    uint32_t pad;
    uint8_t blob[GASNETI_SEGKEY_BYTES];
} gasneti_segkey_t;
/* gasneti_ep.c: the conduit's registration of seg, its key in *key (len 0: none); the
 * handle of a received key for (owner, ep), NULL if none (the conduit's unpack) */
extern void gasneti_segkey_register(gex_Segment_t seg, gasneti_segkey_t *key);
extern void gasneti_segkey_deregister(gex_Segment_t seg);
extern const void *gasneti_segkey_unpack(gex_Rank_t owner, gex_EP_Index_t ep, const gasneti_segkey_t *key);
/* one endpoint's bound segment as gex_EP_PublishBoundSegment exchanges it */
typedef struct {
    uint64_t addr, size;
    uint32_t jobrank, ep, seg_id, shm; /* shm: neighbours map it (name from jobrank and seg_id) */
    gasneti_segkey_t key;              /* the conduit's key of it */
} gasneti_segpub_t;
extern void gasneti_ep_publish_local(gex_EP_t ep, gasneti_segpub_t *rec);
extern void gasneti_ep_publish_record(const gasneti_segpub_t *rec);
extern int gasneti_init_done, gasneti_attach_done;
extern uintptr_t gasneti_max_local_segsize, gasneti_max_global_segsize;

/* ---- PSHM (gasneti_pshm.c) ---- */
extern void gasneti_pshm_init(void);
extern int gasneti_pshm_am_send(const gasneti_am_msg_t *m);
extern int gasneti_pshm_poll(int replies_only);
extern int gasneti_pshm_have_room(const gasneti_am_msg_t *m);
/* the state dump's words about neighbor r (AMs to it not yet handled): 1 if any */
extern int gasneti_pshm_diag(gex_Rank_t r, char *buf, size_t len);
extern int gasneti_lanes_diag(int32_t nbrhd_idx, unsigned *unanswered);
/* A same-host slot claimed for a negotiated-payload request whose payload the client
 * writes in place (gasneti_am_prepare.c): claim at Prepare, commit (publish) at Commit. */
enum { GASNETI_CLAIM_NONE = 0, GASNETI_CLAIM_LANE, GASNETI_CLAIM_QUEUE, GASNETI_CLAIM_NET /* gasnetc_am_prepare's */ };
typedef struct {
    int where;    /* GASNETI_CLAIM_* */
    uint64_t pos; /* position in the lane or queue */
    void *slot;   /* lane: the slot */
    size_t ring;  /* queue: which */
} gasneti_pshm_claim_t;
extern void *gasneti_pshm_claim(const gasneti_am_msg_t *m, gasneti_pshm_claim_t *c);
extern void gasneti_pshm_commit(const gasneti_pshm_claim_t *c, const gasneti_am_msg_t *m);
extern void *gasneti_lanes_claim(const gasneti_am_msg_t *m, int32_t nbrhd_idx, gasneti_pshm_claim_t *c);
extern void gasneti_lanes_commit(const gasneti_pshm_claim_t *c, const gasneti_am_msg_t *m);
/* publish m in the slot claimed by c, a lane's or the shared queue's */
static inline void gasneti_claim_commit(const gasneti_pshm_claim_t *c, const gasneti_am_msg_t *m) {
    if (c->where == GASNETI_CLAIM_LANE)
        gasneti_lanes_commit(c, m);
    else
        gasneti_pshm_commit(c, m);
}
extern int gasneti_am_commit_claimed(gex_TM_t tm, gex_Rank_t rank, gasneti_am_msg_t *m, const gasneti_pshm_claim_t *c);
extern size_t gasneti_pshm_max_medium;
/* Each process's collectives area, in the shared control region every neighbor maps
 * (zero-filled at start; gasnete_coll.c owns its layout), of gasneti_pshm_coll_bytes
 * (the same in every neighbor): NULL for a jobrank that is not a neighbor. */
extern size_t gasneti_pshm_coll_bytes;
extern int gasneti_pshm_oversubscribed; /* more neighbors than this host has CPUs */
extern uint8_t *gasneti_pshm_coll_area(gex_Rank_t jobrank);
/* A same-host Long: the sender copies the payload straight into the target endpoint's
 * segment, which every neighbor maps (at _pshm_delta from the target's own address),
 * unless the client gave the memory (gex_Segment_Create): not reachable that way. */
extern void gasneti_pshm_unmapped_long(const gasneti_am_msg_t *m) GASNETI_COLD GASNETI_NORETURN;
GASNETI_ALWAYS_INLINE void gasneti_pshm_copy_long(const gasneti_am_msg_t *m) {
    if (!m->nbytes) return;
    intptr_t d = gasneti_peerseg_of(m->jobrank, m->dst_ep)->_pshm_delta;
    if (GASNETI_UNLIKELY(d == GASNETI_NOT_NBR)) gasneti_pshm_unmapped_long(m);
    memcpy((void *)((uintptr_t)m->dest_addr + d), m->src, m->nbytes);
}
/* lanes (gasneti_pshm_lanes.c): the per-pair fast path, on when gasneti_lanes_on */
extern int gasneti_lanes_on;
extern size_t gasneti_lanes_bytes(gex_Rank_t nbrhd_size, uint64_t lane_depth);
extern void gasneti_lanes_init(uint8_t *base, uint64_t lane_depth);
extern int gasneti_lanes_request(const gasneti_am_msg_t *m, int32_t nbrhd_idx);
extern void gasneti_lanes_reply(struct gasneti_lane_reply_s *r, const gasneti_am_msg_t *m);
extern int gasneti_lanes_poll(int replies_only);
extern int gasneti_lanes_have_room(int32_t nbrhd_idx);
/* shared-memory objects: create (owner) or map (peer) a named object of `size` bytes */
extern void *gasneti_shm_create(const char *tag, size_t size);
extern void *gasneti_shm_attach(const char *tag, size_t size);
extern void gasneti_shm_unlink(const char *tag);
extern void gasneti_shm_cleanup_job(const char *jobid);
extern uint64_t gasneti_shm_space_available(void);
/* free shared memory less what this host's AM queues may come to fill */
extern uint64_t gasneti_shm_space_for_segments(void);
extern const char *gasneti_shm_dir_name(void);

/* ---- segments (gasneti_segment.c) ---- */
extern int gasneti_parse_segsize(const char *str, uint64_t physmem, unsigned procs_per_host, uint64_t *out);
extern void gasneti_segment_limits_init(void);
extern uint64_t gasneti_physmem(void);

/* ---- progress and exit ---- */
extern unsigned gasneti_idle_polls_before_yield;
extern int gasneti_poll_replies(void); /* replies only: safe while sending a reply */
/* A poll found n things to do: none, a spin hint, and after a run of empty polls the
 * CPU given up (gasneti_AMPoll's policy, for a conduit's own waiting loops) */
extern void gasneti_poll_backoff(int n);
/* Waiting for room to send a message (is_req: a request), gasneti_am.c */
extern void gasneti_wait_for_room(int is_req);
/* the same, naming the destination in the state dump (gasneti_watchdog.c) */
extern void gasneti_wait_for_room_to(gex_Rank_t jobrank, int is_req);
extern void gasneti_exit_init(void);
extern void gasneti_maybe_backtrace(void); /* GASNET_BACKTRACE=1: print a backtrace to stderr */
extern int gasneti_backtrace_addr2line(int fd); /* gasnett_tools.c: this thread's frames named by addr2line */
extern int gasneti_tools_backtrace_ifenabled(int fd); /* gasnett_tools.c: the tools' default of gasnett_print_backtrace_ifenabled */
/* Leave now with `code`, ending the rest of the job (fatal errors, launch errors). */
extern void gasneti_exit_now(int code) GASNETI_NORETURN;
/* Called from a loop that waits for primordial barrier number `seq` (0-based) to
 * complete: if another rank has begun a normal exit (gasnet_exit, a return from main)
 * having started only `seq` barriers or fewer, it never enters this one, which can then
 * never complete: this rank joins that exit with its code (does not return). A rank that
 * did enter it (it left the barrier and then exited) is waited for as before. Looks at
 * the bootstrap every 64th call. */
extern void gasneti_join_peer_exit(uint32_t seq);
extern volatile int gasneti_exiting;
/* 1 once a normal exit (gasnet_exit, a return from main) has run past GASNET_EXITTIMEOUT:
 * what the exit waits for (a flush: conduit_contract.h) gives up then */
extern int gasneti_exit_overdue(void);
/* nonzero while an operation of the layer above needs its progress function polled
 * (gasneti_layer->progress); that layer increments and decrements it atomically */
extern int gasneti_progress_needed;

/* ---- errors and environment ---- */
extern void gasneti_fatalerror(const char *fmt, ...) GASNETI_FORMAT_PRINTF(1, 2) GASNETI_NORETURN GASNETI_COLD;
extern void gasneti_launch_error(const char *fmt, ...) GASNETI_FORMAT_PRINTF(1, 2) GASNETI_NORETURN GASNETI_COLD;
extern void gasneti_host_launch_error(const char *fmt, ...) GASNETI_FORMAT_PRINTF(1, 2) GASNETI_NORETURN GASNETI_COLD;
/* The other ranks of that host: leave once the reporting rank has had time to print
 * (it ends the job; leaving first could tear it down before its message is out). */
extern void gasneti_host_launch_error_others(void) GASNETI_NORETURN GASNETI_COLD;
extern void gasneti_warning(const char *fmt, ...) GASNETI_FORMAT_PRINTF(1, 2);
/* A non-fatal error return of a public call: says on stderr what `call` refused and why,
 * unless the client turned that off (gex_System_SetVerboseErrors(0)); returns code. */
extern int gasneti_error_return(int code, const char *call, const char *fmt, ...) GASNETI_FORMAT_PRINTF(3, 4);
extern const char *gasneti_getenv(const char *name);
extern int64_t gasneti_getenv_int(const char *name, int64_t dflt);
extern gex_Rank_t *gasneti_rank_host, *gasneti_rank_nbrhd; /* [gasneti_nodes]: host and neighborhood index */
extern const char *gasneti_host_name(gex_Rank_t r); /* the host r runs on (gasneti_client.c); "?" if unknown */
#if GASNETI_TRACE || GASNETI_STATS
extern void gasneti_trace_init(void); /* gasneti_trace.c: once the rank is known */
extern void gasneti_trace_fini(void); /* at exit: statistics written, files closed */
#else
#  define gasneti_trace_init() ((void)0)
#  define gasneti_trace_fini() ((void)0)
#endif
extern const char *gasneti_getenv_dflt(const char *name, const char *dflt_text); /* NULL if unset */
extern int gasneti_getenv_yesno(const char *name, int dflt);
extern void gasneti_sleep_ns(long ns);

#if GASNETI_DEBUG
#  define gasneti_assert(x) \
      ((x) ? (void)0 : gasneti_fatalerror("assertion failure at %s:%d: %s", __FILE__, __LINE__, #x))
#else
#  define gasneti_assert(x) ((void)0)
#endif

/* ---- handler context (tracked in every build; checked in debug builds) ---- */
#if GASNETI_THREADS
#  define GASNETI_THREADLOCAL __thread
#else
#  define GASNETI_THREADLOCAL
#endif
extern GASNETI_THREADLOCAL gex_Token_t gasneti_cur_token; /* non-NULL while in a handler */
#if GASNETI_DEBUG
extern GASNETI_THREADLOCAL int gasneti_hsls_held;
/* the gex_AM_Prepare* call whose Commit is pending on this thread, or NULL */
extern GASNETI_THREADLOCAL const char *gasneti_prepare_pending;
/* the token may send a reply now (gasneti_am.c) */
extern void gasneti_check_reply_token(gex_Token_t token, const char *call);
/* Segment-disposition flags of one call (gasneti_segment.c), with the addresses as the
 * client passed them and the bound segments of the local and the peer endpoint
 * client passed them (a *_SEG_OFFSET argument still an offset): at most one SELF and one
 * PEER flag; SOME/BOUND/OFFSET ranges inside the segment (we have one per process); BOUND
 * or OFFSET needs a bound segment. The peer range must be in the peer's segment whatever
 * the flag (PEER_SEG_BOUND is the default). peer_allowed 0 (an AM Medium, say): any PEER
 * flag is an error and peer_addr is not looked at. Zero lengths skip the range checks. */
extern void gasneti_check_seg_flags(const gasneti_peerseg_t *self_seg, const gasneti_peerseg_t *peer_seg,
                                    gex_Rank_t jobrank, gex_Flags_t flags, const void *self_addr, size_t self_len,
                                    const void *peer_addr, size_t peer_len, int peer_allowed, const char *call);
#  define GASNETI_CHECK_NOT_IN_HANDLER(call)                                                                  \
      do {                                                                                                    \
          if (gasneti_cur_token)                                                                              \
              gasneti_fatalerror("%s called from an AM handler, where the spec forbids it", call);           \
          if (gasneti_hsls_held)                                                                              \
              gasneti_fatalerror("%s called while holding a handler-safe lock, where the spec forbids it", call); \
          if (gasneti_prepare_pending)                                                                        \
              gasneti_fatalerror("%s called between %s and its Commit, where the spec forbids it", call,      \
                                 gasneti_prepare_pending);                                                    \
      } while (0)
#else
#  define GASNETI_CHECK_NOT_IN_HANDLER(call) ((void)0)
#endif
#include "gasneti_watchdog.h" /* GASNETI_WAITING, the state dump and the watchdog */

#define GASNETI_CHECK_INIT(call) \
    do { if (GASNETI_UNLIKELY(!gasneti_init_done)) gasneti_fatalerror("%s called before gex_Client_Init", call); } while (0)

#endif
