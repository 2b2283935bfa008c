/* gasnete_coll1.c: the GASNet-1 prototype collectives of gasnet_coll.h (gasnet_coll_*):
 * broadcast, scatter, gather, gather_all and exchange over a team (GASNET_TEAM_ALL or
 * any gex_TM_t team), blocking and _nb, with their flags, and the handle syncs; the
 * GASNet-1 team barrier gasnet_coll_barrier[_notify,_wait,_try] and the tuning-state and
 * profile dumps (docs/coll1.md).
 * Layer: extended. The data moves by gasnete_coll.c's trees of AM Mediums
 * (gasnete_coll_move), so every conduit has them; a handle is a gex_Event_t.
 *
 * What the flags mean here (docs/coll1.md):
 *   - every rank reads and writes only the addresses it passed itself, so SINGLE and
 *     LOCAL work alike, and no memory needs to be in the segment (the *_IN_SEGMENT flags
 *     are promises that debug builds check);
 *   - a block is read from its source and written to its destination only by their owners,
 *     once each has entered the call: that is IN_MYSYNC, and stronger than IN_NOSYNC;
 *     IN_ALLSYNC adds a barrier before anything is read or written;
 *   - a handle is complete once this rank's own source and destination are done: that is
 *     OUT_MYSYNC, and stronger than OUT_NOSYNC; OUT_ALLSYNC adds a barrier after, so
 *     that it is complete once every rank's part is.
 * Debug builds stop a call whose flags lack one IN, one OUT or one of SINGLE/LOCAL (or have
 * two of a kind, or unknown bits); release builds take the strongest reading instead. */
#include "gasnete_internal.h"

#include <gasnet_coll.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define IN_FLAGS (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC)
#define OUT_FLAGS (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC)
#define ADDR_FLAGS (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL)
#define ALL_FLAGS                                                                                                      \
    (IN_FLAGS | OUT_FLAGS | ADDR_FLAGS | GASNET_COLL_AGGREGATE | GASNET_COLL_DST_IN_SEGMENT |                          \
     GASNET_COLL_SRC_IN_SEGMENT)

static inline int one_bit(int x) { return x && !(x & (x - 1)); }

static void check_flags(int flags, const char *call) {
    if (flags & ~ALL_FLAGS)
        gasneti_fatalerror("%s: flags 0x%x have bits 0x%x that are no GASNET_COLL_* flag", call, (unsigned)flags,
                           (unsigned)(flags & ~ALL_FLAGS));
    if (!one_bit(flags & IN_FLAGS))
        gasneti_fatalerror("%s: flags 0x%x must hold exactly one of GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC and "
                           "GASNET_COLL_IN_ALLSYNC",
                           call, (unsigned)flags);
    if (!one_bit(flags & OUT_FLAGS))
        gasneti_fatalerror("%s: flags 0x%x must hold exactly one of GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC "
                           "and GASNET_COLL_OUT_ALLSYNC",
                           call, (unsigned)flags);
    if (!one_bit(flags & ADDR_FLAGS))
        gasneti_fatalerror("%s: flags 0x%x must hold exactly one of GASNET_COLL_SINGLE and GASNET_COLL_LOCAL", call,
                           (unsigned)flags);
}

/* A range this rank reads or writes: not NULL when it has bytes, and in the segment of the
 * team's endpoint when the flags say so. */
static void check_range(gex_TM_t tm, const void *p, size_t len, int in_seg, const char *what, const char *call) {
    if (!len) return;
    if (!p) gasneti_fatalerror("%s: %s is NULL for %zu bytes", call, what, len);
    if (!in_seg) return;
    gex_Segment_t seg = tm->_ep->_segment;
    uintptr_t a = (uintptr_t)p, lo = seg ? (uintptr_t)seg->_addr : 0, hi = seg ? lo + seg->_size : 0;
    if (!seg || a < lo || a > hi || len > hi - a)
        gasneti_fatalerror("%s: %s [%p, %p) is not in the segment [%p, %p), as GASNET_COLL_%s_IN_SEGMENT says", call,
                           what, p, (void *)(a + len), (void *)lo, (void *)hi, what[0] == 's' ? "SRC" : "DST");
}

