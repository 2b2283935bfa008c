/* gasneti_ep.c: endpoints beyond the primordial one and the segments they bind:
 * gex_EP_Create, gex_Segment_Create/Destroy, gex_EP_BindSegment, memory kinds (gex_MK_*,
 * host memory only), and the table of every endpoint's published bound segment
 * (gasneti_epseg, read by RMA and AM Long). Layer: core.
 * gex_EP_PublishBoundSegment is collective over a team, so it lives with the teams
 * (gasnet_extended/gasnete_team.c) and calls gasneti_ep_publish_local/_record here.
 *
 * Every endpoint of a process shares the process's transports (PSHM queues and the
 * conduit); an AM carries the indices of its sending and receiving endpoints, and the
 * receiver runs the handler of the receiving endpoint's table. A segment the library
 * allocates lives in shared memory when the process has neighbours, so they reach it by
 * load/store like the primordial segment; one the client provides cannot be mapped by
 * neighbours, who then reach it by AMs (RMA) and may not send AM Longs into it.
 * Segments in host memory are registered with the conduit (gasneti_segkey_register:
 * conduit_contract.h, "Segments reached by RDMA") and published with its key, so that the
 * conduit's RDMA reaches every endpoint's bound segment (docs/endpoints.md). */
#include "conduit_contract.h"

#include <gasnet_mk.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

gex_EP_t gasneti_eps[GASNET_MAXEPS];
gasneti_peerseg_t *gasneti_epseg[GASNET_MAXEPS];
const gasneti_peerseg_t gasneti_noseg = {NULL, 0, GASNETI_NOT_NBR, GASNETI_NOT_NBR, NULL};

static gex_HSL_t ep_lock = GEX_HSL_INITIALIZER;
static gex_EP_Index_t n_eps = 1;
static uint32_t next_seg_id = 1; /* 0: the primordial segment (gex_Segment_Attach) */

/* ---- the teams' neighbor tables (gasneti_tm_nbr_delta) ---- */
intptr_t *gasneti_nbr_none;

