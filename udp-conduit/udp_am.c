/* udp_am.c: Active Messages to non-neighbors over UDP datagrams, made reliable here.
 * Layer: udp-conduit (the network half of conduit_contract.h; job start is the shared spawner in other/).
 *
 * One datagram socket per process; each AM is one datagram (the core splits bigger ones,
 * gasneti_frag.c). Per peer there are two channels, requests and replies, each with its
 * own sequence numbers, a window of at most WIN datagrams (and a byte budget) in
 * flight, and acknowledgements. Two, so that a reply can always go out: while a thread
 * waits for room to send a reply (or runs inside a handler), it accepts and acknowledges
 * everything but runs only reply handlers; arrived requests are kept and run at the next
 * top-level poll. Replies therefore always drain, and no two ranks can wait on each other.
 *
 * Acknowledgements: every datagram to a peer carries, for both channels, the cumulative
 * sequence number expected next and a 64-bit map of the datagrams received beyond it.
 * A standalone ack goes out when one has been owed for ACK_DELAY, when ACK_EVERY datagrams
 * wait for one, or at once for a duplicate (its sender missed our ack).
 * Retransmission: each datagram has a deadline, now + RTO; the RTO follows the measured
 * round-trip time (smoothed mean + 4 deviations, samples only from datagrams sent once)
 * and doubles per retry. A datagram the peer's selective ack shows to be missing behind
 * FAST_AFTER later ones is resent at once. A peer that acknowledges nothing for
 * GASNET_REQUESTTIMEOUT_MAX seconds is reported dead, by rank and host, on the rank that
 * saw it.
 * Exactly once: the receiver keeps, per channel, the next expected number and the map of
 * those received beyond it; a datagram seen before is acknowledged again and dropped.
 * Order between AMs is not kept (the spec does not promise it).
 * Security: every datagram carries the job key (other/gasneti_spawn_rank.c gets it from the launcher).
 * One without it, or malformed (short, bad header, lengths that do not add up, a Long
 * outside this rank's segment), is dropped and counted; the counts are printed at exit
 * with GASNET_VERBOSEENV=1, and a warning names the first.  An AM with the key to a
 * handler this rank never registered is the sender's mistake, not stray traffic: it is
 * delivered, and the core's dispatch ends the job naming the sender and the index (as on
 * every conduit: the GASNet-1 spec makes it fatal), instead of a drop that left the
 * sender waiting forever for a reply.
 *
 * PAR: one mutex guards the protocol state; receiving (the system call) and running
 * handlers happen outside it, so several threads poll at once. */
#include "gasneti_netkit.h"
#include "udp_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WIN 64         /* datagrams in flight per peer and channel (the ack map covers WIN) */
#define ACK_EVERY 16   /* a standalone ack once this many datagrams wait for one */
#define FAST_AFTER 3   /* resend a datagram the peer shows missing behind this many later ones */
enum { CH_REQ = 0, CH_REP = 1 };
enum { PK_DATA = 1, PK_ACK = 2 };

/* Every datagram starts with this; an acknowledgement is this alone, a data datagram
 * goes on with the AM in the toolkit's layout (gasneti_wire.h: hdr_t is its prefix) */
typedef struct {
    uint64_t key;
    uint32_t src;
    uint8_t kind, chan;
    uint16_t unused;
    uint32_t seq;
    uint32_t ack[2];  /* per channel of the sender-from-us direction: next seq expected */
    uint32_t unused2;
    uint64_t sack[2]; /* bit i: seq ack+1+i received */
} hdr_t;
_Static_assert(sizeof(hdr_t) == 48, "hdr_t layout");
#define PRE sizeof(hdr_t)
#define MAX_DGRAM GASNETI_WIRE_MAX(PRE, GASNETC_NET_MEDIUM)
_Static_assert(GASNETC_NET_MEDIUM == GASNETC_NET_LONG, "one datagram size");
_Static_assert(MAX_DGRAM <= 65507, "a datagram carries at most 65507 bytes");
#define RBUF_BYTES 65536

