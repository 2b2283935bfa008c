/* gasneti_launch_coll.c: the services the launcher gives the ranks of a job over their
 * control connections: the bootstrap collectives (each rank's EXCH contribution; once all
 * have come, all of them in rank order to every rank), the agreement on leaving (EXITING,
 * PEER_EXITING, ALL_EXITING) and the relay of out-of-band messages (P2P). Layer: other
 * (launchers). */
#include "gasneti_launch.h"

#include <stdlib.h>
#include <string.h>

static void collective_done(gasneti_launch_t *L) {
    size_t total = 0;
    for (int i = 0; i < L->nranks; i++) total += L->ranks[i].clen;
    uint8_t *all = malloc(total ? total : 1);
    if (!all) abort();
    size_t off = 0;
    for (int i = 0; i < L->nranks; i++) {
        gasneti_launch_rank_t *rk = &L->ranks[i];
        if (rk->clen) memcpy(all + off, rk->contrib, rk->clen);
        off += rk->clen;
        free(rk->contrib);
        rk->contrib = NULL;
        rk->clen = 0;
        rk->contributed = 0;
    }
    L->ncontributed = 0;
    for (int i = 0; i < L->nranks; i++) gasneti_launch_send(L, i, CTRL_EXCH, all, (uint32_t)total);
    free(all);
}

int gasneti_launch_on_exch(gasneti_launch_t *L, int r, uint8_t *data, uint32_t len) {
    gasneti_launch_rank_t *rk = &L->ranks[r];
    if (rk->contributed) {
        free(data);
        gasneti_launch_rank_lost(L, r, "protocol error (two contributions to one collective)");
        return -1;
    }
    rk->contrib = data;
    rk->clen = len;
    rk->contributed = 1;
    if (++L->ncontributed == L->nranks) collective_done(L);
    return 0;
}

void gasneti_launch_on_exiting(gasneti_launch_t *L, int r, int32_t code, const uint8_t *data, uint32_t len) {
    gasneti_launch_rank_t *rk = &L->ranks[r];
    if (!rk->exiting) {
        rk->exiting = 1;
        rk->code = code;
        if (code && !L->first_nonzero) L->first_nonzero = code;
        L->nexiting++;
        /* the others learn that the job is ending, with the fewest barriers an exiting
         * rank started (a rank blocked in a later barrier joins the exit at once:
         * gasneti_join_peer_exit); sent again only when that drops */
        uint32_t started = 0;
        if (len >= 8) memcpy(&started, data + 4, 4);
        if (L->nranks > 1 && (L->nexiting == 1 || started < L->min_barriers)) {
            L->min_barriers = started;
            uint32_t cb[2] = {(uint32_t)code, started};
            for (int i = 0; i < L->nranks; i++)
                if (!L->ranks[i].exiting) gasneti_launch_send(L, i, CTRL_PEER_EXITING, cb, sizeof(cb));
        }
    }
    if (L->nexiting == L->nranks && !L->all_exit_sent) {
        L->all_exit_sent = 1;
        for (int i = 0; i < L->nranks; i++) gasneti_launch_send(L, i, CTRL_ALL_EXITING, NULL, 0);
    }
}

/* relayed with the sender in place of the destination */
int gasneti_launch_on_p2p(gasneti_launch_t *L, int r, uint8_t *data, uint32_t len) {
    uint32_t dest = UINT32_MAX, src = (uint32_t)r;
    if (len >= 4) memcpy(&dest, data, 4);
    if (dest >= (uint32_t)L->nranks) {
        gasneti_launch_rank_lost(L, r, "protocol error (an out-of-band message to no rank)");
        return -1;
    }
    memcpy(data, &src, 4);
    gasneti_launch_send(L, (int)dest, CTRL_P2P, data, len);
    return 0;
}
