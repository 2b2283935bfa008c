/* ibv_internal.h: what the parts of ibv-conduit share. Layer: ibv-conduit, internal.
 *   ibv_init.c     the device and port (GASNET_IBV_PORTS, hwloc's nearest, the GID of RoCE),
 *                  protection domain, completion queue, shared receive queue, the
 *                  device's asynchronous events; the memory-lock limit; shut-down; the
 *                  error reporters.
 *   ibv_connect.c  RC queue pairs, one per peer: created and connected at start-up over
 *                  the bootstrap's exchange, or on first contact over its messages (lazy).
 *   ibv_am.c       Active Messages: SENDs into the shared receive queue, credits, Longs
 *                  written then announced, Prepare/Commit in send slots; the poll of the
 *                  completion queue.
 *   ibv_bigmed.c   big Mediums: the payload lent by the sender, read by the receiver.
 *   ibv_rma.c      segments registered and their keys; RDMA WRITE/READ, through bounce
 *                  buffers for local memory outside them; 64-bit HCA atomics.
 *   other/gasneti_spawn_*.c  job start (gasnetrun_ibv), bootstrap collectives, exit.
 * Every verbs call after start-up that posts or polls is made holding gasnetc_ibv_lock
 * (PAR and PARSYNC); handlers run without it. */
#ifndef IBV_INTERNAL_H
#define IBV_INTERNAL_H

#include <infiniband/verbs.h>

#include "gasneti_netkit.h"
#include "gasneti_spawn.h"

extern gasneti_netlock_t gasnetc_ibv_lock;
#define IBV_LOCK() gasneti_netlock(&gasnetc_ibv_lock)
#define IBV_UNLOCK() gasneti_netunlock(&gasnetc_ibv_lock)
#define IBV_TRYLOCK() gasneti_nettrylock(&gasnetc_ibv_lock)

/* ---- the port this process uses (ibv_init.c) ---- */
typedef struct {
    char dev[64];        /* the device's name ("mlx5_0", "rxe0") */
    uint8_t port;        /* its port number */
    int roce;            /* link layer Ethernet: addressed by GID */
    int gid_index;       /* the GID used (RoCE: always; InfiniBand: -1, by LID) */
    union ibv_gid gid;
    uint16_t lid;
    enum ibv_mtu mtu;    /* the port's active MTU */
    uint32_t max_msg;    /* the largest message (RDMA pieces) */
    int rd_atomic;       /* RDMA READs and atomics in flight per QP, each way */
    int atomics;         /* the HCA does 64-bit fetch-and-add and compare-and-swap */
    const char *how;     /* how it was chosen (GASNET_VERBOSEENV) */
    const char *gid_how; /* how the GID was chosen */
} gasnetc_ibv_port_t;
extern gasnetc_ibv_port_t gasnetc_ibv_port;
extern struct ibv_context *gasnetc_ibv_ctx;
extern struct ibv_pd *gasnetc_ibv_pd;
extern struct ibv_cq *gasnetc_ibv_cq; /* sends and receives of every QP */
extern struct ibv_srq *gasnetc_ibv_srq;
extern int gasnetc_ibv_up;      /* the network is up (some peer is not a neighbor) */
/* receive buffers in the shared receive queue: at most (the SRQ's max_wr), posted at
 * start-up (ibv_am.c grows them under load, by chunks of registered buffers) */
extern int gasnetc_ibv_srq_depth, gasnetc_ibv_srq_start;
/* the SRQ was made for gasnetc_ibv_srq_start work requests and ibv_am.c resizes it as the
 * buffers grow (IBV_DEVICE_SRQ_RESIZE); 0: made for gasnetc_ibv_srq_depth */
extern int gasnetc_ibv_srq_resize;
#define GASNETC_IBV_RB_START 128
/* lock held: the device's asynchronous events, read without waiting; returns how many
 * said the SRQ's limit was reached (the others are kept for gasnetc_ibv_wc_fail) */
extern int gasnetc_ibv_async_poll(void);
extern int gasnetc_ibv_verbose; /* GASNET_VERBOSEENV, rank 0: what the conduit did, on stderr */