typedef struct {
    uint8_t *buf;
    uint32_t len, cap;
    uint64_t first_sent, sent_at, deadline; /* ns */
    uint8_t acked, retx, fast;
} slot_t;
/* The slots of a channel with datagrams in flight: taken from a free list when the
 * channel sends with none in flight, given back when its last one is acknowledged, so
 * that a peer with nothing in flight costs no window (per-peer state stays small,
 * issue 43) and the windows made grow with the traffic, not with the job. A window
 * starts with WIN_START slots and doubles, up to WIN, when the channel has more in
 * flight (win_grow); datagram `seq` is in slot seq % cap. */
#define WIN_START 4
typedef struct win_s {
    uint32_t cap;
    struct win_s *next_free;
    slot_t slot[];
} win_t;
typedef struct {
    uint32_t base, next; /* [base, next): sent, some not yet acknowledged */
    size_t inflight;     /* bytes of the unacknowledged ones */
    win_t *w;            /* while base != next */
} tx_t;
typedef struct {
    uint32_t expect; /* every seq before it has arrived */
    uint64_t bits;   /* bit i: expect+1+i has arrived */
} rx_t;
typedef union { /* a peer's address: IPv4 or IPv6 (network_init refuses others) */
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
} addr_t;
typedef struct {
    addr_t addr;
    socklen_t addrlen;
    tx_t tx[2];
    rx_t rx[2];
    double srtt, rttvar; /* ns */
    uint64_t rto;        /* ns */
    int owed;            /* an ack is owed */
    int listed;          /* in owed_list (possibly no longer owed: a datagram carried it) */
    unsigned owed_n;     /* datagrams waiting for it */
    uint64_t owed_since; /* 0: send at once */
} peer_t;

/* what each rank publishes in network_init */
typedef struct {
    struct sockaddr_storage addr;
    uint32_t addrlen;
} endpoint_t;

_Static_assert(sizeof(peer_t) <= 192, "per-peer state is multiplied by the job size");

static int sock = -1;
static peer_t *peers;
static win_t *free_wins;
static unsigned wins_made, wins_used, wins_most, wins_grown; /* made, in use now and at most, grown */
static gex_Rank_t *owed_list;
static size_t owed_count;
static uint64_t next_timer = UINT64_MAX; /* ns; read without the lock: atomically */
static size_t window_bytes;
/* ns; GASNET_UDP_RTO_MIN, GASNET_UDP_RTO_INIT and GASNET_REQUESTTIMEOUT_MAX set them */
static uint64_t rto_min = 5000000, rto_init = 20000000, rto_max = 1000000000, ack_delay = 200000;
static double give_up = 60.0; /* s */
static int verbose;
static struct {
    unsigned long sent, resent, fast, acks, dups, bad_key, bad_hdr, bad_len, eagain;
} counts;
static gasneti_netlock_t ulock = GASNETI_NETLOCK_INIT;
#define LOCK() gasneti_netlock(&ulock)
#define UNLOCK() gasneti_netunlock(&ulock)
static GASNETI_THREADLOCAL uint8_t *rbuf[2]; /* [nested]: a reply may be sent (and polled for) from a handler */

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define SET_NEXT_TIMER(t) __atomic_store_n(&next_timer, (t), __ATOMIC_RELAXED)

/* ---------------------------------------------------------------------------------
 * Sending (callers hold the lock)
 * --------------------------------------------------------------------------------- */
static void stamp_acks(peer_t *p, hdr_t *h) {
    for (int c = 0; c < 2; c++) {
        h->ack[c] = p->rx[c].expect;
        h->sack[c] = p->rx[c].bits;
    }
    p->owed = 0; /* piggy-backed; its entry in owed_list is skipped */
    p->owed_n = 0;
}

static void xmit(peer_t *p, const void *buf, size_t len) {
    for (;;) {
        ssize_t n = sendto(sock, buf, len, MSG_DONTWAIT, (const struct sockaddr *)&p->addr, p->addrlen);
        if (n >= 0) return;
        if (errno == EINTR) continue;
        /* the socket's send queue is full, or the route is briefly gone: treat the
         * datagram as lost; its retransmission timer sends it again */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS || errno == ECONNREFUSED) {
            counts.eagain++;
            return;
        }
        gasneti_peer_fail("sendto", strerror(errno), (gex_Rank_t)(p - peers));
    }
}

