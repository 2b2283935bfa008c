/* ibv_bigmed.c: ibv-conduit's big Mediums, whose payload (above GASNETC_NET_MEDIUM, up to
 * GASNETC_MAX_MEDIUM) does not fit a receive buffer: the sender lends the receiver a
 * registered buffer holding the payload and sends the header alone; the receiver reads
 * the payload by RDMA READ, gives the buffer back by a release, and runs the handler.
 * Layer: ibv-conduit (the AM half: ibv_am.c sends the header, posts the release and calls
 * in here from its poll).
 *
 * Sending side (tx): NLEND buffers of GASNETC_MAX_MEDIUM bytes, registered for remote
 * reads, made on first use. ibv_am.c lends one (gasnetc_ibv_bigmed_lend) with the
 * header's credit and send slot, fills it outside the lock (the payload is copied there,
 * or a Prepare hands it to the client, who writes the payload in place), and sends the
 * header flagged GASNETI_WIRE_ELSEWHERE with the buffer's address and rkey in the Long
 * fields and its index in the prefix. The buffer stays lent until the receiver's release
 * (K_RELEASE, the index) arrives; a release from a peer it was not lent to ends the job.
 * Receiving side (rx): the header is copied into a record (pend_t); the payload is read
 * into one of NREAD buffers of its own (never lent: a read needs no peer's progress, so
 * two ranks whose buffers are all lent to each other's big Mediums still read them). At
 * the READ's completion the release goes back (or waits for room), and the record goes
 * to the ready queue; the poll, without the lock, copies the payload into a buffer of the
 * core's pool (gasneti_wire_elsewhere), gives the read buffer back and runs the handler
 * (or defers a request a nested poll may not run). Headers that find no room to read wait
 * in order.
 * Every function expects gasnetc_ibv_lock held unless it says otherwise. */
#include "ibv_internal.h"

#include <string.h>

#define NLEND 32 /* buffers lent to receivers at once, per process */
#define NREAD 8  /* big Mediums read at once */
#define PRE GASNETC_IBV_PRE

/* a big Medium whose header arrived: its payload to read, then its handler to run */
typedef struct pend_s {
    struct pend_s *next;
    gex_Rank_t src;
    int is_req;
    int rbuf;      /* the read buffer holding its payload, once read */
    uint16_t lent; /* the sender's buffer */
    uint32_t rkey, nbytes;
    uint64_t raddr;
    size_t len; /* of msg */
    uint64_t msg[GASNETC_IBV_HDR_MAX / 8];
} pend_t;
typedef struct {
    pend_t *head, *tail;
} queue_t;
typedef struct {
    gex_Rank_t dest;
    uint16_t lent;
} rel_t;

/* the sending side: buffers lent to receivers */
static struct {
    gasneti_slots_t bufs;      /* NLEND, registered for remote reads */
    gex_Rank_t lent_to[NLEND]; /* the peer that reads each, or GEX_RANK_INVALID */
    size_t n_sent;
} tx;

/* the receiving side */
static struct {
    gasneti_slots_t bufs;   /* NREAD buffers read into */
    pend_t *reading[NREAD]; /* the header whose payload each one reads or holds */
    queue_t waiting;        /* headers waiting for room to read */
    queue_t ready;          /* payloads read: handlers to run */
    rel_t *rels;            /* releases waiting for room */
    int nrels, cap_rels;
    size_t n_read;
} rx;

int gasnetc_ibv_bigmed_work;

static void update_work(void) { gasnetc_ibv_bigmed_work = rx.waiting.head || rx.ready.head || rx.nrels; }

static void enqueue(queue_t *q, pend_t *p) {
    p->next = NULL;
    if (q->tail) q->tail->next = p;
    else q->head = p;
    q->tail = p;
}

/* ---------------------------------------------------------------------------------
 * Sending
 * --------------------------------------------------------------------------------- */
