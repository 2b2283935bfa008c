/* gasneti_segment.c: segment size policy (GASNET_MAX_SEGSIZE, physical memory, cgroup
 * and ulimit limits, shared-memory space), gex_Segment_Attach, and the bound-segment
 * queries gex_Segment_QueryBound and gex_EP_QueryBoundSegmentNB.
 * Layer: core. Limits come from what the system reports, never from touching memory. */
#include "conduit_contract.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

uintptr_t gasneti_max_local_segsize, gasneti_max_global_segsize;
static char limited_by[160] = "85% of physical memory shared by the processes of the host";

/* "512MB", "0.5GB", "128.0MB/P" (per process), "2GB/H" (per host, shared by its
 * processes), "0.85" (a fraction <= 1 of the host's memory, shared), "1048576" (bytes). */
int gasneti_parse_segsize(const char *str, uint64_t physmem, unsigned procs_per_host, uint64_t *out) {
    if (!str || !procs_per_host) return -1;
    while (isspace((unsigned char)*str)) str++;
    if (!isdigit((unsigned char)*str) && *str != '.') return -1;
    char *end;
    errno = 0;
    double v = strtod(str, &end);
    if (errno || end == str || v < 0 || !isfinite(v)) return -1;
    double mult = 0; /* 0: no unit given */
    switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1024.0 * 1024; break;
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    }
    if (mult != 0) {
        end++;
        if (toupper((unsigned char)*end) == 'B') end++;
    }
    int per_host = -1; /* -1: default for the form */
    if (*end == '/') {
        char c = (char)toupper((unsigned char)end[1]);
        if (c == 'P') per_host = 0;
        else if (c == 'H') per_host = 1;
        else return -1;
        end += 2;
    }
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -1;
    double bytes;
    if (mult == 0 && v <= 1.0 && strchr(str, '.')) { /* a fraction of the host's memory */
        bytes = v * (double)physmem;
        if (per_host != 0) bytes /= procs_per_host;
    } else {
        bytes = v * (mult ? mult : 1.0);
        if (per_host == 1) bytes /= procs_per_host;
    }
    if (bytes >= 18446744073709551615.0) return -1;
    *out = (uint64_t)bytes;
    return 0;
}

static uint64_t read_u64_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return UINT64_MAX;
    char buf[64] = {0};
    uint64_t v = UINT64_MAX;
    if (fgets(buf, sizeof(buf), f) && isdigit((unsigned char)buf[0])) v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

/* Physical memory this process may use: the host's, or a smaller cgroup limit. */
uint64_t gasneti_physmem(void) {
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t cg = read_u64_file("/sys/fs/cgroup/memory.max");                     /* cgroup v2 */
    uint64_t cg1 = read_u64_file("/sys/fs/cgroup/memory/memory.limit_in_bytes"); /* cgroup v1 */
    if (cg1 < cg) cg = cg1;
    return cg < phys ? cg : phys;
}

static void fmt_size(char *buf, size_t len, uint64_t v) {
    if (v >= (1ull << 30)) snprintf(buf, len, "%.2f GiB", v / 1073741824.0);
    else snprintf(buf, len, "%.2f MiB", v / 1048576.0);
}

void gasneti_segment_limits_init(void) {
    uint64_t phys = gasneti_physmem();
    unsigned pph = gasneti_host_size;
    uint64_t want = (uint64_t)(0.85 * (double)phys) / pph;
    const char *s = gasneti_getenv_dflt("GASNET_MAX_SEGSIZE", "0.85");
    if (s && *s) {
        if (gasneti_parse_segsize(s, phys, pph, &want))
            gasneti_launch_error("GASNET_MAX_SEGSIZE=%s: not a size (forms: 512MB, 0.5GB, 128.0MB/P, 2GB/H, 0.85)", s);
        if (want > phys / pph) {
            char a[32], b[32];
            fmt_size(a, sizeof(a), want);
            fmt_size(b, sizeof(b), phys);
            gasneti_launch_error("GASNET_MAX_SEGSIZE=%s means %s per process; %u processes on this host need more "
                                 "than its %s of memory", s, a, pph, b);
        }
        snprintf(limited_by, sizeof(limited_by), "GASNET_MAX_SEGSIZE=%s", s);
    }
    struct rlimit rl;
    if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY) {
        /* every neighbor's segment is mapped here too; leave a quarter for everything else */
        uint64_t as = (uint64_t)rl.rlim_cur / 4 * 3 / gasneti_nbrhd_size;
        if (as < want) {
            want = as;
            snprintf(limited_by, sizeof(limited_by), "the address-space limit (ulimit -v)");
        }
    }
    uint64_t space = gasneti_shm_space_for_segments() / gasneti_nbrhd_size;
    if (space < want) {
        want = space;
        snprintf(limited_by, sizeof(limited_by), "free space in %s (see GASNET_PSHM_DIR)", gasneti_shm_dir_name());
    }
    want &= ~(uint64_t)(GASNET_PAGESIZE - 1);
    gasneti_max_local_segsize = (uintptr_t)want;

    uint64_t *all = calloc(gasneti_nodes, sizeof(uint64_t));
    gasneti_boot->exchange(&want, sizeof(want), all);
    uint64_t mn = want;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (all[r] < mn) mn = all[r];
    gasneti_max_global_segsize = (uintptr_t)mn;
    free(all);
}