void gasneti_tm_nbr_learn(gex_TM_t tm, gex_Rank_t rank, intptr_t delta) {
    intptr_t *t = __atomic_load_n(&tm->_nbr, __ATOMIC_ACQUIRE);
    if (t == gasneti_nbr_none) { /* the team's own, made on its first neighbor */
        intptr_t *mine = calloc(tm->_size, sizeof *mine);
        if (!mine) return; /* it keeps the slow path */
        if (__atomic_compare_exchange_n(&tm->_nbr, &t, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            t = mine;
        else
            free(mine); /* another thread's won */
    }
    __atomic_store_n(&t[rank], delta + 1, __ATOMIC_RELAXED);
}

/* A new team's table: the shared zeros when it has no more members than the job has ranks
 * (gasneti_nbr_none's length), else zeros of its own (a team over several endpoints of a
 * process, gex_TM_Create, may be larger: the fast path must never read past its table). */
void gasneti_tm_nbr_init(gex_TM_t tm) {
    tm->_nbr = tm->_size <= gasneti_nodes ? gasneti_nbr_none : calloc(tm->_size, sizeof(intptr_t));
    if (!tm->_nbr) gasneti_fatalerror("out of memory creating a team of %u members", (unsigned)tm->_size);
}

void gasneti_tm_nbr_free(gex_TM_t tm) {
    if (tm->_nbr != gasneti_nbr_none) free(tm->_nbr);
    tm->_nbr = gasneti_nbr_none;
}

/* the pair "teams" of an endpoint, one per remote index: rank arguments are jobranks */
static void make_pairs(gex_EP_t ep) {
    ep->_pairs = calloc(GASNET_MAXEPS, sizeof(struct gasneti_tm_s));
    if (!ep->_pairs) gasneti_fatalerror("out of memory creating an endpoint");
    for (gex_EP_Index_t i = 0; i < GASNET_MAXEPS; i++) {
        struct gasneti_tm_s *p = &ep->_pairs[i];
        p->_ep = ep;
        p->_rank = gasneti_mynode;
        p->_size = gasneti_nodes;
        p->_nbr = gasneti_nbr_none;
        p->_flags = GASNETI_TM_PAIR;
        p->_rem_ep = i;
    }
}

void gasneti_ep_init0(gex_EP_t ep) {
    make_pairs(ep);
    gasneti_eps[0] = ep;
    gasneti_epseg[0] = gasneti_peerseg;
}

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t caps, gex_Flags_t flags) {
    GASNETI_CHECK_INIT("gex_EP_Create");
    GASNETI_CHECK_NOT_IN_HANDLER("gex_EP_Create");
    if (!ep_p) gasneti_fatalerror("gex_EP_Create: ep_p is NULL");
    if (client != gasneti_client0) gasneti_fatalerror("gex_EP_Create: client is not the client of this process");
    if (!caps || (caps & ~GEX_EP_CAPABILITY_ALL) || (flags & ~GEX_FLAG_HINT_ACCEL_ALL))
        return gasneti_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create",
                                    "capabilities 0x%x (none, or unknown bits) or flags 0x%x (other than the "
                                    "GEX_FLAG_HINT_ACCEL_* hints)", (unsigned)caps, (unsigned)flags);
    gex_EP_t ep = calloc(1, sizeof(*ep));
    gex_AM_Entry_t *handlers = calloc(256, sizeof(gex_AM_Entry_t));
    if (!ep || !handlers) {
        free(ep);
        free(handlers);
        return gasneti_error_return(GASNET_ERR_RESOURCE, "gex_EP_Create", "out of memory");
    }
    gex_HSL_Lock(&ep_lock);
    if (n_eps >= GASNET_MAXEPS) {
        gex_HSL_Unlock(&ep_lock);
        free(ep);
        free(handlers);
        return gasneti_error_return(GASNET_ERR_RESOURCE, "gex_EP_Create", "this process has %d endpoints already "
                                    "(GASNET_MAXEPS)", GASNET_MAXEPS);
    }
    ep->_index = n_eps++;
    gex_HSL_Unlock(&ep_lock);
    ep->_client = client;
    ep->_flags = flags; /* the ACCEL hints are returned as given; no accelerator is claimed */
    ep->_caps = caps;
    ep->_handlers = handlers;
    gasneti_handlers_init(ep);
    make_pairs(ep);
    __atomic_store_n(&gasneti_eps[ep->_index], ep, __ATOMIC_RELEASE); /* AMs to it may run now */
    *ep_p = ep;
    return GASNET_OK;
}

/* ---- memory kinds ---- */
struct gasneti_memkind_s {
    gex_MK_Class_t cls;
};

int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args, gex_Flags_t flags) {
    GASNETI_CHECK_INIT("gex_MK_Create");
    if (!kind_p || !args || client != gasneti_client0 || flags)
        return gasneti_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create", "a NULL argument, a client not of this "
                                    "process, or flags 0x%x (must be 0)", (unsigned)flags);
    if (args->gex_class != GEX_MK_CLASS_HOST) /* no device kind in this build */
        return gasneti_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create", "memory kind class %d: this build has host "
                                    "memory only", (int)args->gex_class);
    struct gasneti_memkind_s *k = calloc(1, sizeof(*k));
    if (!k) return gasneti_error_return(GASNET_ERR_RESOURCE, "gex_MK_Create", "out of memory");
    k->cls = GEX_MK_CLASS_HOST;
    *kind_p = k;
    return GASNET_OK;
}

void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags) {
    (void)flags;
    if (kind == GEX_MK_HOST) gasneti_fatalerror("gex_MK_Destroy: GEX_MK_HOST is predefined and cannot be destroyed");
    if (kind == GEX_MK_INVALID) gasneti_fatalerror("gex_MK_Destroy: GEX_MK_INVALID");
    free(kind);
}

gex_MK_Class_t gex_MK_QueryClass(gex_MK_t kind) {
    if (kind == GEX_MK_HOST) return GEX_MK_CLASS_HOST;
    if (kind == GEX_MK_INVALID) gasneti_fatalerror("gex_MK_QueryClass: GEX_MK_INVALID");
    return kind->cls;
}