/* ---- errors (ibv_init.c) ----
 * a verbs call failed with errno-style err (peer GEX_RANK_INVALID: none): the job ends */
extern void gasnetc_ibv_fail(const char *call, int err, gex_Rank_t peer) GASNETI_COLD GASNETI_NORETURN;
/* a completion that is not a success: its status's own words (ibv_wc_status_str), the
 * operation and the peer; ends the job, except while the job is exiting (a peer that has
 * left: nothing to report) */
extern void gasnetc_ibv_wc_fail(const struct ibv_wc *wc, const char *what, gex_Rank_t peer) GASNETI_COLD;
/* a queue pair of `type` on the CQ, receiving from srq: sq_depth send requests of one
 * gather entry, inline data up to want_inline bytes, or none where the device refuses
 * that (*got_inline: what it gave); fails naming `what` (and peer) */
extern struct ibv_qp *gasnetc_ibv_make_qp(enum ibv_qp_type type, struct ibv_srq *srq, uint32_t sq_depth,
                                          uint32_t want_inline, uint32_t *got_inline, const char *what,
                                          gex_Rank_t peer);
/* ibv_reg_mr for [buf, buf+len) with access; on failure, the job ends with a message
 * naming what and, for ENOMEM/EPERM/EAGAIN, the memory-lock limit to raise */
extern struct ibv_mr *gasnetc_ibv_reg(void *buf, size_t len, int access, const char *what);
/* the same, NULL and errno on failure */
extern struct ibv_mr *gasnetc_ibv_try_reg(void *buf, size_t len, int access);
/* Receive buffers made in registered chunks (the SRQ's, ibv_am.c; the UD queue pair's,
 * ibv_ud.c): buffer i is chunk[i / per]'s (i % per)th, stride bytes apart. Post
 * list[0..*n) (emptied from its end) in batches of 32, each from off bytes into its
 * buffer, len bytes, work request id (i << 4) | tag, to srq or (srq NULL) to qp; what
 * fails ends the job naming it. Returns how many were posted. */
typedef struct {
    uint8_t *buf;
    struct ibv_mr *mr;
} gasnetc_ibv_chunk_t;
extern int gasnetc_ibv_post_recvs(int *list, int *n, const gasnetc_ibv_chunk_t *chunk, int per, size_t stride,
                                  size_t off, uint32_t len, unsigned tag, struct ibv_srq *srq, struct ibv_qp *qp,
                                  const char *what);

/* ---- queue pairs (ibv_connect.c) ---- */
enum { GASNETC_IBV_NONE = 0, GASNETC_IBV_CONNECTING = 1, GASNETC_IBV_UP = 2 };
typedef struct {
    struct ibv_qp *qp;
    int state;  /* GASNETC_IBV_*: read without the lock (acquire) */
    int sq_out; /* send work requests posted and not completed (lock held) */
    uint8_t tx_seq, rx_seq; /* the next SEND's number to and from the peer (lock held; ibv_am.c) */
    uint8_t rma_by_am;      /* RMA operations sent by AMs while no QP was up (ibv_rma.c) */
    uint8_t hs;             /* lazy handshake (lock held): our QP connected (1), the peer's (2) */
} gasnetc_ibv_peer_t;
extern gasnetc_ibv_peer_t *gasnetc_ibv_peers; /* [gasneti_nodes] */
extern int gasnetc_ibv_lazy;                  /* peers connected on first contact */
extern int gasnetc_ibv_qp_timeout, gasnetc_ibv_qp_retries; /* GASNET_QP_TIMEOUT, GASNET_QP_RETRY_COUNT */
extern uint32_t gasnetc_ibv_inline;           /* SENDs and WRITEs up to this many bytes inline */
#define GASNETC_IBV_SQ_DEPTH 63 /* send work requests per QP (2^k - 1: rxe rounds depth + 1 up to 2^k) */
extern int gasnetc_ibv_sq_total, gasnetc_ibv_sq_max; /* over every QP: the completion queue's share */
/* at network init: QPs for every peer, or (lazy) the table only */
extern void gasnetc_ibv_connect_init(gasneti_bootstrap_t *boot);
extern void gasnetc_ibv_connect_fini(void);
/* Peer r's QP is connected, or this waits (polling) until it is; with
 * GEX_FLAG_IMMEDIATE in flags it starts the connection and returns 1 instead. */
