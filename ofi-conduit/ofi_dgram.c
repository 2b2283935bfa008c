/* ofi_dgram.c: ofi-conduit's datagram endpoint (FI_EP_DGRAM of libfabric's udp
 * provider, one per process), which carries the AMs that fit a datagram to peers without
 * a connection, reliably by the toolkit's protocol (gasnet_core/gasneti_rdgram.h), so that
 * a peer contacted now and then costs no connection of the RDM provider (issue 43: on
 * tcp;ofi_rxm each costs ~19 KiB: its tcp endpoint; docs/ofi-conduit.md, "Scale:
 * datagrams for AMs"). Layer: ofi-conduit (a transport under ofi_am.c, which builds the AMs
 * and runs their handlers).
 *
 * When: the RDM provider is one with a connection per peer (a tcp fabric: tcp;ofi_rxm,
 * tcp), the udp provider serves the RDM endpoint's address (its interface), and
 * GASNET_OFI_DGRAM is not 0 on any rank. Otherwise off: everything over the RDM endpoint.
 * Addresses: each rank's datagram endpoint name (a sockaddr, at most 28 bytes) in one
 * exchange at start-up; a peer's entry in the datagram AV and its protocol state are made
 * at first contact (gasneti_rdg_ops_t's made).
 * A datagram: the protocol's 8-byte header, then an AM as over RDM (ofi_am.c's 8-byte
 * prefix, its second word saying request or reply, and the toolkit's layout), at most the
 * provider's max_msg_size (1472 on udp). In a send slot the AM starts at SLOT_OFF (16),
 * the header 8 bytes before it; in a receive buffer at R_OFF (64-byte aligned), the
 * header before it. Sent by fi_inject (a copy: no completion), kept in its slot until
 * acknowledged (resent from there).
 * Switch (GASNET_OFI_DGRAM_SWITCH, default 64; "never": datagrams for everything that
 * fits): once SWITCH datagrams went to a peer, or anything went to it or came from it by
 * the RDM endpoint (the connection exists then: a bigger AM, a Long by fi_write, native
 * RMA or an atomic), everything to it goes by the RDM endpoint (gasnetc_ofi_dg_conn);
 * datagrams still unacknowledged are resent until acknowledged.
 * Tests: GASNET_OFI_DGRAM_TEST_DROP=k drops one datagram sent in k (data, ACK or NAK).
 * Every function expects gasnetc_ofi_lock held unless said. */
#include "gasneti_rdgram.h"
#include "ofi_internal.h"

#include <netinet/in.h>
#include <string.h>

#define DG_SLOTS 256 /* datagrams unacknowledged per process, at most */
#define DG_NRB 64    /* receive buffers posted */
#define DG_BUF_MAX 4096
#define SLOT_OFF 16
#define R_OFF 64
#define HDR sizeof(gasneti_rdg_hdr_t)
#define DEFAULT_SWITCH 64
#define HOT_POLLS 64 /* polls that read the datagrams' queue each time after some activity */

typedef struct { /* a rank's datagram address, as exchanged */
    uint32_t len;  /* 0: datagrams off there */
    uint8_t name[28];
} dg_addr_t;

typedef struct {
    struct fi_context2 ctx; /* first */
    uint8_t *buf;
} dg_rbuf_t;

int gasnetc_ofi_dg_on;
uint32_t gasnetc_ofi_dg_max;
uint8_t *gasnetc_ofi_dg_conn;
int gasnetc_ofi_dg_follow;
int gasnetc_ofi_dg_hot;
static uint32_t switch_after = DEFAULT_SWITCH;
static const char *why_off = "GASNET_OFI_DGRAM=0";
static struct fi_info *dinfo;
static struct fid_fabric *dfabric;
static struct fid_domain *ddomain;
static struct fid_av *dav;
static struct fid_cq *dcq;
static struct fid_ep *dep;
static dg_addr_t *addr; /* [gasneti_nodes] */
static size_t rbytes;   /* a receive buffer's */
static dg_rbuf_t rb[DG_NRB];
static gasneti_slots_t pool;
static gasneti_rdg_t rdg;
static uint64_t drop_every, nxmit;
static size_t n_dropped, n_switched, n_again;