/* ---- keys of segments (conduit_contract.h, "Segments reached by RDMA") ---- */
void gasneti_segkey_register(gex_Segment_t seg, gasneti_segkey_t *key) {
    memset(key, 0, sizeof(*key));
#if GASNETC_SEGKEY_MAX
    size_t len = gasnetc_segment_register(seg, key->blob);
    if (len > GASNETC_SEGKEY_MAX)
        gasneti_fatalerror("the %s conduit gave a key of %zu bytes (GASNETC_SEGKEY_MAX %d)", GASNETC_NAME, len,
                           GASNETC_SEGKEY_MAX);
    key->len = (uint32_t)len;
#else
    (void)seg;
#endif
}

void gasneti_segkey_deregister(gex_Segment_t seg) {
#if GASNETC_SEGKEY_MAX
    if (seg->_key && seg->_key->len) gasnetc_segment_deregister(seg);
#endif
    free(seg->_key);
    seg->_key = NULL;
}

const void *gasneti_segkey_unpack(gex_Rank_t owner, gex_EP_Index_t ep, const gasneti_segkey_t *key) {
#if GASNETC_SEGKEY_MAX
    if (key->len) return gasnetc_segkey_unpack(owner, ep, key->blob, key->len);
#else
    (void)owner, (void)ep, (void)key;
#endif
    return NULL;
}

/* ---- segments ---- */
/* library-allocated segments whose shared-memory name is still linked (removed at
 * gex_Segment_Destroy or exit: a neighbour may map the segment at any later publish) */
static gex_Segment_t *linked;
static size_t n_linked, cap_linked;

static void seg_tag(char *buf, size_t len, gex_Rank_t jobrank, uint32_t id) {
    snprintf(buf, len, "seg%u.%u", (unsigned)jobrank, (unsigned)id);
}

static void unlink_seg(gex_Segment_t seg) { /* ep_lock held */
    for (size_t i = 0; i < n_linked; i++)
        if (linked[i] == seg) {
            char tag[48];
            seg_tag(tag, sizeof(tag), gasneti_mynode, seg->_id);
            gasneti_shm_unlink(tag);
            linked[i] = linked[--n_linked];
            return;
        }
}

void gasneti_segments_fini(void) {
    for (size_t i = 0; i < n_linked; i++) { /* exiting: no lock (a signal may have interrupted a holder) */
        char tag[48];
        seg_tag(tag, sizeof(tag), gasneti_mynode, linked[i]->_id);
        gasneti_shm_unlink(tag);
    }
    n_linked = 0;
}

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address, uintptr_t length,
                       gex_MK_t kind, gex_Flags_t flags) {
    GASNETI_CHECK_INIT("gex_Segment_Create");
    GASNETI_CHECK_NOT_IN_HANDLER("gex_Segment_Create");
    if (!segment_p || client != gasneti_client0 || !length || flags)
        return gasneti_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create", "segment_p NULL, a client not of this "
                                    "process, length 0 or flags 0x%x (must be 0)", (unsigned)flags);
    if (kind != GEX_MK_HOST && (kind == GEX_MK_INVALID || kind->cls != GEX_MK_CLASS_HOST))
        return gasneti_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create", "not a host memory kind");
    gex_Segment_t seg = calloc(1, sizeof(*seg));
    if (!seg) return gasneti_error_return(GASNET_ERR_RESOURCE, "gex_Segment_Create", "out of memory");
    gex_HSL_Lock(&ep_lock);
    seg->_id = next_seg_id++;
    gex_HSL_Unlock(&ep_lock);
    seg->_client = client;
    seg->_kind = kind;
    if (address) { /* the client's memory, as given */
        seg->_addr = address;
        seg->_size = length;
    } else {
        uintptr_t size = (length + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
        void *p;
        if (gasneti_nbrhd_size > 1) { /* neighbours will map it */
            if (size > gasneti_shm_space_available()) {
                free(seg);
                return gasneti_error_return(GASNET_ERR_RESOURCE, "gex_Segment_Create", "%zu bytes exceed the free "
                                            "shared memory (%s)", (size_t)size, gasneti_shm_dir_name());
            }
            char tag[48];
            seg_tag(tag, sizeof(tag), gasneti_mynode, seg->_id);
            p = gasneti_shm_create(tag, size);
            gex_HSL_Lock(&ep_lock);
            if (n_linked == cap_linked) {
                cap_linked = cap_linked ? 2 * cap_linked : 8;
                linked = realloc(linked, cap_linked * sizeof *linked);
                if (!linked) gasneti_fatalerror("gex_Segment_Create: out of memory");
            }
            linked[n_linked++] = seg;
            gex_HSL_Unlock(&ep_lock);
            seg->_shm = 1;
        } else {
            p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) {
                free(seg);
                return gasneti_error_return(GASNET_ERR_RESOURCE, "gex_Segment_Create", "mmap of %zu bytes: %s",
                                            (size_t)size, strerror(errno));
            }
        }
        seg->_addr = p;
        seg->_size = size;
        seg->_owned = 1;
    }
    seg->_key = malloc(sizeof(*seg->_key)); /* host memory (checked above): the network may reach it */
    if (!seg->_key) gasneti_fatalerror("gex_Segment_Create: out of memory");
    gasneti_segkey_register(seg, seg->_key);
    *segment_p = seg;
    return GASNET_OK;
}