uintptr_t gasnet_getMaxLocalSegmentSize(void) { return gasneti_max_local_segsize; }
uintptr_t gasnet_getMaxGlobalSegmentSize(void) { return gasneti_max_global_segsize; }

typedef struct {
    uint64_t addr, size;
    gasneti_segkey_t key; /* the conduit's key of it (conduit_contract.h) */
} seginfo_t;

static void check_shm_space(const seginfo_t *all) {
    uint64_t need = 0, have = gasneti_shm_space_for_segments();
    for (gex_Rank_t i = 0; i < gasneti_nbrhd_size; i++) need += all[gasneti_nbrhd_ranks[i]].size;
    if (need <= have) return;
    if (gasneti_nbrhd_myidx == 0) {
        char a[32], b[32];
        fmt_size(a, sizeof(a), need);
        fmt_size(b, sizeof(b), have);
        gasneti_host_launch_error("gex_Segment_Attach: the %u processes on this host need %s of shared memory for their "
                             "segments but %s has only %s free; set GASNET_PSHM_DIR to a directory with more space "
                             "(a file-backed mapping), enlarge /dev/shm, or ask for smaller segments "
                             "(GASNET_MAX_SEGSIZE)", (unsigned)gasneti_nbrhd_size, a,
                             gasneti_shm_dir_name(), b);
    }
    gasneti_host_launch_error_others();
}

int(gex_Segment_Attach)(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size) {
    GASNETI_CHECK_INIT("gex_Segment_Attach");
    GASNETI_CHECK_NOT_IN_HANDLER("gex_Segment_Attach");
    if (gasneti_attach_done) gasneti_fatalerror("gex_Segment_Attach: this release allows one segment per process");
    if (tm != gasneti_tm0) gasneti_fatalerror("gex_Segment_Attach: tm must be the primordial team");
    if (!segment_p) gasneti_fatalerror("gex_Segment_Attach: segment_p is NULL");
    size = (size + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1); /* round up to a page */
    if (size == 0) size = GASNET_PAGESIZE;
    GASNETI_TRACE_OP(GASNETI_TK_SEGMENT, gasneti_mynode, size, 0);
    if (size > gasneti_max_local_segsize)
        gasneti_fatalerror("gex_Segment_Attach: size %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu, "
                           "limited by %s", (size_t)size, (size_t)gasneti_max_local_segsize, limited_by);

    seginfo_t me, *all = calloc(gasneti_nodes, sizeof(seginfo_t));
    gex_Segment_t seg = calloc(1, sizeof(*seg));
    if (!all || !seg) gasneti_fatalerror("gex_Segment_Attach: out of memory");
    memset(&me, 0, sizeof(me));
    me.size = size;
    gasneti_boot->exchange(&me, sizeof(me), all);
    check_shm_space(all);
    char tag[32];
    snprintf(tag, sizeof(tag), "seg%u", (unsigned)gasneti_mynode);
    void *addr = gasneti_shm_create(tag, size);
    seg->_client = tm->_ep->_client;
    seg->_addr = addr;
    seg->_size = size;
    seg->_kind = GEX_MK_HOST;
    seg->_shm = 1;
    seg->_bound = 1;
    if (!GASNETC_NBRHD_ONLY) gasneti_segkey_register(seg, &me.key); /* no key: reached by AMs */
    me.addr = (uint64_t)(uintptr_t)addr;
    gasneti_boot->exchange(&me, sizeof(me), all);
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        gasneti_peerseg_t *p = &gasneti_peerseg[r];
        p->_owner_addr = (void *)(uintptr_t)all[r].addr;
        p->_size = (uintptr_t)all[r].size;
        p->_rkey = gasneti_segkey_unpack(r, 0, &all[r].key);
        p->_pshm_delta = p->_nbr_delta = GASNETI_NOT_NBR;
        if (gasneti_nbrhd_index[r] < 0) continue;
        void *local = addr;
        if (r != gasneti_mynode) {
            char t[32];
            snprintf(t, sizeof(t), "seg%u", (unsigned)r);
            local = gasneti_shm_attach(t, p->_size);
        }
        p->_pshm_delta = (intptr_t)((uintptr_t)local - (uintptr_t)p->_owner_addr);
        if (gasneti_rma_bypass) p->_nbr_delta = p->_pshm_delta;
    }
    free(all);
    gasneti_boot->barrier(); /* every neighbor has mapped it: nothing named remains */
    gasneti_shm_unlink(tag);
    tm->_ep->_segment = seg;
    gasneti_attach_done = 1;
    gasneti_boot->barrier();
    *segment_p = seg;
    return GASNET_OK;
}

