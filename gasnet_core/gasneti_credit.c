/* gasneti_credit.c: request credits of the network conduits that use them (mpi, ofi):
 * set-up and the standalone credit messages; the protocol and the per-message calls are
 * in gasneti_credit.h. Part of the conduit toolkit. Layer: core, for network conduits. */
#include "gasneti_credit.h"

#include <stdlib.h>

void gasneti_credits_init(gasneti_credits_t *c, int max) {
    c->peer = calloc(gasneti_nodes, sizeof(gasneti_credit_peer_t));
    c->due = calloc(gasneti_nodes, sizeof(gex_Rank_t));
    if (!c->peer || !c->due) gasneti_fatalerror("%s-conduit: out of memory for %u peers", GASNETC_NAME, (unsigned)gasneti_nodes);
    c->ndue = 0;
    c->max = max;
    c->half = max / 2;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) c->peer[r].credits = max;
}

void gasneti_credit_flush(gasneti_credits_t *c, int (*send)(gex_Rank_t r, unsigned n)) {
    size_t keep = 0;
    for (size_t i = 0; i < c->ndue; i++) {
        gex_Rank_t r = c->due[i];
        gasneti_credit_peer_t *p = &c->peer[r];
        if (p->owed < c->half) { /* a message carried them */
            p->listed = 0;
            continue;
        }
        if (send(r, (unsigned)p->owed)) {
            c->due[keep++] = r;
            continue;
        }
        p->owed = 0;
        p->listed = 0;
    }
    c->ndue = keep;
}

/* The state dump's words on peer r's credits (a conduit's gasneti_diag_conduit_t.peer):
 * returns 1 if requests to r are not yet acknowledged (credits below max). No lock. */
int gasneti_credit_diag(const gasneti_credits_t *c, gex_Rank_t r, char *buf, size_t len) {
    int held = __atomic_load_n(&c->peer[r].credits, __ATOMIC_RELAXED);
    int owed = __atomic_load_n(&c->peer[r].owed, __ATOMIC_RELAXED);
    if (held >= c->max && !owed) return 0;
    snprintf(buf, len, "credits: %d of %d held (%d requests not yet taken by it%s), %d owed to it", held, c->max,
             c->max - held, held <= 0 ? ": out of credits" : "", owed);
    return held < c->max;
}