static void send_slot(peer_t *p, slot_t *s, uint64_t now) {
    stamp_acks(p, (hdr_t *)s->buf);
    s->sent_at = now;
    uint64_t rto = p->rto << (s->retx < 6 ? s->retx : 6);
    s->deadline = now + (rto < rto_max ? rto : rto_max);
    if (s->deadline < next_timer) SET_NEXT_TIMER(s->deadline);
    xmit(p, s->buf, s->len);
}

static void send_ack(peer_t *p) {
    hdr_t h;
    memset(&h, 0, sizeof(h));
    h.key = gasneti_spawn_key;
    h.src = gasneti_mynode;
    h.kind = PK_ACK;
    stamp_acks(p, &h);
    counts.acks++;
    xmit(p, &h, sizeof(h));
}

static void owe_ack(peer_t *p, uint64_t now, int at_once) {
    if (!p->owed) {
        p->owed = 1;
        p->owed_since = now;
    }
    if (!p->listed) {
        p->listed = 1;
        owed_list[owed_count] = (gex_Rank_t)(p - peers);
        __atomic_store_n(&owed_count, owed_count + 1, __ATOMIC_RELAXED);
    }
    p->owed_n++;
    if (at_once) p->owed_since = 0;
}

/* ---------------------------------------------------------------------------------
 * Acknowledgements received (lock held)
 * --------------------------------------------------------------------------------- */
static void rtt_sample(peer_t *p, double r /* ns */) {
    if (p->srtt == 0) {
        p->srtt = r;
        p->rttvar = r / 2;
    } else {
        double d = p->srtt > r ? p->srtt - r : r - p->srtt;
        p->rttvar = 0.75 * p->rttvar + 0.25 * d;
        p->srtt = 0.875 * p->srtt + 0.125 * r;
    }
    double rto = p->srtt + 4 * p->rttvar + (double)ack_delay;
    p->rto = rto < (double)rto_min ? rto_min : rto > (double)rto_max ? rto_max : (uint64_t)rto;
}

/* Big datagram buffers (more than SMALL_SLOT bytes, all RBUF_BYTES long) are shared by
 * every peer's slots through a pool of at most BIG_POOL, under the lock: a slot holds one
 * only while its datagram is unacknowledged. Kept for reuse because returning 64 KiB to
 * malloc on every ack made the heap shrink and grow again (a brk and page faults per
 * datagram); bounded so that memory does not grow with the number of peers. */
#define SMALL_SLOT 16384
#define BIG_POOL 32
static uint8_t *big_pool[BIG_POOL];
static int big_count;

static uint8_t *big_get(void) {
    if (big_count) return big_pool[--big_count];
    uint8_t *b = malloc(RBUF_BYTES);
    if (!b) gasneti_fatalerror("udp-conduit: out of memory for a %d-byte datagram", RBUF_BYTES);
    return b;
}

static void big_put(uint8_t *b) {
    if (big_count < BIG_POOL) big_pool[big_count++] = b;
    else free(b);
}

/* a window for t, which has none in flight (its slots keep their small buffers) */
static void win_take(tx_t *t) {
    win_t *w = free_wins;
    if (w) {
        free_wins = w->next_free;
    } else {
        w = calloc(1, sizeof(win_t) + WIN_START * sizeof(slot_t));
        if (!w) gasneti_fatalerror("udp-conduit: out of memory for a send window");
        w->cap = WIN_START;
        wins_made++;
    }
    t->w = w;
    if (++wins_used > wins_most) wins_most = wins_used;
}
/* t's window is full (cap in flight, cap < WIN): one twice as big, the slots in flight
 * moved to their places in it, the old one freed with its other buffers */
