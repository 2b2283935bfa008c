/* gasneti_launch_coll.c: the services the launcher gives the ranks of a job over their
 * control connections: the bootstrap collectives (each rank's EXCH contribution; once all
 * have come, all of them in rank order to every rank), the agreement on leaving (EXITING,
 * PEER_EXITING, ALL_EXITING). Out-of-band messages do not come here: ranks send them to
 * each other directly (gasneti_spawn_rank.c). Layer: other (launchers). */
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
    if (rk->contributed && !L->tree) {
        free(data);
        gasneti_launch_rank_lost(L, r, "protocol error (two contributions to one collective)");
        return -1;
    }
    if (L->tree) { /* over the tree: the engine sends on when its subtree is in */
        int rc = gasneti_tree_contribute(&L->coll, r, data, len);
        free(data);
        if (rc) gasneti_launch_abort(L, 1, "out of memory in a bootstrap collective");
        return rc;
    }
    rk->contrib = data;
    rk->clen = len;
    rk->contributed = 1;
    if (++L->ncontributed == L->nranks) collective_done(L);
    return 0;
}

/* A message to every rank of this node (to_exiting 0: only those not exiting) and every
 * child agent, which passes it on to its own. */
void gasneti_launch_tell_all(gasneti_launch_t *L, uint32_t type, const void *data, uint32_t len, int to_exiting) {
    for (int i = 0; i < L->nranks; i++)
        if (to_exiting || !L->ranks[i].exiting) gasneti_launch_send(L, i, type, data, len);
    for (int k = 0; k < L->nkids; k++) gasneti_launch_send_fd(&L->kids[k].fd, type, data, len);
}

/* One more rank of the job leaves normally (the launcher of the star or of the tree):
 * the others learn that the job is ending, with the fewest barriers an exiting rank
 * started (a rank blocked in a later barrier joins the exit at once:
 * gasneti_join_peer_exit); sent again only when that drops. When all have, ALL_EXITING. */
void gasneti_launch_job_exiting(gasneti_launch_t *L, int32_t code, uint32_t started) {
    L->nexiting++;
    if (L->jobsize > 1 && (L->nexiting == 1 || started < L->min_barriers)) {
        L->min_barriers = started;
        uint32_t cb[2] = {(uint32_t)code, started};
        gasneti_launch_tell_all(L, CTRL_PEER_EXITING, cb, sizeof(cb), 0);
    }
    if (L->nexiting == L->jobsize && !L->all_exit_sent) {
        L->all_exit_sent = 1;
        gasneti_launch_tell_all(L, CTRL_ALL_EXITING, NULL, 0, 1);
    }
}

void gasneti_launch_on_exiting(gasneti_launch_t *L, int r, int32_t code, const uint8_t *data, uint32_t len) {
    gasneti_launch_rank_t *rk = &L->ranks[r];
    if (rk->exiting) return;
    rk->exiting = 1;
    rk->code = code;
    if (code && !L->first_nonzero) L->first_nonzero = code;
    uint32_t started = 0;
    if (len >= 8) memcpy(&started, data + 4, 4);
    if (L->tree && L->node) { /* the root counts */
        int32_t cb[2] = {code, (int32_t)started};
        gasneti_launch_send_fd(&L->parent_fd, CTRL_EXITING, cb, sizeof(cb));
        return;
    }
    gasneti_launch_job_exiting(L, code, started);
}
