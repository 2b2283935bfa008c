/* gasnete_team.c: team creation and destruction: gex_TM_Split, gex_TM_Dup, gex_TM_Create,
 * gex_TM_Destroy, gex_TM_Pair, and gex_EP_PublishBoundSegment (collective over a team).
 * Layer: extended. A member of a team is an endpoint (jobrank, endpoint index).
 * A team is a gex_TM_t with its members' jobranks (NULL when rank == jobrank for the
 * whole job) and an id that names it in collective messages (gasnete_coll.c). The id is
 * computed by every member alike from the parent's id, the number of teams created from
 * the parent so far and the color, so creating a team needs no agreement beyond the
 * all-gather of (color, key) that Split does anyway; Dup needs no communication at all.
 * Two live teams of one process with the same id would confuse their messages: that is
 * checked at creation (a fatal error; the chance is about 2^-32 per pair of teams).
 * Scratch space: this implementation needs none. The SCRATCH_SIZE queries answer 0; space
 * a client grants anyway is remembered (as an address, an offset given with
 * GEX_FLAG_SCRATCH_SEG_OFFSET converted) and handed back by gex_TM_Destroy, which returns
 * non-zero exactly when it writes it. */
#include "gasnete_internal.h"

#include <gasnet_coll.h>
#include <stdlib.h>
#include <string.h>

/* ---- live teams of this process, by (id, rank): a team created by gex_TM_Create may
 * hold several endpoints of one process, each its own gex_TM_t with the same id ---- */
typedef struct {
    uint32_t id;
    gex_Rank_t rank;
} live_t;
static live_t *live;
static size_t n_live, cap_live;
static gex_HSL_t ids_lock = GEX_HSL_INITIALIZER;

static void id_register(uint32_t id, gex_Rank_t rank, const char *call) {
    gex_HSL_Lock(&ids_lock);
    for (size_t i = 0; i < n_live; i++)
        if (live[i].id == id && live[i].rank == rank)
            gasneti_fatalerror("%s: the new team's id 0x%08x is already in use by another team of this process "
                               "(a hash collision; destroying and recreating either team avoids it)", call, (unsigned)id);
    if (n_live == cap_live) {
        cap_live = cap_live ? 2 * cap_live : 16;
        live = realloc(live, cap_live * sizeof *live);
        if (!live) gasneti_fatalerror("%s: out of memory", call);
    }
    live[n_live++] = (live_t){id, rank};
    gex_HSL_Unlock(&ids_lock);
}

static void id_unregister(uint32_t id, gex_Rank_t rank) {
    gex_HSL_Lock(&ids_lock);
    for (size_t i = 0; i < n_live; i++)
        if (live[i].id == id && live[i].rank == rank) {
            live[i] = live[--n_live];
            break;
        }
    gex_HSL_Unlock(&ids_lock);
}

static uint32_t team_id(const struct gasneti_tm_s *parent, uint32_t nth, uint64_t color) {
    uint64_t h = ((uint64_t)parent->_id << 32) ^ ((uint64_t)nth * 0x9E3779B97F4A7C15ull) ^ (color << 7);
    h ^= h >> 33, h *= 0xFF51AFD7ED558CCDull, h ^= h >> 33, h *= 0xC4CEB9FE1A85EC53ull, h ^= h >> 33;
    uint32_t id = (uint32_t)h;
    return id ? id : 1; /* 0 is the primordial team */
}