int gasnetc_ibv_bigmed_room(void) { return gasneti_slots_avail(&tx.bufs); }
int gasnetc_ibv_bigmed_peek(void) { return gasneti_slots_peek(&tx.bufs); }

void gasnetc_ibv_bigmed_lend(gex_Rank_t r, gasnetc_ibv_lent_t *l) {
    int i = gasneti_slots_get(&tx.bufs);
    gasneti_assert(i >= 0 && tx.lent_to[i] == GEX_RANK_INVALID);
    l->i = i;
    l->buf = gasneti_slots_buf(&tx.bufs, i, GASNETC_MAX_MEDIUM);
    l->addr = (uintptr_t)l->buf;
    l->rkey = ((struct ibv_mr *)tx.bufs.slot[i].reg)->rkey;
    tx.lent_to[i] = r;
    tx.n_sent++;
}

void gasnetc_ibv_bigmed_unlend(int i) {
    tx.lent_to[i] = GEX_RANK_INVALID;
    tx.n_sent--;
    gasneti_slots_put(&tx.bufs, i);
}

void gasnetc_ibv_bigmed_released(gex_Rank_t r, unsigned i) {
    if (i >= NLEND || tx.lent_to[i] != r) gasneti_wire_bad("the release of a buffer it was not lent", r);
    tx.lent_to[i] = GEX_RANK_INVALID;
    gasneti_slots_put(&tx.bufs, (int)i);
}

/* ---------------------------------------------------------------------------------
 * Receiving
 * --------------------------------------------------------------------------------- */
/* tell r its lent buffer is free again; 0 if no room now */
static int send_release(gex_Rank_t r, uint16_t lent) {
    gasnetc_ibv_pre_t pre = {gasneti_mynode, GASNETC_IBV_K_RELEASE, 0, lent};
    return gasnetc_ibv_post_small(r, &pre, sizeof(pre), "ibv_post_send (a lent buffer's release)");
}

/* read p's payload; 0 if no room now */
static int start_read(pend_t *p) {
    if (!gasnetc_ibv_sq_room(p->src, 1) || !gasneti_slots_avail(&rx.bufs)) return 0;
    int b = gasneti_slots_get(&rx.bufs);
    uint8_t *buf = gasneti_slots_buf(&rx.bufs, b, GASNETC_MAX_MEDIUM);
    rx.reading[b] = p;
    p->rbuf = b;
    struct ibv_sge sge = {(uintptr_t)buf, p->nbytes, ((struct ibv_mr *)rx.bufs.slot[b].reg)->lkey};
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = ((uint64_t)b << 4) | GASNETC_WR_BIGMED;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.wr.rdma.remote_addr = p->raddr;
    wr.wr.rdma.rkey = p->rkey;
    gasnetc_ibv_post(p->src, &wr, 1, "ibv_post_send (RDMA READ of a big Medium's payload)");
    return 1;
}

void gasnetc_ibv_bigmed_arrived(const uint8_t *msg, size_t len, gex_Rank_t src, int is_req) {
    const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(GASNETI_WIRE_HDR(msg, PRE) + 1);
    if (len > sizeof(((pend_t *)0)->msg)) gasneti_wire_bad("a big Medium's header too long", src);
    if (x->nbytes > GASNETC_MAX_MEDIUM) gasneti_wire_bad("a big Medium beyond GASNETC_MAX_MEDIUM", src);
    pend_t *p = gasneti_net_malloc(sizeof(pend_t), "a big Medium's header");
    p->src = src;
    p->is_req = is_req;
    p->rbuf = -1;
    p->lent = ((const gasnetc_ibv_pre_t *)msg)->lent;
    p->raddr = x->dest_addr;
    p->rkey = x->aux;
    p->nbytes = x->nbytes;
    p->len = len;
    memcpy(p->msg, msg, len);
    if (!rx.waiting.head && start_read(p)) return;
    enqueue(&rx.waiting, p);
    update_work();
}

gex_Rank_t gasnetc_ibv_bigmed_reader(unsigned b) { return rx.reading[b]->src; }