void gex_Segment_Destroy(gex_Segment_t seg, gex_Flags_t flags) {
    GASNETI_CHECK_NOT_IN_HANDLER("gex_Segment_Destroy");
    if (!seg) gasneti_fatalerror("gex_Segment_Destroy: GEX_SEGMENT_INVALID");
    if (flags) gasneti_fatalerror("gex_Segment_Destroy: flags must be 0 (got 0x%x)", (unsigned)flags);
    if (seg->_id == 0)
        gasneti_fatalerror("gex_Segment_Destroy: the segment of gex_Segment_Attach lives as long as the job");
    if (seg->_bound)
        gasneti_fatalerror("gex_Segment_Destroy: the segment is still bound to %u endpoint(s)", (unsigned)seg->_bound);
    gex_HSL_Lock(&ep_lock);
    if (seg->_shm) unlink_seg(seg);
    gex_HSL_Unlock(&ep_lock);
    gasneti_segkey_deregister(seg);
    if (seg->_owned) munmap(seg->_addr, seg->_size);
    free(seg);
}

/* the table of endpoint index `ep`, created on first use */
static gasneti_peerseg_t *epseg_table(gex_EP_Index_t ep) {
    gasneti_peerseg_t *t = __atomic_load_n(&gasneti_epseg[ep], __ATOMIC_ACQUIRE);
    if (t) return t;
    gex_HSL_Lock(&ep_lock);
    if (!(t = gasneti_epseg[ep])) {
        t = calloc(gasneti_nodes, sizeof *t);
        if (!t) gasneti_fatalerror("out of memory for the segment table of endpoint %u", (unsigned)ep);
        for (gex_Rank_t r = 0; r < gasneti_nodes; r++) t[r] = gasneti_noseg;
        __atomic_store_n(&gasneti_epseg[ep], t, __ATOMIC_RELEASE);
    }
    gex_HSL_Unlock(&ep_lock);
    return t;
}

int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t seg, gex_Flags_t flags) {
    GASNETI_CHECK_NOT_IN_HANDLER("gex_EP_BindSegment");
    if (!ep) gasneti_fatalerror("gex_EP_BindSegment: GEX_EP_INVALID");
    if (!seg) gasneti_fatalerror("gex_EP_BindSegment: GEX_SEGMENT_INVALID");
    if (flags) gasneti_fatalerror("gex_EP_BindSegment: flags must be 0 (got 0x%x)", (unsigned)flags);
    if (ep->_segment)
        gasneti_fatalerror("gex_EP_BindSegment: endpoint %u already has a bound segment", (unsigned)ep->_index);
    if (ep->_index == 0)
        gasneti_fatalerror("gex_EP_BindSegment: the primordial endpoint's segment comes from gex_Segment_Attach");
    ep->_segment = seg;
    __atomic_fetch_add(&seg->_bound, 1, __ATOMIC_RELAXED);
    gasneti_peerseg_t *me = &epseg_table(ep->_index)[gasneti_mynode]; /* SELF offsets work at once */
    me->_owner_addr = seg->_addr;
    me->_size = seg->_size;
    me->_nbr_delta = me->_pshm_delta = 0;
    return GASNET_OK;
}