/* The bound segment of (tm, rank) as this process knows it: the primordial ones since
 * gex_Segment_Attach, the others once published to it (gasneti_epseg), ours always. */
static const gasneti_peerseg_t *bound_segment(gex_TM_t tm, gex_Rank_t rank, const char *call) {
    return gasneti_tm_peerseg(tm, rank, gasneti_tm_jobrank_checked(tm, rank, call));
}

static void write_bound(const gasneti_peerseg_t *p, void **owneraddr_p, void **localaddr_p, uintptr_t *size_p) {
    if (owneraddr_p) *owneraddr_p = p->_owner_addr;
    if (localaddr_p)
        *localaddr_p = p->_pshm_delta == GASNETI_NOT_NBR ? NULL : (void *)((uintptr_t)p->_owner_addr + p->_pshm_delta);
    if (size_p) *size_p = p->_size;
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p, uintptr_t *size_p) {
    GASNETI_CHECK_NOT_IN_HANDLER("gex_Segment_QueryBound");
    const gasneti_peerseg_t *p = bound_segment(tm, rank, "gex_Segment_QueryBound");
    if (!p->_size) return 1; /* outputs untouched */
    write_bound(p, owneraddr_p, localaddr_p, size_p);
    return 0;
}

/* Nothing to ask anyone: the answer is here (an unsuccessful one writes only *size_p, 0),
 * and the event is GEX_EVENT_INVALID with or without GEX_FLAG_IMMEDIATE. Legal in handler
 * context with IMMEDIATE only, as the spec says (checked in debug builds). */
gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                                       uintptr_t *size_p, gex_Flags_t flags) {
    const char *call = "gex_EP_QueryBoundSegmentNB";
    GASNETI_CHECK_INIT(call);
    if (!(flags & GEX_FLAG_IMMEDIATE)) GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (flags & ~GEX_FLAG_IMMEDIATE)
        gasneti_fatalerror("%s: flags 0x%x: only GEX_FLAG_IMMEDIATE is accepted", call, (unsigned)flags);
    if (!tm) gasneti_fatalerror("%s: tm is GEX_TM_INVALID", call);
    const gasneti_peerseg_t *p = bound_segment(tm, rank, call);
    if (p->_size)
        write_bound(p, owneraddr_p, localaddr_p, size_p);
    else if (size_p)
        *size_p = 0;
    return GEX_EVENT_INVALID;
}

