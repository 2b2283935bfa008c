/* ofi_rma.c: native RMA of ofi-conduit: gex_RMA_* to non-neighbors by fi_write/fi_read
 * into the peer's segment, registered once at attach (fi_mr_reg) with the keys and base
 * addresses exchanged over the bootstrap. Layer: ofi-conduit (the optional RDMA half of
 * conduit_contract.h: gasnetc_put, gasnetc_get, gasnetc_rma_native).
 *
 * Used when the provider has FI_RMA and GASNET_OFI_RMA is not 0 (gasnetc_rma_native;
 * otherwise the extended layer's AM reference serves every peer). Memory registration
 * modes handled: FI_MR_VIRT_ADDR (remote address = virtual address, else the offset in
 * the segment), FI_MR_PROV_KEY (the key the provider gives, else ours), FI_MR_ALLOCATED;
 * providers needing FI_MR_LOCAL or FI_MR_ENDPOINT are not chosen (ofi_init.c), so local
 * buffers, in or out of the segment, need no registration. A put asks for delivery
 * completion (FI_DELIVERY_COMPLETE): its completion means the data is in place at the
 * target, which is when the remote-completion counter is signalled; the source may be
 * reused then too. Transfers above the provider's max_msg_size go in pieces.
 * Completions arrive in the one completion queue, polled by ofi_am.c, which hands them to
 * gasnetc_ofi_rma_done. */
#include "conduit_contract.h"
#include "ofi_internal.h"

#include <string.h>

int gasnetc_rma_native;

typedef struct { /* what each rank publishes at attach */
    uint64_t base; /* the segment's address in its owner's address space */
    uint64_t key;
} seginfo_t;

typedef struct rma_op_s { /* one fi_write/fi_read in flight */
    struct fi_context2 ctx; /* first: the operation's context */
    struct rma_op_s *next_free;
    gasneti_counter_t *lc, *rc;
    gex_Rank_t peer;
} rma_op_t;

static struct fid_mr *mr;
static seginfo_t *segs; /* [gasneti_nodes] */
static int virt_addr;
static size_t max_piece;
static rma_op_t *free_ops;

/* lock held */
static rma_op_t *op_get(void) {
    rma_op_t *o = free_ops;
    if (o) {
        free_ops = o->next_free;
        return o;
    }
    o = calloc(1, sizeof(*o));
    if (!o) gasneti_fatalerror("ofi-conduit: out of memory for an RMA operation");
    return o;
}

/* lock held: a completion of ours arrived */
void gasnetc_ofi_rma_done(void *context) {
    rma_op_t *o = context;
    if (o->lc) gasneti_counter_done(o->lc);
    if (o->rc) gasneti_counter_done(o->rc);
    o->next_free = free_ops;
    free_ops = o;
}

long gasnetc_ofi_rma_peer(void *context) { return context ? (long)((rma_op_t *)context)->peer : -1; }

int gasnetc_ofi_rma_register(gasneti_bootstrap_t *boot, void *addr, uintptr_t size) {
    struct fi_info *info = gasnetc_ofi_info;
    gasnetc_rma_native = (info->caps & FI_RMA) && gasneti_getenv_yesno("GASNET_OFI_RMA", 1);
    /* the same on every rank: FI_RMA comes from the one provider, GASNET_OFI_RMA from the
     * launcher's environment; the exchange below is collective either way */
    seginfo_t me = {0, 0};
    if (gasnetc_rma_native) {
        uint64_t mode = info->domain_attr->mr_mode;
        virt_addr = (mode & FI_MR_VIRT_ADDR) != 0;
        int rc = fi_mr_reg(gasnetc_ofi_domain, addr, size, FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                           (uint64_t)gasneti_mynode + 1, 0, &mr, NULL);
        if (rc) gasnetc_ofi_fail("fi_mr_reg (the segment)", rc, -1);
        me.base = (uint64_t)(uintptr_t)addr;
        me.key = fi_mr_key(mr);
        max_piece = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : (1u << 30);
        if (max_piece > (1u << 30)) max_piece = 1u << 30;
    }
    segs = calloc(gasneti_nodes, sizeof(seginfo_t));
    if (!segs) gasneti_fatalerror("ofi-conduit: out of memory for %u segment keys", (unsigned)gasneti_nodes);
    boot->exchange(&me, sizeof(me), segs);
    return GASNET_OK;
}