GASNETI_COLD static void win_grow(tx_t *t) {
    win_t *o = t->w;
    uint32_t cap = 2 * o->cap;
    win_t *w = calloc(1, sizeof(win_t) + cap * sizeof(slot_t));
    if (!w) gasneti_fatalerror("udp-conduit: out of memory for a send window");
    w->cap = cap;
    for (uint32_t q = t->base; q != t->next; q++) {
        w->slot[q % cap] = o->slot[q % o->cap];
        o->slot[q % o->cap].buf = NULL;
    }
    for (uint32_t i = 0; i < o->cap; i++) free(o->slot[i].buf);
    free(o);
    t->w = w;
    wins_grown++;
}
static void win_give(tx_t *t) {
    t->w->next_free = free_wins;
    free_wins = t->w;
    t->w = NULL;
    wins_used--;
}

static void mark_acked(peer_t *p, tx_t *t, uint32_t seq, uint64_t now) {
    slot_t *s = &t->w->slot[seq % t->w->cap];
    if (s->acked) return;
    s->acked = 1;
    t->inflight -= s->len;
    if (!s->retx) rtt_sample(p, (double)(now - s->sent_at));
    if (s->cap > SMALL_SLOT) { /* keep small buffers in the slot; big ones go to the pool */
        big_put(s->buf);
        s->buf = NULL;
        s->cap = 0;
    }
}

static void take_acks(peer_t *p, const hdr_t *h, uint64_t now) {
    for (int c = 0; c < 2; c++) {
        tx_t *t = &p->tx[c];
        uint32_t outstanding = t->next - t->base;
        if (!outstanding) continue;
        uint32_t cum = h->ack[c];
        if (cum - t->base > outstanding) continue; /* stale or bogus: before base or beyond next */
        for (uint32_t s = t->base; s != cum; s++) mark_acked(p, t, s, now);
        uint64_t bits = h->sack[c];
        unsigned later = 0;
        for (unsigned i = 0; bits && i < 64; i++, bits >>= 1) {
            if (!(bits & 1)) continue;
            uint32_t s = cum + 1 + i;
            if (s - t->base >= outstanding) break;
            mark_acked(p, t, s, now);
            later++;
        }
        while (t->base != t->next && t->w->slot[t->base % t->w->cap].acked) t->base++;
        /* the peer has FAST_AFTER datagrams beyond `cum` but not `cum` itself: resend it */
        if (later >= FAST_AFTER && cum != t->next) {
            slot_t *s = &t->w->slot[cum % t->w->cap];
            if (!s->acked && !s->fast) {
                s->fast = 1;
                s->retx++;
                counts.fast++;
                send_slot(p, s, now);
            }
        }
        if (t->base == t->next) win_give(t); /* nothing in flight */
    }
}

/* ---------------------------------------------------------------------------------
 * Timers: owed acks and retransmissions (lock held)
 * --------------------------------------------------------------------------------- */
GASNETI_COLD GASNETI_NORETURN static void peer_dead(peer_t *p, const slot_t *s, uint64_t now) {
    UNLOCK();
    gasneti_fatalerror("udp-conduit: rank %u on host %s has acknowledged nothing for %.1f s (%u retransmissions "
                       "of one datagram): it is unreachable, stopped or dead (limit: GASNET_REQUESTTIMEOUT_MAX=%g s)",
                       (unsigned)(p - peers), gasneti_host_name((gex_Rank_t)(p - peers)), (double)(now - s->first_sent) * 1e-9, (unsigned)s->retx, give_up);
}

static void timers(uint64_t now) {
    if (owed_count) {
        size_t keep = 0;
        for (size_t i = 0; i < owed_count; i++) {
            peer_t *p = &peers[owed_list[i]];
            if (p->owed && (p->owed_n >= ACK_EVERY || now - p->owed_since >= ack_delay)) send_ack(p);
            if (p->owed)
                owed_list[keep++] = owed_list[i];
            else
                p->listed = 0;
        }
        __atomic_store_n(&owed_count, keep, __ATOMIC_RELAXED);
    }
    if (now < next_timer) return;
    uint64_t next = UINT64_MAX;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        peer_t *p = &peers[r];
        for (int c = 0; c < 2; c++) {
            tx_t *t = &p->tx[c];
            for (uint32_t q = t->base; q != t->next; q++) {
                slot_t *s = &t->w->slot[q % t->w->cap];
                if (s->acked) continue;
                if (now >= s->deadline) {
                    if (give_up > 0 && (double)(now - s->first_sent) > give_up * 1e9) peer_dead(p, s, now);
                    if (s->retx < 255) s->retx++;
                    s->fast = 0;
                    counts.resent++;
                    send_slot(p, s, now);
                }
                if (s->deadline < next) next = s->deadline;
            }
        }
    }
    SET_NEXT_TIMER(next);
}

