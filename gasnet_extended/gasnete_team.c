/* gasnete_team.c: team creation and destruction: gex_TM_Split, gex_TM_Dup,
 * gex_TM_Destroy, gex_TM_Pair. Layer: extended.
 * A team is a gex_TM_t with its members' jobranks (NULL when rank == jobrank for the
 * whole job) and an id that names it in collective messages (gasnete_coll.c). The id is
 * computed by every member alike from the parent's id, the number of teams created from
 * the parent so far and the color, so creating a team needs no agreement beyond the
 * all-gather of (color, key) that Split does anyway; Dup needs no communication at all.
 * Two live teams of one process with the same id would confuse their messages: that is
 * checked at creation (a fatal error; the chance is about 2^-32 per pair of teams).
 * Scratch space: this implementation needs none. The SCRATCH_SIZE queries answer 0; space
 * a client grants anyway is remembered and handed back by gex_TM_Destroy. */
#include "gasnete_internal.h"

#include <gasnet_coll.h>
#include <stdlib.h>
#include <string.h>

/* ---- live team ids of this process ---- */
static uint32_t *live_ids;
static size_t n_live, cap_live;
static gex_HSL_t ids_lock = GEX_HSL_INITIALIZER;

static void id_register(uint32_t id, const char *call) {
    gex_HSL_Lock(&ids_lock);
    for (size_t i = 0; i < n_live; i++)
        if (live_ids[i] == id)
            gasneti_fatalerror("%s: the new team's id 0x%08x is already in use by another team of this process "
                               "(a hash collision; destroying and recreating either team avoids it)", call, (unsigned)id);
    if (n_live == cap_live) {
        cap_live = cap_live ? 2 * cap_live : 16;
        live_ids = realloc(live_ids, cap_live * sizeof *live_ids);
        if (!live_ids) gasneti_fatalerror("%s: out of memory", call);
    }
    live_ids[n_live++] = id;
    gex_HSL_Unlock(&ids_lock);
}

static void id_unregister(uint32_t id) {
    gex_HSL_Lock(&ids_lock);
    for (size_t i = 0; i < n_live; i++)
        if (live_ids[i] == id) {
            live_ids[i] = live_ids[--n_live];
            break;
        }
    gex_HSL_Unlock(&ids_lock);
}

static uint32_t team_id(const struct gasneti_tm_s *parent, uint32_t nth, uint32_t color) {
    uint64_t h = ((uint64_t)parent->_id << 32) ^ ((uint64_t)nth * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)color << 7);
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

/* a team of `size` members of parent (their parent ranks in prank[]), this process at `me` */
static gex_TM_t make_team(gex_TM_t parent, const gex_Rank_t *prank, gex_Rank_t size, gex_Rank_t me, uint32_t id,
                          void *scratch, size_t scratch_len, const char *call) {
    gex_TM_t tm = calloc(1, sizeof(*tm));
    gex_Rank_t *jr = malloc(size * sizeof *jr);
    if (!tm || !jr) gasneti_fatalerror("%s: out of memory for a team of %u", call, (unsigned)size);
    int identity = size == gasneti_nodes;
    for (gex_Rank_t i = 0; i < size; i++) {
        jr[i] = gasneti_tm_jobrank(parent, prank[i]);
        if (jr[i] != i) identity = 0;
    }
    if (identity) {
        free(jr);
        jr = NULL;
    }
    tm->_ep = parent->_ep;
    tm->_rank = me;
    tm->_size = size;
    tm->_jobranks = jr;
    tm->_id = id;
    tm->_scratch.gex_addr = scratch;
    tm->_scratch.gex_len = scratch ? scratch_len : 0;
    id_register(id, call);
    return tm;
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
        *new_tm_p = make_team(parent, members, size, me, team_id(parent, nth, (uint32_t)color), scratch_addr,
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
    *new_tm_p = make_team(orig, members, n, orig->_rank, team_id(orig, nth, 0xFFFFFFFFu), scratch_addr,
                          scratch_size, "gex_TM_Dup");
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
    id_unregister(tm->_id);
    free((void *)tm->_jobranks);
    free(tm);
    return ret;
}

/* the one pair "team" of the primordial endpoint: rank arguments are jobranks */
static struct gasneti_tm_s pair0;
static gex_HSL_t pair0_lock = GEX_HSL_INITIALIZER;

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
    if (!local_ep || local_ep->_index != 0 || remote_ep_index != 0)
        gasneti_fatalerror("gex_TM_Pair: only endpoint index 0 exists in this release (got local %u, remote %u)",
                           local_ep ? (unsigned)local_ep->_index : 0u, (unsigned)remote_ep_index);
    if (!__atomic_load_n(&pair0._ep, __ATOMIC_ACQUIRE)) {
        gex_HSL_Lock(&pair0_lock);
        if (!pair0._ep) {
            pair0._rank = gasneti_mynode;
            pair0._size = gasneti_nodes;
            pair0._flags = GASNETI_TM_PAIR;
            __atomic_store_n(&pair0._ep, local_ep, __ATOMIC_RELEASE);
        }
        gex_HSL_Unlock(&pair0_lock);
    }
    return &pair0;
}