static void check_team(gex_TM_t tm, const char *call) {
    GASNETI_CHECK_INIT(call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (!tm) gasneti_fatalerror("%s: GEX_TM_INVALID is not a team", call);
    if (tm->_flags & GASNETI_TM_PAIR) gasneti_fatalerror("%s: a gex_TM_Pair() value is not a team", call);
}

/* a team of `size` endpoints (jobranks jr[], endpoint indices ep[], both malloc'ed and
 * kept or freed here), the local endpoint `local` at rank `me` */
static gex_TM_t new_team(gex_EP_t local, gex_Rank_t *jr, gex_EP_Index_t *ep, gex_Rank_t size, gex_Rank_t me,
                         uint32_t id, void *scratch, size_t scratch_len, const char *call) {
    gex_TM_t tm = calloc(1, sizeof(*tm));
    if (!tm) gasneti_fatalerror("%s: out of memory for a team of %u", call, (unsigned)size);
    int identity = size == gasneti_nodes, ep0 = 1;
    for (gex_Rank_t i = 0; i < size; i++) {
        if (jr[i] != i) identity = 0;
        if (ep[i]) ep0 = 0;
    }
    if (identity) {
        free(jr);
        jr = NULL;
    }
    if (ep0) {
        free(ep);
        ep = NULL;
    }
    tm->_ep = local;
    tm->_rank = me;
    tm->_size = size;
    gasneti_tm_nbr_init(tm);
    tm->_jobranks = jr;
    tm->_epidx = ep;
    tm->_id = id;
    tm->_scratch.gex_addr = scratch;
    tm->_scratch.gex_len = scratch ? scratch_len : 0;
    id_register(id, me, call);
    return tm;
}

/* The scratch space a client grants a new team whose endpoint is ep: none with
 * GEX_FLAG_TM_NO_SCRATCH (the address is then ignored, as the released text says) or a
 * NULL address; with GEX_FLAG_SCRATCH_SEG_OFFSET, `addr` is an offset into ep's bound
 * segment (0 is a valid one) and the address is kept. NULL: nothing granted, so that
 * gex_TM_Destroy returns non-zero exactly when the client granted space. A size of 0 with
 * an address (which the released text forbids, but which follows our SCRATCH_SIZE answer
 * of 0: UPC++ 2020.10 allocates that much and passes it) is still a grant: the client
 * gets its address back from gex_TM_Destroy, to free it. */
static void *granted_scratch(gex_EP_t ep, void *addr, size_t size, gex_Flags_t flags, const char *call) {
    if (flags & GEX_FLAG_TM_NO_SCRATCH) return NULL;
    if (!(flags & GEX_FLAG_SCRATCH_SEG_OFFSET)) return addr;
    gex_Segment_t seg = ep->_segment;
    uintptr_t off = (uintptr_t)addr;
    if (!seg) gasneti_fatalerror("%s: GEX_FLAG_SCRATCH_SEG_OFFSET, but endpoint %u has no bound segment", call,
                                 (unsigned)ep->_index);
    if (off > seg->_size || size > seg->_size - off)
        gasneti_fatalerror("%s: scratch [offset 0x%zx, +%zu bytes) is outside the bound segment (%zu bytes) of "
                           "endpoint %u", call, (size_t)off, size, (size_t)seg->_size, (unsigned)ep->_index);
    return (char *)seg->_addr + off;
}

/* a team of `size` members of parent (their parent ranks in prank[]), this process at `me` */
static gex_TM_t make_team(gex_TM_t parent, const gex_Rank_t *prank, gex_Rank_t size, gex_Rank_t me, uint32_t id,
                          void *scratch, size_t scratch_len, const char *call) {
    gex_Rank_t *jr = malloc(size * sizeof *jr);
    gex_EP_Index_t *ep = malloc(size * sizeof *ep);
    if (!jr || !ep) gasneti_fatalerror("%s: out of memory for a team of %u", call, (unsigned)size);
    for (gex_Rank_t i = 0; i < size; i++) {
        jr[i] = gasneti_tm_jobrank(parent, prank[i]);
        ep[i] = gasneti_tm_epidx(parent, prank[i]);
    }
    return new_team(parent->_ep, jr, ep, size, me, id, scratch, scratch_len, call);
}

typedef struct {
    int32_t member, color, key;
} split_info_t;

/* a member of the new team: its key, then its parent rank (the tie-break) */
typedef struct {
    int32_t key;
    gex_Rank_t prank;
} split_member_t;

static int by_key(const void *a, const void *b) {
    const split_member_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->prank < y->prank ? -1 : x->prank > y->prank;
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent, int color, int key, void *scratch_addr,
                    size_t scratch_size, gex_Flags_t flags) {
    check_team(parent, "gex_TM_Split");
    if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED)) return 0;
    if (new_tm_p && color < 0) gasneti_fatalerror("gex_TM_Split: color %d is negative", color);
    uint32_t nth = parent->_splits++;
    gex_Rank_t n = parent->_size;
    split_info_t mine = {new_tm_p != NULL, color, key};
    split_info_t *all = malloc(n * sizeof *all);
    split_member_t *sel = malloc(n * sizeof *sel);
    gex_Rank_t *members = malloc(n * sizeof *members);
    if (!all || !sel || !members) gasneti_fatalerror("gex_TM_Split: out of memory for a team of %u", (unsigned)n);
    gex_Event_Wait(gasnete_coll_gather_all(parent, all, &mine, sizeof mine));
    if (new_tm_p) {
        gex_Rank_t size = 0, me = 0;
        for (gex_Rank_t r = 0; r < n; r++)
            if (all[r].member && all[r].color == color) sel[size++] = (split_member_t){all[r].key, r};
        qsort(sel, size, sizeof *sel, by_key);
        for (gex_Rank_t i = 0; i < size; i++) members[i] = sel[i].prank;
        while (members[me] != parent->_rank) me++;
        *new_tm_p = make_team(parent, members, size, me, team_id(parent, nth, (uint32_t)color),
                              granted_scratch(parent->_ep, scratch_addr, scratch_size, flags, "gex_TM_Split"),
                              scratch_size, "gex_TM_Split");
    }
    free(all);
    free(sel);
    free(members);
    return 0;
}

