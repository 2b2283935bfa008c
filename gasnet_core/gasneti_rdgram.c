/* gasneti_rdgram.c: the reliable-datagram protocol of gasneti_rdgram.h (numbers, window,
 * ACK/NAK, resends, give-up). Layer: core, for network conduits (the conduit toolkit). */
#include "gasneti_rdgram.h"
#include "gasneti_netkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ACK_EVERY 8 /* a lone ACK once this many are owed */
static const uint64_t ACK_DELAY = 500000, RTO = 50000000, RTO_MAX = 1000000000; /* ns */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gasneti_rdg_init(gasneti_rdg_t *d, const gasneti_rdg_ops_t *ops, size_t extra, const char *what) {
    memset(d, 0, sizeof(*d));
    d->ops = ops;
    d->extra = extra;
    d->what = what;
    d->give_up = 60.0;
    const char *v = gasneti_getenv("GASNET_REQUESTTIMEOUT_MAX");
    if (v && *v) {
        char *end;
        double s = strtod(v, &end);
        if (*end || s < 0) gasneti_launch_error("GASNET_REQUESTTIMEOUT_MAX=%s: expected a number of seconds >= 0", v);
        d->give_up = s; /* 0: never */
    }
    gex_Rank_t n = gasneti_nodes;
    d->peer = calloc(n, sizeof(gasneti_rdg_peer_t *));
    d->active = calloc(n, sizeof(gex_Rank_t));
    d->ackdue = calloc(n, sizeof(gex_Rank_t));
    if (!d->peer || !d->active || !d->ackdue) gasneti_fatalerror("%s: out of memory for %u peers", what, (unsigned)n);
}

gasneti_rdg_peer_t *gasneti_rdg_make(gasneti_rdg_t *d, gex_Rank_t r) {
    gasneti_rdg_peer_t *p = calloc(1, sizeof(*p) + d->extra);
    if (!p) gasneti_fatalerror("%s: out of memory for a peer's state", d->what);
    for (int k = 0; k < GASNETI_RDG_WIN; k++) p->win[k] = -1;
    if (d->ops->made) d->ops->made(r, p);
    __atomic_store_n(&d->peer[r], p, __ATOMIC_RELEASE);
    d->n_peers++;
    return p;
}

static void list_add(gex_Rank_t *list, int *n, uint8_t *flag, gex_Rank_t r) {
    if (*flag) return;
    *flag = 1;
    list[(*n)++] = r;
}

/* an ACK or NAK to r now (0: no room) */
static int control(gasneti_rdg_t *d, gex_Rank_t r, gasneti_rdg_peer_t *p, uint8_t kind) {
    gasneti_rdg_hdr_t h = {0, p->expect, kind, 0, 0};
    if (d->ops->control(r, p, &h)) return 0;
    p->owed = 0;
    p->owed_since = 0;
    if (kind == GASNETI_RDG_ACK) d->n_ack++;
    else d->n_nak++;
    return 1;
}

uint32_t gasneti_rdg_send(gasneti_rdg_t *d, gex_Rank_t r, int slot) {
    gasneti_rdg_peer_t *p = gasneti_rdg_peer(d, r);
    gasneti_rdg_hdr_t h = {p->next, p->expect, GASNETI_RDG_DATA, 0, 0};
    memcpy(d->ops->hdr(slot), &h, sizeof(h));
    p->win[p->next % GASNETI_RDG_WIN] = (int16_t)slot;
    if (p->next == p->base) {
        p->deadline = 0; /* armed by the next progress */
        p->progress_at = 0;
        p->retx = 0;
    }
    p->next++;
    p->owed = 0; /* (carried) */
    p->owed_since = 0;
    d->ops->xmit(r, p, slot); /* no room now: as if lost, resent at the deadline */
    list_add(d->active, &d->nactive, &p->active, r);
    d->n_data++;
    return ++p->n_sent;
}

/* the peer acknowledged everything before ack */
static void acked_to(gasneti_rdg_t *d, gasneti_rdg_peer_t *p, uint16_t ack) {
    if ((uint16_t)(ack - p->base) > (uint16_t)(p->next - p->base) || ack == p->base) return;
    for (uint16_t s = p->base; s != ack; s++) {
        int slot = p->win[s % GASNETI_RDG_WIN];
        p->win[s % GASNETI_RDG_WIN] = -1;
        d->ops->acked(slot);
    }
    p->base = ack;
    p->retx = 0;
    p->deadline = 0;
    p->progress_at = 0;
}