/* The barriers the flags ask for: before unless IN is NOSYNC or MYSYNC, after unless OUT
 * is (a missing flag reads as ALLSYNC, the strongest). */
static int barriers_of(int flags) {
    int sync = 0, in = flags & IN_FLAGS, out = flags & OUT_FLAGS;
    if (!in || (in & GASNET_COLL_IN_ALLSYNC)) sync |= GASNETE_COLL_BARRIER_BEFORE;
    if (!out || (out & GASNET_COLL_OUT_ALLSYNC)) sync |= GASNETE_COLL_BARRIER_AFTER;
    return sync;
}

/* The handle of the operations this thread started with GASNET_COLL_AGGREGATE since its
 * last call without it (NULL: none). Per thread: in PAR, two threads may start collectives
 * on two teams at once, and neither may take the other's operations into its handle. */
static GASNETI_THREADLOCAL gex_Event_t aggregate;

/* src_len and dst_len: the bytes of src and dst this rank uses (0: it uses none) */
static gasnet_coll_handle_t coll(gasnet_team_handle_t team, int what, gasnet_image_t root, void *dst, size_t dst_len,
                                 const void *src, size_t src_len, size_t nbytes, int flags, const char *call) {
    GASNETI_CHECK_INIT(call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (!team || !team->_size) gasneti_fatalerror("%s: invalid team (GASNET_TEAM_ALL before initialization?)", call);
    /* (the root image is checked, in every build, by gasnete_coll_move) */
    if (GASNETI_DEBUG) {
        check_flags(flags, call);
        check_range(team, src, src_len, flags & GASNET_COLL_SRC_IN_SEGMENT, "src", call);
        check_range(team, dst, dst_len, flags & GASNET_COLL_DST_IN_SEGMENT, "dst", call);
    }
    gex_Event_t prev = aggregate;
    aggregate = NULL;
    gex_Event_t ev = gasnete_coll_move(team, what, (gex_Rank_t)root, dst, src, nbytes, barriers_of(flags), prev, call);
    if (!(flags & GASNET_COLL_AGGREGATE)) return ev;
    aggregate = ev;
    return GASNET_COLL_INVALID_HANDLE;
}

#define ME(team) ((team) ? (team)->_rank : 0)
#define N(team) ((size_t)((team) ? (team)->_size : 0))

gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                                              size_t nbytes, int flags) {
    return coll(team, GASNETE_COLL_BROADCAST, srcimage, dst, nbytes, src, ME(team) == srcimage ? nbytes : 0, nbytes,
                flags, "gasnet_coll_broadcast");
}

gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                                            size_t nbytes, int flags) {
    return coll(team, GASNETE_COLL_SCATTER, srcimage, dst, nbytes, src, ME(team) == srcimage ? N(team) * nbytes : 0,
                nbytes, flags, "gasnet_coll_scatter");
}

gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src,
                                           size_t nbytes, int flags) {
    return coll(team, GASNETE_COLL_GATHER, dstimage, dst, ME(team) == dstimage ? N(team) * nbytes : 0, src, nbytes,
                nbytes, flags, "gasnet_coll_gather");
}

gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                               int flags) {
    return coll(team, GASNETE_COLL_GATHER_ALL, 0, dst, N(team) * nbytes, src, nbytes, nbytes, flags,
                "gasnet_coll_gather_all");
}

gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                             int flags) {
    return coll(team, GASNETE_COLL_EXCHANGE, 0, dst, N(team) * nbytes, src, N(team) * nbytes, nbytes, flags,
                "gasnet_coll_exchange");
}

/* The blocking forms: the _nb call without AGGREGATE (it would leave nothing to wait
 * for), so they also complete any aggregate open before them. */
void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src, size_t nbytes,
                           int flags) {
    gex_Event_Wait(gasnet_coll_broadcast_nb(team, dst, srcimage, src, nbytes, flags & ~GASNET_COLL_AGGREGATE));
}