#if GASNETI_DEBUG
/* ---- debug checks of RMA (and AM payload) arguments ---- */
static const char *seg_flag_name(gex_Flags_t f) {
    switch (f) {
    case GEX_FLAG_SELF_SEG_UNKNOWN: return "GEX_FLAG_SELF_SEG_UNKNOWN";
    case GEX_FLAG_SELF_SEG_SOME: return "GEX_FLAG_SELF_SEG_SOME";
    case GEX_FLAG_SELF_SEG_BOUND: return "GEX_FLAG_SELF_SEG_BOUND";
    case GEX_FLAG_SELF_SEG_OFFSET: return "GEX_FLAG_SELF_SEG_OFFSET";
    case GEX_FLAG_PEER_SEG_UNKNOWN: return "GEX_FLAG_PEER_SEG_UNKNOWN";
    case GEX_FLAG_PEER_SEG_SOME: return "GEX_FLAG_PEER_SEG_SOME";
    case GEX_FLAG_PEER_SEG_BOUND: return "GEX_FLAG_PEER_SEG_BOUND";
    case GEX_FLAG_PEER_SEG_OFFSET: return "GEX_FLAG_PEER_SEG_OFFSET";
    }
    return "the default GEX_FLAG_PEER_SEG_BOUND";
}

/* One side of a transfer. `f` is that side's single SEG flag (0 when none was given);
 * `must_be_in` says whether the range has to lie in jobrank's bound segment. We have one
 * segment per process, so SOME (any segment of the process) is the bound segment. */
static void check_seg_side(const char *side, const gasneti_peerseg_t *p, gex_Rank_t jobrank, gex_Flags_t f,
                           gex_Flags_t flags, const void *addr, size_t len, int must_be_in, const char *call) {
    uintptr_t base = p ? (uintptr_t)p->_owner_addr : 0, size = p ? p->_size : 0;
    const int offset = (f & GASNETI_FLAG_SEG_OFFSET) != 0;
    if (!size && (offset || (f & (GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_PEER_SEG_BOUND))))
        gasneti_fatalerror("%s: %s (flags 0x%x) but the endpoint of rank %u has no bound segment", call, seg_flag_name(f),
                           (unsigned)flags, (unsigned)jobrank);
    if (offset) {
        uintptr_t off = (uintptr_t)addr;
        if (off > size || len > size - off)
            gasneti_fatalerror("%s: %s range [offset 0x%zx, offset 0x%zx) is outside the bound segment of rank %u "
                               "(size 0x%zx)", call, seg_flag_name(f), (size_t)off, (size_t)off + len,
                               (unsigned)jobrank, (size_t)size);
        return;
    }
    if (!must_be_in || !len) return;
    uintptr_t a = (uintptr_t)addr;
    if (!size || a < base || a - base > size || len > size - (a - base)) {
        if (f == GEX_FLAG_PEER_SEG_UNKNOWN)
            gasneti_fatalerror("%s: remote range [%p, %p) is outside the segment of rank %u [%p, %p); with %s this "
                               "implementation still reaches a peer's memory only inside its bound segment", call,
                               addr, (void *)(a + len), (unsigned)jobrank, (void *)base, (void *)(base + size),
                               seg_flag_name(f));
        gasneti_fatalerror("%s: %s range [%p, %p) is outside the segment of rank %u [%p, %p) (%s)", call, side, addr,
                           (void *)(a + len), (unsigned)jobrank, (void *)base, (void *)(base + size),
                           seg_flag_name(f));
    }
}

void gasneti_check_seg_flags(const gasneti_peerseg_t *self_seg, const gasneti_peerseg_t *peer_seg, gex_Rank_t jobrank,
                             gex_Flags_t flags, const void *self_addr, size_t self_len, const void *peer_addr,
                             size_t peer_len, int peer_allowed, const char *call) {
    const gex_Flags_t self = flags & GASNETI_FLAG_SELF_SEG_ALL, peer = flags & GASNETI_FLAG_PEER_SEG_ALL;
    if (self & (self - 1))
        gasneti_fatalerror("%s: flags 0x%x name more than one GEX_FLAG_SELF_SEG_* (they are mutually exclusive)", call,
                           (unsigned)flags);
    if (peer & (peer - 1))
        gasneti_fatalerror("%s: flags 0x%x name more than one GEX_FLAG_PEER_SEG_* (they are mutually exclusive)", call,
                           (unsigned)flags);
    if (peer && !peer_allowed)
        gasneti_fatalerror("%s: %s (flags 0x%x) is not valid here: the call has no remote address", call,
                           seg_flag_name(peer), (unsigned)flags);
    check_seg_side("local", self_seg, gasneti_mynode, self, flags, self_addr, self_len,
                   self && self != GEX_FLAG_SELF_SEG_UNKNOWN, call);
    if (peer_allowed) check_seg_side("remote", peer_seg, jobrank, peer, flags, peer_addr, peer_len, 1, call);
}