static fi_addr_t peer_addr(gasneti_rdg_peer_t *p) {
    fi_addr_t a;
    memcpy(&a, gasneti_rdg_extra(p), sizeof(a));
    return a;
}
/* GASNET_OFI_DGRAM_TEST_DROP=k: one datagram in k, on average, at pseudo-random places
 * (exactly every k-th would, when a window of k datagrams is resent whole and nothing else
 * goes between two resends, drop the same datagram each time, for ever) */
static int dropped(void) {
    if (!drop_every) return 0;
    nxmit ^= nxmit << 13; /* xorshift64, seeded with the rank */
    nxmit ^= nxmit >> 7;
    nxmit ^= nxmit << 17;
    if (nxmit % drop_every) return 0;
    n_dropped++;
    return 1;
}
static ssize_t inject(gex_Rank_t r, gasneti_rdg_peer_t *p, const void *buf, size_t len) {
    if (dropped()) return 0;
    ssize_t rc = fi_inject(dep, buf, len, peer_addr(p));
    if (rc == -FI_EAGAIN) {
        n_again++;
        return 1;
    }
    if (rc) gasnetc_ofi_fail("fi_inject (a datagram)", rc, (long)r);
    return 0;
}

/* ---- the protocol's callbacks ---- */
static gasneti_rdg_hdr_t *op_hdr(int slot) { return (gasneti_rdg_hdr_t *)(pool.slot[slot].buf + SLOT_OFF - HDR); }
static int op_xmit(gex_Rank_t r, gasneti_rdg_peer_t *p, int slot) {
    uint32_t len;
    memcpy(&len, pool.slot[slot].buf, sizeof(len)); /* its length, kept in the slot's first word */
    return (int)inject(r, p, op_hdr(slot), len);
}
static int op_control(gex_Rank_t r, gasneti_rdg_peer_t *p, const gasneti_rdg_hdr_t *h) {
    uint32_t msg[4] = {0, 0, gasneti_mynode, 0}; /* header, then ofi_am.c's prefix: our rank, kind 0 */
    memcpy(msg, h, HDR);
    return (int)inject(r, p, msg, sizeof(msg));
}
static void op_acked(int slot) { gasneti_slots_put(&pool, slot); }
static void op_made(gex_Rank_t r, gasneti_rdg_peer_t *p) {
    fi_addr_t a = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(dav, addr[r].name, 1, &a, 0, NULL);
    if (rc != 1) gasnetc_ofi_fail("fi_av_insert (a peer's datagram address)", rc < 0 ? rc : -FI_EINVAL, (long)r);
    memcpy(gasneti_rdg_extra(p), &a, sizeof(a));
}
static const gasneti_rdg_ops_t ops = {op_xmit, op_control, op_hdr, op_acked, op_made};

/* ---- sending (for ofi_am.c) ---- */
int gasnetc_ofi_dg_room(gex_Rank_t r) { return gasneti_slots_avail(&pool) && gasneti_rdg_room(&rdg, r); }
int gasnetc_ofi_dg_peek(gex_Rank_t r) { return gasneti_slots_peek(&pool) && gasneti_rdg_peek(&rdg, r); }

uint8_t *gasnetc_ofi_dg_slot(int *slot, uint32_t len) {
    *slot = gasneti_slots_get(&pool);
    return gasneti_slots_buf(&pool, *slot, SLOT_OFF + len) + SLOT_OFF;
}

void gasnetc_ofi_dg_send(gex_Rank_t r, int slot, uint32_t len) {
    uint32_t dlen = (uint32_t)HDR + len;
    memcpy(pool.slot[slot].buf, &dlen, sizeof(dlen));
    if (gasneti_rdg_send(&rdg, r, slot) >= switch_after && !__atomic_load_n(&gasnetc_ofi_dg_conn[r], __ATOMIC_RELAXED)) {
        __atomic_store_n(&gasnetc_ofi_dg_conn[r], 1, __ATOMIC_RELAXED); /* a busy peer: it pays for a connection */
        n_switched++;
    }
}