/* resend everything unacknowledged to r (as the network has room) */
static void resend(gasneti_rdg_t *d, gex_Rank_t r, gasneti_rdg_peer_t *p) {
    for (uint16_t s = p->base; s != p->next; s++) {
        int slot = p->win[s % GASNETI_RDG_WIN];
        gasneti_rdg_hdr_t *h = d->ops->hdr(slot), c;
        memcpy(&c, h, sizeof(c));
        c.ack = p->expect;
        memcpy(h, &c, sizeof(c));
        if (d->ops->xmit(r, p, slot)) break;
        d->n_resent++;
    }
    p->owed = 0;
    p->owed_since = 0;
}

int gasneti_rdg_recv(gasneti_rdg_t *d, gex_Rank_t src, const gasneti_rdg_hdr_t *hp) {
    gasneti_rdg_hdr_t h;
    memcpy(&h, hp, sizeof(h));
    if (h.kind < GASNETI_RDG_DATA || h.kind > GASNETI_RDG_NAK) gasneti_wire_bad("a datagram of no known kind", src);
    gasneti_rdg_peer_t *p = gasneti_rdg_peer(d, src);
    acked_to(d, p, h.ack);
    if (h.kind == GASNETI_RDG_NAK && p->base != p->next) resend(d, src, p);
    if (h.kind != GASNETI_RDG_DATA) return GASNETI_RDG_DROP;
    if (h.seq == p->expect) {
        p->expect++;
        p->owed++;
        list_add(d->ackdue, &d->nackdue, &p->ackdue, src);
        return GASNETI_RDG_TAKE;
    }
    if ((uint16_t)(p->expect - h.seq) <= GASNETI_RDG_WIN) { /* a repeat: our ACK was lost or late */
        d->n_dup++;
        p->owed = ACK_EVERY;
        list_add(d->ackdue, &d->nackdue, &p->ackdue, src);
        return GASNETI_RDG_DROP;
    }
    d->n_gap++; /* a gap: one was dropped */
    if (p->naked != (uint16_t)(p->expect + 1) && control(d, src, p, GASNETI_RDG_NAK)) p->naked = (uint16_t)(p->expect + 1);
    return GASNETI_RDG_GAP;
}

void gasneti_rdg_progress_slow(gasneti_rdg_t *d) {
    uint64_t now = now_ns();
    for (int k = 0; k < d->nackdue; k++) {
        gex_Rank_t r = d->ackdue[k];
        gasneti_rdg_peer_t *p = d->peer[r];
        if (p->owed && !p->owed_since) p->owed_since = now;
        if (p->owed && (p->owed >= ACK_EVERY || now - p->owed_since >= ACK_DELAY) && !control(d, r, p, GASNETI_RDG_ACK))
            continue;
        if (p->owed) continue;
        p->ackdue = 0;
        d->ackdue[k--] = d->ackdue[--d->nackdue];
    }
    for (int k = 0; k < d->nactive; k++) {
        gex_Rank_t r = d->active[k];
        gasneti_rdg_peer_t *p = d->peer[r];
        if (p->base == p->next) {
            p->active = 0;
            d->active[k--] = d->active[--d->nactive];
            continue;
        }
        if (!p->progress_at) p->progress_at = now;
        if (!p->deadline) p->deadline = now + RTO;
        if (now < p->deadline) continue;
        if (d->give_up > 0 && (double)(now - p->progress_at) * 1e-9 > d->give_up) {
            char why[160];
            snprintf(why, sizeof(why),
                     "it acknowledged none of %u datagram(s) for %.0f s (GASNET_REQUESTTIMEOUT_MAX): "
                     "gone, stopped or unreachable",
                     (unsigned)(uint16_t)(p->next - p->base), d->give_up);
            gasneti_peer_fail(d->what, why, r);
        }
        resend(d, r, p);
        p->retx = p->retx < 20 ? p->retx + 1 : p->retx;
        uint64_t rto = RTO << (p->retx < 5 ? p->retx : 5);
        p->deadline = now + (rto < RTO_MAX ? rto : RTO_MAX);
    }
}

void gasneti_rdg_say(const gasneti_rdg_t *d, char *buf, size_t len) {
    snprintf(buf, len,
             "%zu AM(s) sent over datagrams to %zu peer(s) (%zu resent), %zu ACK(s) and %zu NAK(s) alone, %zu repeat(s) "
             "and %zu gap(s) dropped",
             d->n_data, d->n_peers, d->n_resent, d->n_ack, d->n_nak, d->n_dup, d->n_gap);
}