void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src, size_t nbytes,
                         int flags) {
    gex_Event_Wait(gasnet_coll_scatter_nb(team, dst, srcimage, src, nbytes, flags & ~GASNET_COLL_AGGREGATE));
}

void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src, size_t nbytes,
                        int flags) {
    gex_Event_Wait(gasnet_coll_gather_nb(team, dstimage, dst, src, nbytes, flags & ~GASNET_COLL_AGGREGATE));
}

void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes, int flags) {
    gex_Event_Wait(gasnet_coll_gather_all_nb(team, dst, src, nbytes, flags & ~GASNET_COLL_AGGREGATE));
}

void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes, int flags) {
    gex_Event_Wait(gasnet_coll_exchange_nb(team, dst, src, nbytes, flags & ~GASNET_COLL_AGGREGATE));
}

/* ---- syncs: as GASNet-1's gasnet_{wait,try}_syncnb*, the try forms poll first ---- */
void gasnet_coll_wait_sync(gasnet_coll_handle_t handle) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_coll_wait_sync");
    gex_Event_Wait(handle);
}

int gasnet_coll_try_sync(gasnet_coll_handle_t handle) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_coll_try_sync");
    gasneti_AMPoll();
    return gex_Event_Test(handle) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *handles, size_t numhandles) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_coll_wait_sync_all");
    gex_Event_WaitAll(handles, numhandles, 0);
}

int gasnet_coll_try_sync_all(gasnet_coll_handle_t *handles, size_t numhandles) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_coll_try_sync_all");
    gasneti_AMPoll();
    return gex_Event_TestAll(handles, numhandles, 0) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *handles, size_t numhandles) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_coll_wait_sync_some");
    gex_Event_WaitSome(handles, numhandles, 0);
}

int gasnet_coll_try_sync_some(gasnet_coll_handle_t *handles, size_t numhandles) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_coll_try_sync_some");
    gasneti_AMPoll();
    return gex_Event_TestSome(handles, numhandles, 0) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

/* ---- the GASNet-1 team barrier: gasnet_barrier_* on any team. On GASNET_TEAM_ALL it is
 * gasnet_barrier_* itself (one barrier, whichever name the client calls it by). On
 * another team, notify starts an all-gather of every member's (flags, id) over the team
 * (gasnete_coll.c), which no member completes before every member has notified; wait
 * merges the pairs as the primordial barrier does: a mismatch when any member passed
 * GASNET_BARRIERFLAG_MISMATCH, when two named ids differ, or when this member's wait
 * differs from its notify. UNNAMED, like ANONYMOUS, names nothing. ---- */
typedef struct {
    int flags, id;
} bar1_pair_t;
typedef struct {
    bar1_pair_t mine, sent; /* as notified; as contributed (UNNAMED sent as ANONYMOUS) */
    bar1_pair_t *all;       /* [team size] */
    gex_Event_t ev;
} bar1_t;

#define BAR1_FLAGS (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH | GASNET_BARRIERFLAG_UNNAMED)

static void bar1_team_check(gasnet_team_handle_t team, const char *call) {
    GASNETI_CHECK_INIT(call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (!team || !team->_size) gasneti_fatalerror("%s: invalid team (GASNET_TEAM_ALL before initialization?)", call);
    if (team->_flags & GASNETI_TM_PAIR) gasneti_fatalerror("%s: a gex_TM_Pair() value is not a team", call);
}

void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags) {
    bar1_team_check(team, "gasnet_coll_barrier_notify");
    if (team == gasneti_tm0) {
        gasnet_barrier_notify(id, flags);
        return;
    }
    if (team->_bar1) gasneti_fatalerror("gasnet_coll_barrier_notify: called twice on a team without a wait between");
    if (flags & ~BAR1_FLAGS) gasneti_fatalerror("gasnet_coll_barrier_notify: unknown flags 0x%x", (unsigned)flags);
    bar1_t *b = calloc(1, sizeof *b);
    if (b) b->all = malloc((size_t)team->_size * sizeof *b->all);
    if (!b || !b->all) gasneti_fatalerror("gasnet_coll_barrier_notify: out of memory for a team of %u",
                                          (unsigned)team->_size);
    b->mine = (bar1_pair_t){flags, id};
    b->sent = b->mine;
    if (flags & GASNET_BARRIERFLAG_UNNAMED)
        b->sent.flags = (flags & ~GASNET_BARRIERFLAG_UNNAMED) | GASNET_BARRIERFLAG_ANONYMOUS;
    b->ev = gasnete_coll_gather_all(team, b->all, &b->sent, sizeof b->sent);
    team->_bar1 = b;
}