/* ---- receiving ---- */
static void post(int i) {
    for (;;) {
        ssize_t rc = fi_recv(dep, rb[i].buf + R_OFF - HDR, rbytes, NULL, FI_ADDR_UNSPEC, &rb[i].ctx);
        if (rc == 0) return;
        if (rc != -FI_EAGAIN) gasnetc_ofi_fail("fi_recv (a datagram buffer)", rc, -1);
        fi_cq_read(dcq, NULL, 0); /* progress only */
    }
}
void gasnetc_ofi_dg_release(int idx) { post(idx); }

GASNETI_COLD static void cq_error(void) {
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof(err));
    ssize_t rc = fi_cq_readerr(dcq, &err, 0);
    if (rc == -FI_EAGAIN) return;
    if (rc < 0) gasnetc_ofi_fail("fi_cq_readerr (datagrams)", rc, -1);
    if (err.err == FI_ECANCELED) return;
    if (err.flags & FI_RECV) { /* (a truncated datagram is not ours) */
        post((int)((dg_rbuf_t *)err.op_context - rb));
        return;
    }
    char why[256];
    snprintf(why, sizeof(why), "%s (provider %s)", fi_strerror(err.err), dinfo->fabric_attr->prov_name);
    gasneti_peer_fail("a datagram's completion", why, GEX_RANK_INVALID);
}

int gasnetc_ofi_dg_poll(gasnetc_ofi_dgmsg_t *out, int max) {
    struct fi_cq_msg_entry e[16];
    int n = 0;
    ssize_t got = fi_cq_read(dcq, e, max < 16 ? max : 16);
    if (got == -FI_EAVAIL) cq_error();
    else if (got < 0 && got != -FI_EAGAIN) gasnetc_ofi_fail("fi_cq_read (datagrams)", got, -1);
    for (ssize_t k = 0; k < got; k++) {
        if (!(e[k].flags & FI_RECV)) continue;
        int i = (int)((dg_rbuf_t *)e[k].op_context - rb);
        const uint8_t *d = rb[i].buf + R_OFF - HDR;
        uint32_t pre[2];
        if (e[k].len < HDR + sizeof(pre)) gasneti_wire_bad("a datagram shorter than ofi-conduit's headers", GEX_RANK_INVALID);
        memcpy(pre, d + HDR, sizeof(pre));
        if (pre[0] >= gasneti_nodes || pre[0] == gasneti_mynode || pre[1] > 2)
            gasneti_wire_bad("a bad ofi-conduit datagram header", pre[0] < gasneti_nodes ? pre[0] : GEX_RANK_INVALID);
        if (gasneti_rdg_recv(&rdg, pre[0], (const gasneti_rdg_hdr_t *)d) == GASNETI_RDG_TAKE) {
            if (!pre[1]) gasneti_wire_bad("a control datagram numbered as data", pre[0]);
            out[n].msg = d + HDR;
            out[n].len = e[k].len - HDR;
            out[n].is_req = pre[1] == 1;
            out[n++].idx = i;
        } else {
            post(i);
        }
    }
    gasneti_rdg_progress(&rdg);
    if (got > 0 || !gasneti_rdg_idle(&rdg) || rdg.nackdue) gasnetc_ofi_dg_hot = HOT_POLLS;
    else if (gasnetc_ofi_dg_hot) gasnetc_ofi_dg_hot--;
    return n;
}

/* ---- start-up and shut-down ---- */
/* the udp provider on the RDM endpoint's interface, or NULL (why_off says why) */
static struct fi_info *find_udp(void) {
    struct fi_info *ri = gasnetc_ofi_info, *hints = fi_allocinfo(), *list = NULL;
    if (!hints) gasneti_fatalerror("ofi-conduit: fi_allocinfo: out of memory");
    hints->ep_attr->type = FI_EP_DGRAM;
    hints->caps = FI_MSG;
    hints->fabric_attr->prov_name = strdup("udp");
    if (ri->src_addr && (ri->addr_format == FI_SOCKADDR_IN || ri->addr_format == FI_SOCKADDR_IN6)) {
        hints->addr_format = ri->addr_format;
        hints->src_addr = malloc(ri->src_addrlen);
        memcpy(hints->src_addr, ri->src_addr, ri->src_addrlen);
        hints->src_addrlen = ri->src_addrlen;
        if (ri->addr_format == FI_SOCKADDR_IN) ((struct sockaddr_in *)hints->src_addr)->sin_port = 0;
        else ((struct sockaddr_in6 *)hints->src_addr)->sin6_port = 0;
    } else if (ri->domain_attr->name) {
        hints->domain_attr->name = strdup(ri->domain_attr->name);
    }
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc) {
        why_off = "libfabric's udp provider does not serve the RDM endpoint's address";
        return NULL;
    }
    struct fi_info *mine = fi_dupinfo(list);
    fi_freeinfo(list);
    return mine;
}