/* the segment owner's address of x (dest or src in the target's segment) as libfabric
 * wants it: the virtual address, or the offset from the segment's base */
static inline uint64_t remote_addr(gex_Rank_t jr, void *x) {
    return virt_addr ? (uint64_t)(uintptr_t)x : (uint64_t)(uintptr_t)x - segs[jr].base;
}

/* one piece: fi_writemsg or fi_readmsg, retried after progress while the provider says
 * -FI_EAGAIN; 1 (nothing issued) for GEX_FLAG_IMMEDIATE then */
static int issue(int write, gex_Rank_t jr, void *local, uint64_t raddr, size_t n, gasneti_counter_t *lc,
                 gasneti_counter_t *rc, gex_Flags_t flags) {
    struct iovec iov = {local, n};
    struct fi_rma_iov riov = {raddr, n, segs[jr].key};
    struct fi_msg_rma msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.iov_count = 1;
    msg.addr = GASNETC_OFI_PEER(jr, GASNETC_CH_REQ);
    msg.rma_iov = &riov;
    msg.rma_iov_count = 1;
    for (;;) {
        OFI_LOCK();
        rma_op_t *o = op_get();
        o->lc = lc;
        o->rc = rc;
        o->peer = jr;
        msg.context = &o->ctx;
        ssize_t r = write ? fi_writemsg(gasnetc_ofi_ep[GASNETC_CH_REQ], &msg, FI_DELIVERY_COMPLETE | FI_COMPLETION)
                          : fi_readmsg(gasnetc_ofi_ep[GASNETC_CH_REQ], &msg, FI_COMPLETION);
        if (r) {
            o->next_free = free_ops;
            free_ops = o;
        }
        OFI_UNLOCK();
        if (r == 0) return 0;
        if (r != -FI_EAGAIN) gasnetc_ofi_fail(write ? "fi_writemsg" : "fi_readmsg", r, (long)jr);
        if (flags & GEX_FLAG_IMMEDIATE) return 1;
        gasnetc_poll();
    }
}

int gasnetc_put(gex_Rank_t jr, void *dest, const void *src, size_t nbytes, gasneti_counter_t *lc,
                gasneti_counter_t *rc, gex_Flags_t flags) {
    gasneti_counter_t mine; /* no lc: wait here until the source may be reused */
    gasneti_counter_t *l = lc ? lc : &mine;
    size_t npieces = nbytes ? (nbytes + max_piece - 1) / max_piece : 1;
    gasneti_atomic_set(&mine, 0);
    /* the caller counted one lc and one rc for the whole put: the other pieces add theirs */
    for (size_t i = 1; i < npieces; i++) {
        gasneti_counter_add(rc);
        gasneti_counter_add(l);
    }
    if (!lc) gasneti_counter_add(&mine);
    uint64_t raddr = remote_addr(jr, dest);
    for (size_t off = 0, i = 0; i < npieces; i++, off += max_piece) {
        size_t n = nbytes - off < max_piece ? nbytes - off : max_piece;
        if (issue(1, jr, (char *)src + off, raddr + off, n, l, rc, i ? flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE : flags)) {
            for (size_t k = 1; k < npieces; k++) { /* refused at the first piece: nothing issued */
                gasneti_counter_done(rc);
                gasneti_counter_done(l);
            }
            return 1;
        }
    }
    while (!lc && gasneti_atomic_read(&mine) != 0) gasnetc_poll();
    return 0;
}

int gasnetc_get(void *dest, gex_Rank_t jr, void *src, size_t nbytes, gasneti_counter_t *rc, gex_Flags_t flags) {
    size_t npieces = nbytes ? (nbytes + max_piece - 1) / max_piece : 1;
    for (size_t i = 1; i < npieces; i++) gasneti_counter_add(rc);
    uint64_t raddr = remote_addr(jr, src);
    for (size_t off = 0, i = 0; i < npieces; i++, off += max_piece) {
        size_t n = nbytes - off < max_piece ? nbytes - off : max_piece;
        if (issue(0, jr, (char *)dest + off, raddr + off, n, NULL, rc, i ? flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE : flags)) {
            for (size_t k = 1; k < npieces; k++) gasneti_counter_done(rc);
            return 1;
        }
    }
    return 0;
}

void gasnetc_ofi_rma_fini(void) {
    if (mr) fi_close(&mr->fid);
    mr = NULL;
}