/* ---------------------------------------------------------------------------------
 * Receiving
 * --------------------------------------------------------------------------------- */
/* A data datagram `seq` on channel rx: 1 if new (now recorded), 0 if seen before, -1 if
 * beyond the window (impossible from a correct sender: dropped unacknowledged). */
static int rx_accept(rx_t *rx, uint32_t seq) {
    uint32_t d = seq - rx->expect;
    if (d >= 0x80000000u) return 0; /* before expect */
    if (d == 0) {
        rx->expect++;
        for (;;) { /* bit 0 is now `expect` itself */
            int got = (int)(rx->bits & 1);
            rx->bits >>= 1;
            if (!got) break;
            rx->expect++;
        }
        return 1;
    }
    if (d > 64) return -1;
    uint64_t bit = (uint64_t)1 << (d - 1);
    if (rx->bits & bit) return 0;
    rx->bits |= bit;
    return 1;
}

GASNETI_COLD static void dropped(unsigned long *counter, const char *what, gex_Rank_t src) {
    if (!(*counter)++)
        gasneti_warning("udp-conduit: dropped a datagram (%s, claimed sender %u); later ones are counted only "
                        "(GASNET_VERBOSEENV=1 prints the counts at exit)",
                        what, (unsigned)src);
}

/* One datagram in buf. Returns 1 if a handler ran. nested: only replies may run now. */
static int handle(uint8_t *buf, size_t len, int nested, uint64_t now) {
    const hdr_t *h = (const hdr_t *)buf;
    if (len < sizeof(hdr_t)) {
        dropped(&counts.bad_hdr, "shorter than a header", GEX_RANK_INVALID);
        return 0;
    }
    if (h->key != gasneti_spawn_key) {
        dropped(&counts.bad_key, "without this job's key", h->src);
        return 0;
    }
    if (h->src >= gasneti_nodes || h->src == gasneti_mynode || gasneti_nbrhd_index[h->src] >= 0 ||
        (h->kind != PK_DATA && h->kind != PK_ACK)) {
        dropped(&counts.bad_hdr, "bad header", h->src);
        return 0;
    }
    peer_t *p = &peers[h->src];
    const char *bad = h->kind != PK_DATA ? NULL : h->chan > CH_REP ? "bad header" : gasneti_wire_check(buf, PRE, len, 1);
    int fresh = 0;
    LOCK();
    take_acks(p, h, now);
    if (h->kind == PK_DATA && h->chan <= CH_REP) {
        int r = rx_accept(&p->rx[h->chan], h->seq);
        if (r >= 0) owe_ack(p, now, r == 0);
        if (r == 0) counts.dups++;
        fresh = r == 1;
    }
    UNLOCK();
    if (!fresh) return 0;
    if (bad) { /* acknowledged (so not sent again), never delivered */
        dropped(&counts.bad_len, bad, h->src);
        return 0;
    }
    if (gasneti_defer_if(nested, h->chan == CH_REQ, h->src, buf, len)) return 0; /* for the next top-level poll */
    gasneti_wire_deliver(buf, PRE, len, h->src, h->chan == CH_REQ);
    return 1;
}

static uint8_t *recv_buffer(int nested) {
    if (!rbuf[nested]) rbuf[nested] = gasneti_net_malloc(RBUF_BYTES, "a receive buffer");
    return rbuf[nested];
}

static int udp_poll(int nested) {
    if (sock < 0) return 0;
    uint8_t *buf = recv_buffer(nested);
    int n = 0;
    uint64_t now = 0;
    for (int i = 0; i < 32; i++) {
        ssize_t len = recv(sock, buf, RBUF_BYTES, MSG_DONTWAIT);
        if (len < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED)
                gasneti_peer_fail("recv", strerror(errno), GEX_RANK_INVALID);
            break;
        }
        now = now_ns();
        n += handle(buf, (size_t)len, nested, now);
    }
    n += gasneti_defer_run(nested, PRE);
    if (!now || n) now = now_ns(); /* handlers take time */
    if (__atomic_load_n(&owed_count, __ATOMIC_RELAXED) || now >= __atomic_load_n(&next_timer, __ATOMIC_RELAXED)) {
        LOCK();
        timers(now);
        UNLOCK();
    }
    return n;
}