extern int gasnetc_ibv_connect_slow(gex_Rank_t r, gex_Flags_t flags) GASNETI_COLD;
GASNETI_ALWAYS_INLINE int gasnetc_ibv_connected(gex_Rank_t r, gex_Flags_t flags) {
    if (GASNETI_LIKELY(__atomic_load_n(&gasnetc_ibv_peers[r].state, __ATOMIC_ACQUIRE) == GASNETC_IBV_UP)) return 0;
    return gasnetc_ibv_connect_slow(r, flags);
}
/* QPs made for peers other than this process (GASNET_VERBOSEENV; racy) */
extern int gasnetc_ibv_qps_made(void);
/* peer r's QP is up (racy: acquire) */
GASNETI_ALWAYS_INLINE int gasnetc_ibv_rc_up(gex_Rank_t r) {
    return __atomic_load_n(&gasnetc_ibv_peers[r].state, __ATOMIC_ACQUIRE) == GASNETC_IBV_UP;
}
/* from the poll, lazy mode: connection messages that arrived (lock not held) */
extern void gasnetc_ibv_connect_poll(void);
/* lock held: room for n more send work requests to r */
GASNETI_ALWAYS_INLINE int gasnetc_ibv_sq_room(gex_Rank_t r, int n) {
    return gasnetc_ibv_peers[r].sq_out + n <= GASNETC_IBV_SQ_DEPTH && gasnetc_ibv_sq_total + n <= gasnetc_ibv_sq_max;
}
/* lock held: post the chain wr of n work requests to r, each signalled (room checked by
 * the caller); a refusal ends the job naming what */
extern void gasnetc_ibv_post(gex_Rank_t r, struct ibv_send_wr *wr, int n, const char *what);

/* ---- work request ids: the kind in the low 4 bits ---- */
enum {
    GASNETC_WR_OP = 0,     /* a gasnetc_ibv_op_t (16-byte aligned pointer) */
    GASNETC_WR_INLINE = 1, /* an AM sent inline: the peer << 4 */
    GASNETC_WR_SLOT = 2,   /* an AM sent from a send slot: the slot << 4 */
    GASNETC_WR_RECV = 3,   /* a receive buffer: its index << 4 */
    GASNETC_WR_BIGMED = 4, /* the RDMA READ of a big Medium's payload: its read buffer << 4 */
    GASNETC_WR_UDSEND = 5, /* a datagram: its send slot << 4 (GASNETC_IBV_MAXSEND: a control one) */
    GASNETC_WR_UDRECV = 6  /* a UD receive buffer: its index << 4 */
};
#define GASNETC_WR_KIND(id) ((unsigned)(id)&15u)
#define GASNETC_WR_VAL(id) ((uint64_t)(id) >> 4)

/* ---- RDMA operations (ibv_rma.c) ---- */
enum { GASNETC_OP_RMA, GASNETC_OP_AMO };
typedef struct gasnetc_ibv_op_s {
    uint64_t result; /* first: an atomic's fetched value (ops live in registered memory) */
    struct gasnetc_ibv_op_s *next;
    gasneti_counter_t *lc, *rc; /* done at completion (either may be NULL) */
    void *copy_to;              /* at completion: copy_len bytes from copy_from to here */
    const void *copy_from;
    size_t copy_len;
    int bounce;  /* a bounce buffer to free at completion, or -1 */
    gex_Rank_t peer;
    uint32_t lkey; /* of the op's own memory (result) */
    uint8_t kind;
} gasnetc_ibv_op_t;
extern void gasnetc_ibv_rma_init(void);
/* collective, at network init once every QP is connected (ibv_rma.c): does every rank's
 * HCA do atomics in this host's byte order? If not, atomics go by CPU and AMs and
 * gasnetc_ibv_atomics_off says why */