void gasnetc_ibv_bigmed_read_done(unsigned b, int ok) {
    pend_t *p = rx.reading[b];
    if (!ok) { /* (only while exiting: nothing to deliver) */
        rx.reading[b] = NULL;
        gasneti_slots_put(&rx.bufs, (int)b);
        free(p);
        return;
    }
    rx.n_read++;
    if (!send_release(p->src, p->lent)) { /* the sender's buffer is free: say so, now or later */
        if (rx.nrels == rx.cap_rels) {
            rx.cap_rels = rx.cap_rels ? 2 * rx.cap_rels : 16;
            rx.rels = realloc(rx.rels, (size_t)rx.cap_rels * sizeof(rel_t));
            if (!rx.rels) gasneti_fatalerror("ibv-conduit: out of memory for a release");
        }
        rx.rels[rx.nrels++] = (rel_t){p->src, p->lent};
    }
    enqueue(&rx.ready, p);
    update_work();
}

void gasnetc_ibv_bigmed_retry(void) {
    while (rx.waiting.head && start_read(rx.waiting.head)) {
        rx.waiting.head = rx.waiting.head->next;
        if (!rx.waiting.head) rx.waiting.tail = NULL;
    }
    int k = 0;
    for (int i = 0; i < rx.nrels; i++)
        if (!send_release(rx.rels[i].dest, rx.rels[i].lent)) rx.rels[k++] = rx.rels[i];
    rx.nrels = k;
    update_work();
}

void *gasnetc_ibv_bigmed_take(void) {
    pend_t *list = rx.ready.head;
    rx.ready.head = rx.ready.tail = NULL;
    update_work();
    return list;
}

/* lock not held */
int gasnetc_ibv_bigmed_run(void *taken, int nested) {
    int n = 0;
    for (pend_t *p = taken, *next; p; p = next) {
        next = p->next;
        /* the payload into a buffer of the core's pool, recorded in the header */
        memcpy(gasneti_wire_elsewhere((uint8_t *)p->msg, PRE), rx.bufs.slot[p->rbuf].buf, p->nbytes);
        IBV_LOCK();
        rx.reading[p->rbuf] = NULL;
        gasneti_slots_put(&rx.bufs, p->rbuf);
        if (rx.waiting.head) gasnetc_ibv_bigmed_retry();
        IBV_UNLOCK();
        if (!gasneti_defer_if(nested, p->is_req, p->src, p->msg, p->len)) {
            gasneti_wire_deliver((uint8_t *)p->msg, PRE, p->len, p->src, p->is_req);
            n++;
        }
        free(p);
    }
    return n;
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
static void *lend_reg(void *buf, size_t len) {
    return gasnetc_ibv_reg(buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, "a big Medium's lent buffer");
}
static void *read_reg(void *buf, size_t len) {
    return gasnetc_ibv_reg(buf, len, IBV_ACCESS_LOCAL_WRITE, "a big Medium's read buffer");
}
static void dereg(void *mr) { ibv_dereg_mr(mr); }

void gasnetc_ibv_bigmed_init(void) {
    gasneti_slots_init(&tx.bufs, NLEND, GASNETC_MAX_MEDIUM, lend_reg, dereg);
    gasneti_slots_init(&rx.bufs, NREAD, GASNETC_MAX_MEDIUM, read_reg, dereg);
    for (int i = 0; i < NLEND; i++) tx.lent_to[i] = GEX_RANK_INVALID;
}

/* after the QPs are gone */
void gasnetc_ibv_bigmed_free(void) {
    gasneti_slots_fini(&tx.bufs);
    gasneti_slots_fini(&rx.bufs);
}

void gasnetc_ibv_bigmed_say(void) {
    fprintf(stderr, "ibv-conduit: rank %u big Mediums: %zu sent, %zu read by RDMA READ\n", (unsigned)gasneti_mynode,
            tx.n_sent, rx.n_read);
}