int gasnetc_poll(void) { return udp_poll(gasneti_net_nested()); }

/* ---------------------------------------------------------------------------------
 * gasnetc_am_send
 * --------------------------------------------------------------------------------- */
static inline int window_full(const tx_t *t, uint32_t len) {
    return t->next - t->base >= WIN || (t->next != t->base && t->inflight + len > window_bytes);
}

int gasnetc_am_would_block(const gasneti_am_msg_t *m) {
    gasneti_am_msg_t first = *m; /* the first piece of a bigger one */
    if (first.nbytes > GASNETC_NET_MEDIUM) first.nbytes = GASNETC_NET_MEDIUM;
    LOCK();
    int full = window_full(&peers[m->jobrank].tx[m->is_req ? CH_REQ : CH_REP], gasneti_wire_len(PRE, &first, 0, 1));
    UNLOCK();
    return full;
}

typedef struct {
    const tx_t *t;
    uint32_t len;
} want_t;
static int room(void *arg) { return !window_full(((want_t *)arg)->t, ((want_t *)arg)->len); }

int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    peer_t *p = &peers[m->jobrank];
    int ch = m->is_req ? CH_REQ : CH_REP;
    tx_t *t = &p->tx[ch];
    uint32_t len = gasneti_wire_len(PRE, m, 0, 1);
    gasneti_assert(len <= MAX_DGRAM);
    want_t want = {t, len};
    if (gasneti_lock_room(&ulock, room, &want, m)) return GASNETI_AM_WOULD_BLOCK;
    if (t->base == t->next) win_take(t);
    else if (t->next - t->base == t->w->cap) win_grow(t);
    uint32_t seq = t->next++;
    slot_t *s = &t->w->slot[seq % t->w->cap];
    if (s->cap < len) { /* a small buffer, or none (a big one, RBUF_BYTES, always fits) */
        free(s->buf);
        if (len > SMALL_SLOT) {
            s->buf = big_get();
            s->cap = RBUF_BYTES;
        } else {
            s->cap = (len + 63) & ~63u;
            s->buf = malloc(s->cap);
            if (!s->buf) gasneti_fatalerror("udp-conduit: out of memory for a %u-byte datagram", len);
        }
    }
    hdr_t *h = (hdr_t *)s->buf;
    h->key = gasneti_spawn_key;
    h->src = gasneti_mynode;
    h->kind = PK_DATA;
    h->chan = (uint8_t)ch;
    h->unused = 0;
    h->seq = seq;
    h->unused2 = 0;
    gasneti_wire_build(s->buf, PRE, m, 0, 0, 1);
    s->len = len;
    s->acked = s->retx = s->fast = 0;
    t->inflight += len;
    uint64_t now = now_ns();
    s->first_sent = now;
    counts.sent++;
    send_slot(p, s, now);
    UNLOCK();
    if (lc) gasneti_counter_done(lc); /* copied: the source may be reused */
    return GASNET_OK;
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
static double env_seconds(const char *name, double dflt /* s */) {
    const char *v = gasneti_getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    double d = strtod(v, &end);
    if (*end || d < 0) gasneti_launch_error("%s=%s: expected a number of seconds >= 0", name, v);
    return d;
}