extern void gasnetc_ibv_atomics_probe(gasneti_bootstrap_t *boot);
extern const char *gasnetc_ibv_atomics_off;
extern void gasnetc_ibv_rma_fini(void);
/* lock held: a free op, counters and copy cleared (made on demand, in registered chunks) */
extern gasnetc_ibv_op_t *gasnetc_ibv_op_get(gex_Rank_t peer, uint8_t kind);
extern void gasnetc_ibv_op_put(gasnetc_ibv_op_t *o);
/* lock held: op o completed: copies, counters, bounce buffer, then the op is freed */
extern void gasnetc_ibv_op_done(gasnetc_ibv_op_t *o);
/* the bounce buffers of RMA and Longs: 64 KiB each, registered for local writes */
#define GASNETC_IBV_BOUNCE 65536
extern gasneti_slots_t gasnetc_ibv_bounce;
GASNETI_ALWAYS_INLINE struct ibv_mr *gasnetc_ibv_bounce_mr(int i) { return (struct ibv_mr *)gasnetc_ibv_bounce.slot[i].reg; }
/* lock held: a bounce buffer's index with its buffer made, or -1 */
extern int gasnetc_ibv_bounce_get(void);
/* lock held: the lkey of registered local memory holding [p, p+n) (one of this process's
 * segments), or 0 with *ok 0 */
extern uint32_t gasnetc_ibv_local_key(const void *p, size_t n, int *ok);
/* a peer segment's key, unpacked (gasnetc_segkey_unpack): the core's _rkey */
typedef struct {
    uint64_t base, size; /* in the owner's address space */
    uint32_t rkey;
    gex_EP_Index_t ep;
} gasnetc_ibv_rkey_t;
/* a Long's payload by RDMA WRITE (ibv_am.c): 1 if m goes so (its target segment has a key
 * and holds the destination) */
extern int gasnetc_ibv_long_by_write(const gasneti_am_msg_t *m);

/* ---- datagrams (ibv_ud.c): AMs to peers without an RC QP; lock held unless said ----
 * A datagram in a send slot: the AM (the prefix below, then the toolkit's layout) at
 * GASNETC_IBV_UD_OFF, the UD header 8 bytes before it (receive buffers: ibv_ud.c). */
#define GASNETC_IBV_MAXSEND 256 /* send slots (ibv_am.c) */
#define GASNETC_IBV_UD_OFF 16
extern int gasnetc_ibv_ud_on;          /* GASNET_IBV_UD (and every rank made its UD QP) */
extern uint32_t gasnetc_ibv_ud_max;    /* a datagram's bytes at most, header included (the MTU) */
extern void gasnetc_ibv_ud_init(gasneti_bootstrap_t *boot); /* collective, lock not held */
extern int gasnetc_ibv_ud_cq_share(void);   /* completions of the UD QP at most */
extern void gasnetc_ibv_ud_fini(void);  /* the QP and address handles */
extern void gasnetc_ibv_ud_free(void);  /* the receive buffers' registrations */
extern void gasnetc_ibv_ud_say(int slots); /* (slots: the datagrams' send slots made) */
/* room for one more datagram to r (the peer's window, the send queue); _peek racy */
extern int gasnetc_ibv_ud_room(gex_Rank_t r);
extern int gasnetc_ibv_ud_peek(gex_Rank_t r);
/* send the AM of len bytes at GASNETC_IBV_UD_OFF in send slot `slot` to r; the slot is released once r acknowledged it. Returns the datagrams sent to r. */
extern uint32_t gasnetc_ibv_ud_send(gex_Rank_t r, int slot, uint32_t len);
extern void gasnetc_ibv_ud_send_done(const struct ibv_wc *wc);
/* a receive completion: the AM it carries (*len bytes, the prefix first) to deliver, its
 * buffer *idx given back with gasnetc_ibv_ud_repost; NULL if nothing is to be delivered
 * (an acknowledgement, a repeat, a gap: the buffer is reposted already) */
extern uint8_t *gasnetc_ibv_ud_recv(const struct ibv_wc *wc, size_t *len, int *idx);
extern void gasnetc_ibv_ud_repost(int idx);
/* from the poll: buffers posted again or grown, ACKs due, resends due */
extern void gasnetc_ibv_ud_progress(void);
/* send slots (ibv_am.c): released, buffer, key */
extern void gasnetc_ibv_slot_release(int slot);
extern uint8_t *gasnetc_ibv_slot_buf(int slot);
extern uint32_t gasnetc_ibv_slot_lkey(int slot);