size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig, void *scratch_addr, size_t scratch_size, gex_Flags_t flags) {
    check_team(orig, "gex_TM_Dup");
    if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED)) return 0;
    if (!new_tm_p) gasneti_fatalerror("gex_TM_Dup: new_tm_p is NULL");
    uint32_t nth = orig->_splits++;
    gex_Rank_t n = orig->_size;
    gex_Rank_t *members = malloc(n * sizeof *members);
    if (!members) gasneti_fatalerror("gex_TM_Dup: out of memory for a team of %u", (unsigned)n);
    for (gex_Rank_t r = 0; r < n; r++) members[r] = r;
    *new_tm_p = make_team(orig, members, n, orig->_rank, team_id(orig, nth, 0xFFFFFFFFu),
                          granted_scratch(orig->_ep, scratch_addr, scratch_size, flags, "gex_TM_Dup"), scratch_size,
                          "gex_TM_Dup");
    free(members);
    return 0;
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags) {
    check_team(tm, "gex_TM_Destroy");
    if (tm == gasneti_tm0 || tm == tm->_ep->_client->_tm0)
        gasneti_fatalerror("gex_TM_Destroy: the primordial team cannot be destroyed");
    if (flags & ~(GEX_FLAG_GLOBALLY_QUIESCED | GEX_FLAG_SCRATCH_SEG_OFFSET))
        gasneti_fatalerror("gex_TM_Destroy: flags 0x%x include bits it does not accept", (unsigned)flags);
    int ret = 0;
    if (scratch_p && tm->_scratch.gex_addr) {
        *scratch_p = tm->_scratch;
        if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET) {
            gex_Segment_t seg = tm->_ep->_segment;
            scratch_p->gex_addr = (void *)((uintptr_t)tm->_scratch.gex_addr - (seg ? (uintptr_t)seg->_addr : 0));
        }
        ret = 1;
    }
    id_unregister(tm->_id, tm->_rank);
    gasnete_coll1_team_free(tm);
    gasneti_tm_nbr_free(tm);
    free((void *)tm->_jobranks);
    free((void *)tm->_epidx);
    free(tm);
    return ret;
}

/* the pair "teams" are made with each endpoint (gasnet_core/gasneti_ep.c) */
gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
    if (!local_ep) gasneti_fatalerror("gex_TM_Pair: local_ep is GEX_EP_INVALID");
    if (remote_ep_index >= GASNET_MAXEPS)
        gasneti_fatalerror("gex_TM_Pair: remote endpoint index %u is not below GASNET_MAXEPS (%d)",
                           (unsigned)remote_ep_index, GASNET_MAXEPS);
    return &local_ep->_pairs[remote_ep_index];
}