/* the barrier of team is complete: its outcome for a wait or try with (id, flags) */
static int bar1_finish(gasnet_team_handle_t team, int id, int flags) {
    bar1_t *b = team->_bar1;
    const int named = !(flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED));
    int mismatch = flags != b->mine.flags || (named && id != b->mine.id);
    int have_name = 0, name = 0;
    for (gex_Rank_t r = 0; r < team->_size; r++) {
        const bar1_pair_t *p = &b->all[r];
        if (p->flags & GASNET_BARRIERFLAG_MISMATCH) mismatch = 1;
        if (p->flags & GASNET_BARRIERFLAG_ANONYMOUS) continue;
        if (have_name && p->id != name) mismatch = 1;
        have_name = 1, name = p->id;
    }
    free(b->all);
    free(b);
    team->_bar1 = NULL;
    return mismatch ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK;
}

static bar1_t *bar1_pending(gasnet_team_handle_t team, const char *call) {
    if (!team->_bar1) gasneti_fatalerror("%s: called without a matching gasnet_coll_barrier_notify", call);
    return team->_bar1;
}

int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags) {
    bar1_team_check(team, "gasnet_coll_barrier_wait");
    if (team == gasneti_tm0) return gasnet_barrier_wait(id, flags);
    gex_Event_Wait(bar1_pending(team, "gasnet_coll_barrier_wait")->ev);
    return bar1_finish(team, id, flags);
}

int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags) {
    bar1_team_check(team, "gasnet_coll_barrier_try");
    if (team == gasneti_tm0) return gasnet_barrier_try(id, flags);
    bar1_t *b = bar1_pending(team, "gasnet_coll_barrier_try");
    gasneti_AMPoll();
    if (gex_Event_Test(b->ev)) return GASNET_ERR_NOT_READY;
    return bar1_finish(team, id, flags);
}

int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags) {
    gasnet_coll_barrier_notify(team, id, flags);
    return gasnet_coll_barrier_wait(team, id, flags);
}

void gasnete_coll1_team_free(gex_TM_t tm) {
    bar1_t *b = tm->_bar1;
    if (!b) return;
    gex_Event_Wait(b->ev); /* its gather writes b->all until it completes */
    free(b->all);
    free(b);
    tm->_bar1 = NULL;
}

/* ---- gasnet_coll_dumpTuningState, gasnet_coll_dumpProfile: this library keeps no tuning
 * state and no collective profile, so rank 0 of the team writes a document that says so
 * (an empty XML element naming the team size and conduit) to `filename`; the other ranks
 * and a NULL filename write nothing. Neither call communicates; a file that cannot be
 * written is reported on stderr and otherwise ignored. ---- */
static void dump_empty(const char *filename, gasnet_team_handle_t team, const char *element, const char *call) {
    bar1_team_check(team, call);
    if (!filename || team->_rank != 0) return;
    FILE *f = fopen(filename, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", call, filename, strerror(errno));
        return;
    }
    fprintf(f, "<?xml version=\"1.0\"?>\n<!-- %s: this library keeps no collective tuning or profile data -->\n"
               "<%s conduit=\"%s\" team_size=\"%u\"/>\n",
            call, element, GASNET_CONDUIT_NAME_STR, (unsigned)team->_size);
    if (fclose(f) != 0) fprintf(stderr, "%s: cannot write %s: %s\n", call, filename, strerror(errno));
}

void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team) {
    dump_empty(filename, team, "gasnet_coll_tuning", "gasnet_coll_dumpTuningState");
}

void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team) {
    dump_empty(filename, team, "gasnet_coll_profile", "gasnet_coll_dumpProfile");
}