static int open_dgram(void) {
    int rc;
    if ((rc = fi_fabric(dinfo->fabric_attr, &dfabric, NULL))) gasnetc_ofi_fail("fi_fabric (udp)", rc, -1);
    if ((rc = fi_domain(dfabric, dinfo, &ddomain, NULL))) gasnetc_ofi_fail("fi_domain (udp)", rc, -1);
    struct fi_av_attr av_attr;
    memset(&av_attr, 0, sizeof(av_attr));
    av_attr.type = FI_AV_TABLE;
    av_attr.count = gasneti_nodes < 64 ? gasneti_nodes : 64; /* grows: peers are inserted at first contact */
    if ((rc = fi_av_open(ddomain, &av_attr, &dav, NULL))) gasnetc_ofi_fail("fi_av_open (udp)", rc, -1);
    struct fi_cq_attr cq_attr;
    memset(&cq_attr, 0, sizeof(cq_attr));
    cq_attr.format = FI_CQ_FORMAT_MSG;
    cq_attr.wait_obj = FI_WAIT_NONE;
    cq_attr.size = 2 * DG_NRB;
    if ((rc = fi_cq_open(ddomain, &cq_attr, &dcq, NULL))) gasnetc_ofi_fail("fi_cq_open (udp)", rc, -1);
    if ((rc = fi_endpoint(ddomain, dinfo, &dep, NULL))) gasnetc_ofi_fail("fi_endpoint (udp)", rc, -1);
    if ((rc = fi_ep_bind(dep, &dav->fid, 0))) gasnetc_ofi_fail("fi_ep_bind (udp, address vector)", rc, -1);
    if ((rc = fi_ep_bind(dep, &dcq->fid, FI_TRANSMIT | FI_RECV))) gasnetc_ofi_fail("fi_ep_bind (udp, completion queue)", rc, -1);
    if ((rc = fi_enable(dep))) gasnetc_ofi_fail("fi_enable (udp)", rc, -1);
    return 0;
}