void gasneti_ep_publish_local(gex_EP_t ep, gasneti_segpub_t *rec) {
    gex_Segment_t seg = ep->_segment;
    if (!seg)
        gasneti_fatalerror("gex_EP_PublishBoundSegment: endpoint %u has no bound segment (gex_EP_BindSegment)",
                           (unsigned)ep->_index);
    rec->addr = (uint64_t)(uintptr_t)seg->_addr;
    rec->size = seg->_size;
    rec->jobrank = gasneti_mynode;
    rec->ep = ep->_index;
    rec->seg_id = seg->_id;
    rec->shm = seg->_shm;
    if (seg->_key) rec->key = *seg->_key;
}

/* neighbours' segments mapped here, by (owner, segment id): one mapping however often
 * the segment is published or bound */
typedef struct mapped_s {
    struct mapped_s *next;
    gex_Rank_t owner;
    uint32_t id;
    void *local;
} mapped_t;
static mapped_t *mapped;

static void *map_neighbour(const gasneti_segpub_t *r) { /* ep_lock held */
    for (mapped_t *m = mapped; m; m = m->next)
        if (m->owner == r->jobrank && m->id == r->seg_id) return m->local;
    char tag[48];
    seg_tag(tag, sizeof(tag), r->jobrank, r->seg_id);
    mapped_t *m = malloc(sizeof(*m));
    if (!m) gasneti_fatalerror("gex_EP_PublishBoundSegment: out of memory");
    m->owner = r->jobrank, m->id = r->seg_id;
    m->local = gasneti_shm_attach(tag, r->size);
    m->next = mapped;
    mapped = m;
    return m->local;
}

void gasneti_ep_publish_record(const gasneti_segpub_t *r) {
    if (r->jobrank >= gasneti_nodes || r->ep == 0 || r->ep >= GASNET_MAXEPS)
        gasneti_fatalerror("gex_EP_PublishBoundSegment: a bound segment of rank %u, endpoint %u, which cannot be",
                           (unsigned)r->jobrank, (unsigned)r->ep);
    gasneti_peerseg_t *t = epseg_table((gex_EP_Index_t)r->ep), e = gasneti_noseg;
    e._owner_addr = (void *)(uintptr_t)r->addr;
    e._size = (uintptr_t)r->size;
    /* published again (to another team): the same segment, whose key is unpacked already */
    e._rkey = t[r->jobrank]._rkey ? t[r->jobrank]._rkey : gasneti_segkey_unpack(r->jobrank, (gex_EP_Index_t)r->ep, &r->key);
    if (r->jobrank == gasneti_mynode) {
        e._nbr_delta = e._pshm_delta = 0;
    } else if (r->shm && gasneti_nbrhd_index[r->jobrank] >= 0) {
        gex_HSL_Lock(&ep_lock);
        void *local = map_neighbour(r);
        gex_HSL_Unlock(&ep_lock);
        e._pshm_delta = (intptr_t)((uintptr_t)local - (uintptr_t)r->addr);
        if (gasneti_rma_bypass) e._nbr_delta = e._pshm_delta;
    }
    t[r->jobrank] = e;
}

void gasneti_pshm_unmapped_long(const gasneti_am_msg_t *m) {
    gasneti_fatalerror("AM Long of %zu bytes to endpoint %u of rank %u, a neighbour: its bound segment is %s, which "
                       "neighbours cannot map; use a segment the library allocates (gex_Segment_Create with a NULL "
                       "address) or a Medium", m->nbytes, (unsigned)m->dst_ep, (unsigned)m->jobrank,
                       gasneti_peerseg_of(m->jobrank, m->dst_ep)->_size ? "memory the client provided"
                                                                        : "not published here");
}