/* ---- gex_TM_Create: a team of the endpoints listed, the same list on every member.
 * An entry's gex_rank is a rank of the parent team (the process of that member), or a
 * jobrank with GEX_FLAG_RANK_IS_JOBRANK; its gex_ep_index names that process's endpoint.
 * Collective over the parent, but nothing needs exchanging: every member computes the
 * same id from the parent's, the count of teams made from it, and the list. ---- */
size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent, gex_EP_Location_t *args,
                     size_t numargs, gex_Addr_t *scratch_addrs, size_t scratch_size, gex_Flags_t flags) {
    check_team(parent, "gex_TM_Create");
    if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED)) return 0;
    uint32_t nth = parent->_splits++;
    if (!numargs) return 0; /* no team for this caller; the other arguments are ignored (released spec) */
    if (!args) gasneti_fatalerror("gex_TM_Create: args is NULL with numargs %zu", numargs);
    if (numargs > GASNET_MAXNODES) gasneti_fatalerror("gex_TM_Create: numargs %zu is too many", numargs);
    const int by_jobrank = (flags & GEX_FLAG_RANK_IS_JOBRANK) != 0;
    gex_Rank_t *jr = malloc(numargs * sizeof *jr); /* every entry's jobrank */
    if (!jr) gasneti_fatalerror("gex_TM_Create: out of memory for a team of %zu", numargs);
    uint64_t h = 1469598103934665603ull;
    size_t mine = 0;
    for (size_t i = 0; i < numargs; i++) {
        const gex_EP_Location_t *a = &args[i];
        if (a->gex_rank >= (by_jobrank ? gasneti_nodes : parent->_size) || a->gex_ep_index >= GASNET_MAXEPS)
            gasneti_fatalerror("gex_TM_Create: args[%zu] = (%s %u, endpoint %u) names no endpoint of this job (%s "
                               "size %u)", i, by_jobrank ? "jobrank" : "parent rank", (unsigned)a->gex_rank,
                               (unsigned)a->gex_ep_index, by_jobrank ? "job" : "parent team",
                               (unsigned)(by_jobrank ? gasneti_nodes : parent->_size));
        jr[i] = by_jobrank ? a->gex_rank : gasneti_tm_jobrank(parent, a->gex_rank);
        for (size_t j = 0; j < i; j++)
            if (jr[j] == jr[i] && args[j].gex_ep_index == a->gex_ep_index)
                gasneti_fatalerror("gex_TM_Create: args[%zu] and args[%zu] name the same endpoint", j, i);
        if (jr[i] == gasneti_mynode) {
            if (!__atomic_load_n(&gasneti_eps[a->gex_ep_index], __ATOMIC_ACQUIRE))
                gasneti_fatalerror("gex_TM_Create: args[%zu] names endpoint %u of this process, which does not exist",
                                   i, (unsigned)a->gex_ep_index);
            mine++;
        }
        h = (h ^ ((uint64_t)jr[i] << 8 | a->gex_ep_index)) * 1099511628211ull;
    }
    if (mine != num_new_tms)
        gasneti_fatalerror("gex_TM_Create: args names %zu endpoint(s) of this process but num_new_tms is %zu", mine,
                           num_new_tms);
    if (!new_tms) gasneti_fatalerror("gex_TM_Create: new_tms is NULL");
    uint32_t id = team_id(parent, nth, h);
    size_t k = 0;
    for (size_t i = 0; i < numargs; i++) {
        if (jr[i] != gasneti_mynode) continue;
        gex_Rank_t *tjr = malloc(numargs * sizeof *tjr);
        gex_EP_Index_t *ep = malloc(numargs * sizeof *ep);
        if (!tjr || !ep) gasneti_fatalerror("gex_TM_Create: out of memory for a team of %zu", numargs);
        for (size_t j = 0; j < numargs; j++) tjr[j] = jr[j], ep[j] = args[j].gex_ep_index;
        /* one address for all (SYMMETRIC), one per member (GLOBAL) or per local member (LOCAL) */
        size_t at = flags & GEX_FLAG_TM_SYMMETRIC_SCRATCH ? 0 : flags & GEX_FLAG_TM_GLOBAL_SCRATCH ? i : k;
        gex_EP_t local = gasneti_eps[args[i].gex_ep_index];
        void *scratch = scratch_addrs ? granted_scratch(local, scratch_addrs[at], scratch_size, flags, "gex_TM_Create")
                                      : NULL;
        new_tms[k++] = new_team(local, tjr, ep, (gex_Rank_t)numargs, (gex_Rank_t)i, id, scratch, scratch_size,
                                "gex_TM_Create");
    }
    free(jr);
    /* the released text promises a barrier over each new team with LOCAL_SCRATCH: one per
     * local member, all started before any is waited for (a process may hold several
     * members of one team) */
    if (flags & GEX_FLAG_TM_LOCAL_SCRATCH) {
        gex_Event_t *ev = malloc(num_new_tms * sizeof *ev);
        if (!ev) gasneti_fatalerror("gex_TM_Create: out of memory");
        for (size_t j = 0; j < num_new_tms; j++) ev[j] = gex_Coll_BarrierNB(new_tms[j], 0);
        gex_Event_WaitAll(ev, num_new_tms, 0);
        free(ev);
    }
    return 0;
}