static void endpoint_from_env(endpoint_t *me) {
    const char *want = gasneti_getenv("GASNET_UDP_ADDR");
    if (want && *want) {
        struct addrinfo hints, *ai;
        memset(&hints, 0, sizeof(hints));
        hints.ai_socktype = SOCK_DGRAM;
        hints.ai_flags = AI_NUMERICHOST;
        int rc = getaddrinfo(want, NULL, &hints, &ai);
        if (rc) gasneti_launch_error("GASNET_UDP_ADDR=%s: not an IP address (%s)", want, gai_strerror(rc));
        memcpy(&me->addr, ai->ai_addr, ai->ai_addrlen);
        me->addrlen = (uint32_t)ai->ai_addrlen;
        freeaddrinfo(ai);
    } else if (gasneti_spawn_ctrl_addrlen) {
        memcpy(&me->addr, &gasneti_spawn_ctrl_addr, gasneti_spawn_ctrl_addrlen);
        me->addrlen = gasneti_spawn_ctrl_addrlen;
    } else { /* no launcher address: this host only */
        struct sockaddr_in *a = (struct sockaddr_in *)&me->addr;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        me->addrlen = sizeof(*a);
    }
    if (me->addr.ss_family == AF_INET) ((struct sockaddr_in *)&me->addr)->sin_port = 0;
    else if (me->addr.ss_family == AF_INET6) ((struct sockaddr_in6 *)&me->addr)->sin6_port = 0;
}

static void set_bufsize(int opt, int force_opt, int bytes) {
    if (setsockopt(sock, SOL_SOCKET, force_opt, &bytes, sizeof(bytes))) /* root only */
        (void)setsockopt(sock, SOL_SOCKET, opt, &bytes, sizeof(bytes));
}

/* ---------------------------------------------------------------------------------
 * The state dump's lines (gasneti_watchdog.c): racy reads, no lock
 * --------------------------------------------------------------------------------- */
static int diag_peer(gex_Rank_t r, char *buf, size_t len) {
    const peer_t *p = &peers[r];
    uint32_t req = p->tx[CH_REQ].next - p->tx[CH_REQ].base, rep = p->tx[CH_REP].next - p->tx[CH_REP].base;
    if (!req && !rep && !p->owed) return 0;
    snprintf(buf, len, "udp window: %u requests and %u replies sent, not yet acknowledged (%zu bytes, of %d and %zu "
             "allowed); rto %.1f ms; an ack owed to it: %s", (unsigned)req, (unsigned)rep,
             p->tx[CH_REQ].inflight + p->tx[CH_REP].inflight, WIN, window_bytes, p->rto / 1e6, p->owed ? "yes" : "no");
    return req || rep;
}
static void diag_lines(void (*line)(const char *fmt, ...)) {
    line("udp socket %d; window %d datagrams and %zu bytes per peer and channel; datagrams sent %lu, resent %lu "
         "(%lu fast), acks %lu, duplicates %lu, dropped %lu", sock, WIN, window_bytes, counts.sent, counts.resent,
         counts.fast, counts.acks, counts.dups, counts.bad_key + counts.bad_hdr + counts.bad_len);
}
static const gasneti_diag_conduit_t diag = {diag_peer, diag_lines};