void gasnetc_ofi_dg_init(gasneti_bootstrap_t *boot) {
    const char *pn = gasnetc_ofi_info->fabric_attr->prov_name;
    int want = gasneti_getenv_yesno("GASNET_OFI_DGRAM", 1);
    const char *sw = gasneti_getenv("GASNET_OFI_DGRAM_SWITCH");
    if (sw && *sw) {
        char *end;
        long v = strtol(sw, &end, 10);
        if (!strcmp(sw, "never")) switch_after = UINT32_MAX;
        else if (*end || v < 1) gasneti_launch_error("GASNET_OFI_DGRAM_SWITCH=%s: expected a number >= 1 or \"never\"", sw);
        else switch_after = (uint32_t)v;
    }
    drop_every = (uint64_t)gasneti_getenv_int("GASNET_OFI_DGRAM_TEST_DROP", 0);
    nxmit = 0x9e3779b97f4a7c15ull ^ ((uint64_t)gasneti_mynode + 1);
    gasnetc_ofi_dg_follow = switch_after != UINT32_MAX;
    if (want && !strstr(pn, "tcp")) {
        want = 0;
        why_off = "the RDM provider holds no connection per peer";
    }
    if (want) dinfo = find_udp();
    dg_addr_t mine;
    memset(&mine, 0, sizeof(mine));
    if (dinfo) {
        open_dgram();
        size_t len = sizeof(mine.name);
        int rc = fi_getname(&dep->fid, mine.name, &len);
        if (rc) gasnetc_ofi_fail("fi_getname (udp)", rc, -1);
        mine.len = (uint32_t)len;
    }
    /* every rank takes part in the exchange, datagrams or not, so that the choice is the same */
    addr = calloc(gasneti_nodes, sizeof(dg_addr_t));
    if (!addr) gasneti_fatalerror("ofi-conduit: out of memory for %u datagram addresses", (unsigned)gasneti_nodes);
    boot->exchange(&mine, sizeof(mine), addr);
    gasnetc_ofi_dg_on = dinfo != NULL;
    for (gex_Rank_t r = 0; r < gasneti_nodes && gasnetc_ofi_dg_on; r++)
        if (!addr[r].len) {
            gasnetc_ofi_dg_on = 0; /* off on some rank: off everywhere */
            why_off = "off on another rank";
        }
    if (!gasnetc_ofi_dg_on) {
        free(addr);
        addr = NULL;
        gasnetc_ofi_dg_fini();
        return;
    }
    size_t max = dinfo->ep_attr->max_msg_size < DG_BUF_MAX ? dinfo->ep_attr->max_msg_size : DG_BUF_MAX;
    if (dinfo->tx_attr->inject_size < max) max = dinfo->tx_attr->inject_size;
    gasnetc_ofi_dg_max = (uint32_t)(max - HDR);
    rbytes = max;
    gasnetc_ofi_dg_conn = calloc(gasneti_nodes, 1);
    if (!gasnetc_ofi_dg_conn) gasneti_fatalerror("ofi-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    gasneti_rdg_init(&rdg, &ops, sizeof(fi_addr_t), "ofi-conduit's datagrams");
    gasneti_slots_init(&pool, DG_SLOTS, SLOT_OFF + 64, NULL, NULL);
    size_t stride = (R_OFF + max + 63) & ~(size_t)63;
    uint8_t *all = gasneti_net_malloc((size_t)DG_NRB * stride, "datagram receive buffers");
    for (int i = 0; i < DG_NRB; i++) {
        rb[i].buf = all + (size_t)i * stride;
        post(i);
    }
}

int gasnetc_ofi_dg_idle(void) { return !gasnetc_ofi_dg_on || gasneti_rdg_idle(&rdg); }

/* at shut-down: acknowledgements read, resends made (nothing delivered) */
void gasnetc_ofi_dg_drain(void) {
    if (!gasnetc_ofi_dg_on) return;
    gasnetc_ofi_dgmsg_t m[16];
    int n = gasnetc_ofi_dg_poll(m, 16);
    for (int k = 0; k < n; k++) post(m[k].idx);
}

void gasnetc_ofi_dg_fini(void) {
    if (!dep) return;
    fi_close(&dep->fid);
    fi_close(&dcq->fid);
    fi_close(&dav->fid);
    fi_close(&ddomain->fid);
    fi_close(&dfabric->fid);
    dep = NULL;
}

void gasnetc_ofi_dg_say_provider(void) {
    if (!gasnetc_ofi_dg_on) {
        fprintf(stderr, "ofi-conduit: datagrams off (%s): every AM by the RDM endpoint\n", why_off);
        return;
    }
    char sw[32], drop[96] = "";
    if (switch_after == UINT32_MAX) snprintf(sw, sizeof(sw), "never");
    else snprintf(sw, sizeof(sw), "after %u", (unsigned)switch_after);
    if (drop_every) snprintf(drop, sizeof(drop), ", one in %llu dropped (GASNET_OFI_DGRAM_TEST_DROP)", (unsigned long long)drop_every);
    fprintf(stderr,
            "ofi-conduit: datagrams: provider %s (FI_EP_DGRAM, domain %s) for AMs of up to %u bytes to peers without a "
            "connection; the RDM endpoint for a peer %s datagrams (GASNET_OFI_DGRAM_SWITCH)%s\n",
            dinfo->fabric_attr->prov_name, dinfo->domain_attr->name, (unsigned)gasnetc_ofi_dg_max, sw,
            drop);
}

void gasnetc_ofi_dg_say(void) {
    if (!gasnetc_ofi_dg_on) return;
    char buf[256];
    gasneti_rdg_say(&rdg, buf, sizeof(buf));
    fprintf(stderr,
            "ofi-conduit: rank %u datagrams: %s; %zu dropped on purpose, %zu refused for now; %zu peer(s) switched to the "
            "RDM endpoint after %u datagrams; %d datagram send slot(s) made\n",
            (unsigned)gasneti_mynode, buf, n_dropped, n_again, n_switched, (unsigned)switch_after, gasneti_slots_made(&pool));
}