void gasneti_check_rma_op(gex_TM_t tm, gex_Rank_t rank, const void *self_addr, const void *peer_addr, size_t nbytes,
                          gex_Flags_t flags, gex_Flags_t allowed, const char *call) {
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (rank >= tm->_size) gasneti_bad_rank(tm, rank, call);
    const gex_Flags_t lc_copy = GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO;
    if (flags & ~allowed & lc_copy)
        gasneti_fatalerror("%s: flags 0x%x: GEX_FLAG_LC_COPY_YES/NO are only valid on calls with an lc_opt "
                           "(gex_RMA_PutNB, gex_RMA_PutNBI)", call, (unsigned)flags);
    if (flags & ~allowed & GASNETI_FLAG_SELF_SEG_ALL) /* the value forms */
        gasneti_fatalerror("%s: flags 0x%x: %s describes a local address, and this call has none (only "
                           "GEX_FLAG_SELF_SEG_UNKNOWN is accepted)", call, (unsigned)flags,
                           seg_flag_name(flags & ~allowed & GASNETI_FLAG_SELF_SEG_ALL));
    if (flags & ~allowed)
        gasneti_fatalerror("%s: flags 0x%x: bits 0x%x are not flags this call accepts", call, (unsigned)flags,
                           (unsigned)(flags & ~allowed));
    if ((flags & lc_copy) == lc_copy)
        gasneti_fatalerror("%s: flags 0x%x: GEX_FLAG_LC_COPY_YES and GEX_FLAG_LC_COPY_NO are mutually exclusive", call,
                           (unsigned)flags);
    gex_Rank_t jr = gasneti_tm_jobrank(tm, rank);
    if ((flags & (GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD)) && jr == gasneti_mynode)
        gasneti_fatalerror("%s: flags 0x%x assert GEX_FLAG_PEER_NEVER_%s, but rank %u is this process", call,
                           (unsigned)flags, (flags & GEX_FLAG_PEER_NEVER_NBRHD) ? "NBRHD" : "SELF", (unsigned)rank);
    if ((flags & GEX_FLAG_PEER_NEVER_NBRHD) && gasneti_nbrhd_index[jr] >= 0)
        gasneti_fatalerror("%s: flags 0x%x assert GEX_FLAG_PEER_NEVER_NBRHD, but rank %u (jobrank %u) is in this "
                           "process's neighborhood", call, (unsigned)flags, (unsigned)rank, (unsigned)jr);
    gasneti_check_seg_flags(gasneti_peerseg_of(gasneti_mynode, tm->_ep->_index), gasneti_tm_peerseg(tm, rank, jr), jr,
                            flags, self_addr, nbytes, peer_addr, nbytes, 1, call);
}

void gasneti_check_rma(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t nbytes, gex_Flags_t flags,
                       const char *call) {
    gasneti_check_rma_op(tm, rank, NULL, addr, nbytes, flags & GASNETI_FLAG_PEER_SEG_ALL, GASNETI_FLAG_PEER_SEG_ALL,
                         call);
}

void gasneti_check_rma_val(size_t nbytes, const char *call) {
    if (nbytes < 1 || nbytes > sizeof(gex_RMA_Value_t))
        gasneti_fatalerror("%s: nbytes %zu is out of range (1 to %zu, the size of gex_RMA_Value_t)", call, nbytes,
                           sizeof(gex_RMA_Value_t));
}

void gasneti_check_lc_opt(gex_Event_t *lc_opt, int allow_group, int allow_defer, const char *call) {
    if (!lc_opt) gasneti_fatalerror("%s: lc_opt is NULL", call);
    if (lc_opt == GEX_EVENT_GROUP && !allow_group) gasneti_fatalerror("%s: lc_opt GEX_EVENT_GROUP is not allowed", call);
    if (lc_opt == GEX_EVENT_DEFER && !allow_defer) gasneti_fatalerror("%s: lc_opt GEX_EVENT_DEFER is not allowed", call);
    if (allow_group && lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP)
        gasneti_fatalerror("%s: lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP", call);
}
#endif