int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    gasneti_diag_register(&diag);
    rto_min = (uint64_t)(env_seconds("GASNET_UDP_RTO_MIN", (double)rto_min * 1e-9) * 1e9);
    rto_init = (uint64_t)(env_seconds("GASNET_UDP_RTO_INIT", (double)rto_init * 1e-9) * 1e9);
    give_up = env_seconds("GASNET_REQUESTTIMEOUT_MAX", give_up);
    verbose = gasneti_getenv_yesno("GASNET_VERBOSEENV", 0);
    if (rto_min < 100000) rto_min = 100000;
    if (rto_init < rto_min) rto_init = rto_min;

    endpoint_t me, *all = calloc(gasneti_nodes, sizeof(endpoint_t));
    peers = calloc(gasneti_nodes, sizeof(peer_t));
    owed_list = calloc(gasneti_nodes, sizeof(gex_Rank_t));
    if (!all || !peers || !owed_list) gasneti_fatalerror("udp-conduit: out of memory for %u peers", gasneti_nodes);
    memset(&me, 0, sizeof(me));
    endpoint_from_env(&me);

    int need_net = gasneti_nbrhd_size < gasneti_nodes; /* some peer is not a neighbor */
    if (need_net) {
        sock = socket(me.addr.ss_family, SOCK_DGRAM, 0);
        if (sock < 0) {
            fprintf(stderr, "udp-conduit: socket: %s\n", strerror(errno));
            return GASNET_ERR_RESOURCE;
        }
        if (bind(sock, (struct sockaddr *)&me.addr, me.addrlen)) {
            char ip[INET6_ADDRSTRLEN] = "?";
            getnameinfo((struct sockaddr *)&me.addr, me.addrlen, ip, sizeof(ip), NULL, 0, NI_NUMERICHOST);
            fprintf(stderr, "udp-conduit: rank %u cannot bind a UDP socket to %s: %s\n", (unsigned)gasneti_mynode,
                    ip, strerror(errno));
            return GASNET_ERR_RESOURCE;
        }
        socklen_t al = sizeof(me.addr);
        getsockname(sock, (struct sockaddr *)&me.addr, &al);
        me.addrlen = al;
        set_bufsize(SO_RCVBUF, SO_RCVBUFFORCE, 8 << 20);
        set_bufsize(SO_SNDBUF, SO_SNDBUFFORCE, 4 << 20);
    }
    boot->exchange(&me, sizeof(me), all);

    /* bytes in flight per peer: a share of our receive buffer (peers send us as much) */
    int rcv = 0;
    socklen_t ol = sizeof(rcv);
    if (sock >= 0) getsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcv, &ol);
    size_t remote = gasneti_nodes - gasneti_nbrhd_size;
    window_bytes = remote ? (size_t)rcv / 2 / remote : 0;
    if (window_bytes < 2 * MAX_DGRAM) window_bytes = 2 * MAX_DGRAM;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        if (all[r].addrlen > sizeof(addr_t))
            gasneti_fatalerror("udp-conduit: rank %u's address (family %d, %u bytes) is neither IPv4 nor IPv6",
                               (unsigned)r, (int)all[r].addr.ss_family, (unsigned)all[r].addrlen);
        memcpy(&peers[r].addr, &all[r].addr, all[r].addrlen);
        peers[r].addrlen = all[r].addrlen;
        peers[r].rto = rto_init;
    }
    free(all);
    return GASNET_OK;
}

static int anything_unacked(void) {
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        for (int c = 0; c < 2; c++)
            if (peers[r].tx[c].base != peers[r].tx[c].next) return 1;
    return 0;
}

/* Leaving: acknowledge what arrived, and give our last datagrams a brief chance (the
 * peers are leaving too; nothing here may block for long). */
void gasnetc_network_fini(void) {
    if (sock < 0) return;
    uint64_t end = now_ns() + 100000000;
    LOCK();
    for (size_t i = 0; i < owed_count; i++) {
        if (peers[owed_list[i]].owed) send_ack(&peers[owed_list[i]]);
        peers[owed_list[i]].listed = 0;
    }
    owed_count = 0;
    int busy = anything_unacked();
    UNLOCK();
    while (busy && now_ns() < end) {
        uint8_t *buf = recv_buffer(1);
        ssize_t len = recv(sock, buf, RBUF_BYTES, MSG_DONTWAIT);
        LOCK();
        if (len >= (ssize_t)sizeof(hdr_t)) {
            const hdr_t *h = (const hdr_t *)buf;
            if (h->key == gasneti_spawn_key && h->src < gasneti_nodes) take_acks(&peers[h->src], h, now_ns());
        }
        next_timer = 0; /* resend what is due */
        timers(now_ns());
        busy = anything_unacked();
        UNLOCK();
        if (len < 0) gasneti_sleep_ns(200000);
    }
    if (verbose)
        fprintf(stderr,
                "udp-conduit rank %u: %lu datagrams sent, %lu resent (%lu fast), %lu standalone acks, %lu duplicates "
                "dropped; dropped: %lu without the job key, %lu bad header, %lu bad lengths; %lu sends the "
                "kernel refused; %u send windows made (at most %u in use at once; grown %u times)%s\n",
                (unsigned)gasneti_mynode, counts.sent, counts.resent, counts.fast, counts.acks, counts.dups, counts.bad_key,
                counts.bad_hdr, counts.bad_len, counts.eagain, wins_made, wins_most, wins_grown,
                busy ? "; some datagrams were never acknowledged" : "");
    close(sock);
    sock = -1;
}