/* ---- gex_EP_PublishBoundSegment: every member's bound segments to every member.
 * Endpoints without a bound segment publish nothing (allowed, as released); nor does the
 * primordial endpoint, whose segment gex_Segment_Attach (collective over the whole job)
 * published already: publishing it again is allowed and changes nothing. ---- */
static int published_now(gex_EP_t ep) { return ep->_index != 0 && ep->_segment != NULL; }

int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags) {
    check_team(tm, "gex_EP_PublishBoundSegment");
    if (flags) gasneti_fatalerror("gex_EP_PublishBoundSegment: flags must be 0 (got 0x%x)", (unsigned)flags);
    if (num_eps && !eps) gasneti_fatalerror("gex_EP_PublishBoundSegment: eps is NULL with num_eps %zu", num_eps);
    if (num_eps > GASNET_MAXEPS) gasneti_fatalerror("gex_EP_PublishBoundSegment: num_eps %zu is too many", num_eps);
    uint32_t cnt = 0, most = 0;
    for (size_t i = 0; i < num_eps; i++) {
        if (!eps[i] || eps[i]->_client != tm->_ep->_client)
            gasneti_fatalerror("gex_EP_PublishBoundSegment: eps[%zu] is not an endpoint of this client", i);
        cnt += published_now(eps[i]);
    }
    gex_Rank_t n = tm->_size;
    uint32_t *cnts = malloc(n * sizeof *cnts);
    if (!cnts) gasneti_fatalerror("gex_EP_PublishBoundSegment: out of memory");
    gex_Event_Wait(gasnete_coll_gather_all(tm, cnts, &cnt, sizeof cnt));
    for (gex_Rank_t r = 0; r < n; r++)
        if (cnts[r] > most) most = cnts[r];
    if (most) {
        gasneti_segpub_t *mine = calloc(most, sizeof *mine), *all = calloc((size_t)n * most, sizeof *all);
        if (!mine || !all) gasneti_fatalerror("gex_EP_PublishBoundSegment: out of memory");
        uint32_t k = 0;
        for (size_t i = 0; i < num_eps; i++)
            if (published_now(eps[i])) gasneti_ep_publish_local(eps[i], &mine[k++]);
        gex_Event_Wait(gasnete_coll_gather_all(tm, all, mine, most * sizeof *mine));
        for (gex_Rank_t r = 0; r < n; r++)
            for (uint32_t i = 0; i < cnts[r]; i++) gasneti_ep_publish_record(&all[(size_t)r * most + i]);
        free(mine);
        free(all);
    }
    free(cnts);
    return GASNET_OK;
}