/* ---- ibv_am.c ---- */
/* An AM's prefix: the sender's rank, the kind, the SEND's number on its QP (modulo 256:
 * catches a verbs stack that delivers one twice or loses one), and for a release or a big
 * Medium's header the sender's lent buffer (ibv_bigmed.c). The toolkit's layout follows. */
typedef struct {
    uint32_t src;  /* the sender's rank */
    uint8_t kind;  /* GASNETC_IBV_K_* */
    uint8_t seq;   /* the SEND's number on its QP, modulo 256 */
    uint16_t lent; /* GASNETC_IBV_K_RELEASE, or a big Medium's header: the sender's lent buffer */
} gasnetc_ibv_pre_t;
enum { GASNETC_IBV_K_REQ = 1, GASNETC_IBV_K_REP = 2, GASNETC_IBV_K_RELEASE = 3 };
#define GASNETC_IBV_PRE sizeof(gasnetc_ibv_pre_t)
#define GASNETC_IBV_HDR_MAX 128 /* a message without payload */
/* lock held: a small message (a release) to r, inline (or from a send slot on a device
 * without inline data); 0 if there is no room now */
extern int gasnetc_ibv_post_small(gex_Rank_t r, void *msg, uint32_t len, const char *what);
extern void gasnetc_ibv_am_init(void);
extern int gasnetc_ibv_am_fini(void); /* sends drained; 0: another thread holds the lock, nothing done */
extern void gasnetc_ibv_am_free(void); /* the buffers' registrations (QPs and SRQ gone) */
extern void gasnetc_ibv_am_say(void);
extern void gasnetc_ibv_rma_say(void);

/* ---- big Mediums (ibv_bigmed.c); lock held unless said ----
 * Sending: a buffer lent to the receiver, registered for its RDMA READ */
typedef struct {
    int i;         /* its index (in the header's prefix, and in the release) */
    void *buf;     /* where the payload goes (GASNETC_MAX_MEDIUM bytes) */
    uint64_t addr; /* what the receiver reads: address and rkey */
    uint32_t rkey;
} gasnetc_ibv_lent_t;
extern int gasnetc_ibv_bigmed_room(void);  /* a buffer to lend now */
extern int gasnetc_ibv_bigmed_peek(void);  /* the same, racy, without the lock */
extern void gasnetc_ibv_bigmed_lend(gex_Rank_t r, gasnetc_ibv_lent_t *l); /* after _room */
extern void gasnetc_ibv_bigmed_unlend(int i); /* never sent (a Prepare cancelled) */
/* r released lent buffer i (its payload was read) */
extern void gasnetc_ibv_bigmed_released(gex_Rank_t r, unsigned i);
/* Receiving: a big Medium's header arrived (msg, len bytes, checked) */
extern void gasnetc_ibv_bigmed_arrived(const uint8_t *msg, size_t len, gex_Rank_t src, int is_req);
/* the peer read buffer b reads from (a GASNETC_WR_BIGMED completion), and its completion */
extern gex_Rank_t gasnetc_ibv_bigmed_reader(unsigned b);
extern void gasnetc_ibv_bigmed_read_done(unsigned b, int ok);
/* non-zero while reads or releases wait for room, or payloads read wait for their handler */
extern int gasnetc_ibv_bigmed_work;
extern void gasnetc_ibv_bigmed_retry(void);   /* from the poll: what waited for room */
extern void *gasnetc_ibv_bigmed_take(void);   /* from the poll: the payloads read */
extern int gasnetc_ibv_bigmed_run(void *taken, int nested); /* lock not held: their handlers */
extern void gasnetc_ibv_bigmed_init(void);
extern void gasnetc_ibv_bigmed_free(void);
extern void gasnetc_ibv_bigmed_say(void);

/* [p, p+n) lies within [base, base+size) (no overflow) */
static inline int gasnetc_ibv_in_range(uint64_t base, uint64_t size, const void *p, size_t n) {
    uint64_t b = (uint64_t)(uintptr_t)p;
    return b >= base && b - base <= size && n <= size - (b - base);
}

#endif
