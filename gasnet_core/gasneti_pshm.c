/* gasneti_pshm.c: same-host Active Messages (PSHM) for every conduit, and the named
 * shared-memory objects they and the segments live in.
 * Layer: core.
 *
 * Each process of a neighborhood owns two queues in one shared control region: one for
 * requests and one for replies, so a reply always finds room once its target polls,
 * and a request handler blocked sending a reply only needs replies to drain (reply
 * handlers never send). A queue is a bounded multi-producer ring of fixed 256-byte slots
 * (header, arguments, up to 160 inline payload bytes), each with a payload block
 * for Mediums up to gasneti_pshm_max_medium. A producer claims a position with one CAS
 * on the ring's head, writes the slot and publishes it with a release store of the
 * slot's sequence word (position + 1). The owner runs the handler on the payload in
 * place, then advances one `released` counter. Slot lines are thus written only by
 * producers and read only by the owner (one cache-line transfer per message, as for a
 * flag bounce); producers read `released` only when their cached copy says the ring
 * may be full. Long payloads are copied
 * by the sender straight into the target's segment (mapped in every neighbor).
 * In neighborhoods of up to GASNET_PSHM_LANES_MAX processes, small requests and their
 * replies take the per-pair lanes of gasneti_pshm_lanes.c instead (set up here, in the
 * same control region); these queues then carry large Mediums and their replies.
 * The region ends with one collectives area per process (gasneti_pshm_coll_bytes: 1 MiB
 * and a page in neighborhoods of up to 16 processes, 256 KiB and a page in larger ones;
 * laid out and used by gasnete_coll.c for same-host broadcasts). */
#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define SLOT_INLINE 160
typedef struct {
    uint64_t seq; /* == position+1 once the message for that position is written */
    gex_Rank_t src;
    uint32_t nbytes;
    uint32_t meta; /* GASNETI_META_OF(the gasneti_am_msg_t) */
    uint32_t pad;
    uint64_t dest; /* Long: destination address (the receiver's own address space) */
    gex_AM_Arg_t args[GASNETI_MAX_ARGS];
    uint8_t data[SLOT_INLINE];
} slot_t;
_Static_assert(sizeof(slot_t) == 256, "PSHM slot must stay 256 bytes");

typedef struct {
    uint64_t head;     /* next position producers claim */
    char pad1[56];
    uint64_t tail;     /* next position the owner reads */
    uint64_t released; /* positions below this are handled: their slots are free */
    int poll_lock;     /* PAR: one thread drains a queue at a time */
    char pad2[44];
} ringhdr_t;
_Static_assert(sizeof(ringhdr_t) == 128, "ring header is two cache lines");

typedef struct {
    ringhdr_t *hdr;
    slot_t *slots;
    uint8_t *payload;
    /* the owner polls here: the seq word of the slot at `tail`, and its value once a
     * message is there (set by drain; torn reads only cost a wasted or a missed look) */
    const uint64_t *watch;
    uint64_t want;
} ring_t;

size_t gasneti_pshm_max_medium = GASNETC_MAX_MEDIUM;
static uint64_t ctl_bytes; /* shared memory the AM queues of this neighborhood may fill */
static uint64_t depth, mask;
static size_t ring_bytes;
static uint8_t *ctl_base;
static uint8_t *coll_base; /* [nbrhd_size] collectives areas, gasneti_pshm_coll_bytes each */
size_t gasneti_pshm_coll_bytes;
int gasneti_pshm_oversubscribed; /* more neighbors than this host has CPUs */
static ring_t *rings; /* [nbrhd_size][2]: 0 requests, 1 replies */
static ring_t *my_req, *my_rep;
/* [nbrhd_size*2]: last `released` seen per ring, shared by this process's threads. Stored
 * with release after an acquire of `released`, loaded with acquire: a thread that finds
 * room through another thread's copy is still ordered after the owner freed the slot. */
static uint64_t *released_cache;

static ring_t ring_at(uint8_t *base, gex_Rank_t idx, int kind) {
    ring_t r;
    uint8_t *p = base + ((size_t)idx * 2 + kind) * ring_bytes;
    r.hdr = (ringhdr_t *)p;
    r.slots = (slot_t *)(p + sizeof(ringhdr_t));
    r.payload = p + sizeof(ringhdr_t) + depth * sizeof(slot_t);
    r.watch = &r.slots[0].seq;
    r.want = 1;
    return r;
}

void gasneti_pshm_init(void) {
    int64_t d = gasneti_getenv_int("GASNET_PSHM_NETWORK_DEPTH", 32);
    if (d < 2 || d > 65536)
        gasneti_launch_error("GASNET_PSHM_NETWORK_DEPTH=%lld: must be between 2 and 65536", (long long)d);
    for (depth = 2; depth < (uint64_t)d; depth <<= 1) {}
    mask = depth - 1;
    ring_bytes = sizeof(ringhdr_t) + depth * (sizeof(slot_t) + gasneti_pshm_max_medium);
    ring_bytes = (ring_bytes + GASNET_PAGESIZE - 1) & ~(size_t)(GASNET_PAGESIZE - 1);
    size_t lanes = gasneti_lanes_bytes(gasneti_nbrhd_size, depth);
    size_t coll_off = (ring_bytes * 2 * gasneti_nbrhd_size + lanes + GASNET_PAGESIZE - 1) & ~(size_t)(GASNET_PAGESIZE - 1);
    gasneti_pshm_coll_bytes = ((size_t)(gasneti_nbrhd_size <= 16 ? 1024 : 256) << 10) + GASNET_PAGESIZE;
    size_t total = coll_off + gasneti_pshm_coll_bytes * gasneti_nbrhd_size;
    ctl_bytes = total;

    char tag[32];
    snprintf(tag, sizeof(tag), "ctl%u", (unsigned)gasneti_nbrhd_ranks[0]);
    int leader = (gasneti_nbrhd_myidx == 0);
    /* tmpfs reports a full disk only when a page is first touched (SIGBUS): check first */
    uint64_t have = gasneti_shm_space_available();
    if (total > have) {
        if (leader)
            gasneti_host_launch_error("the AM queues of the %u processes on this host need %.1f MiB of shared memory but "
                                 "%s has %.1f MiB free; lower GASNET_PSHM_NETWORK_DEPTH (now %llu), or set "
                                 "GASNET_PSHM_DIR to a directory with more space", (unsigned)gasneti_nbrhd_size,
                                 total / 1048576.0, gasneti_shm_dir_name(), have / 1048576.0,
                                 (unsigned long long)depth);
        gasneti_host_launch_error_others();
    }
    if (leader) ctl_base = gasneti_shm_create(tag, total); /* zero-filled: all empty */
    gasneti_boot->barrier();
    if (!leader) ctl_base = gasneti_shm_attach(tag, total);
    gasneti_boot->barrier();
    if (leader) gasneti_shm_unlink(tag);

    rings = calloc(2 * gasneti_nbrhd_size, sizeof(ring_t));
    released_cache = calloc(2 * gasneti_nbrhd_size, sizeof(uint64_t));
    for (gex_Rank_t i = 0; i < gasneti_nbrhd_size; i++)
        for (int k = 0; k < 2; k++) rings[2 * i + k] = ring_at(ctl_base, i, k);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* polls give up the CPU soon when this host runs more of the job's processes than it
     * has CPUs, neighbors or not: those that talk over the network compete for the CPUs
     * just the same */
    if (cpus > 0 && gasneti_host_size > (gex_Rank_t)cpus) gasneti_idle_polls_before_yield = 16;
    if (cpus > 0 && gasneti_nbrhd_size > (gex_Rank_t)cpus) gasneti_pshm_oversubscribed = 1;
    if (lanes) gasneti_lanes_init(ctl_base + ring_bytes * 2 * gasneti_nbrhd_size, depth);
    coll_base = ctl_base + coll_off;
    my_req = &rings[2 * gasneti_nbrhd_myidx];
    my_rep = &rings[2 * gasneti_nbrhd_myidx + 1];
}

uint8_t *gasneti_pshm_coll_area(gex_Rank_t jobrank) {
    int32_t i = gasneti_nbrhd_index[jobrank];
    return i < 0 ? NULL : coll_base + (size_t)i * gasneti_pshm_coll_bytes;
}

/* The slow part of claiming a position: the CAS lost a race, or the ring looked full
 * from our cached `released`. Re-reads `released`; while the ring really is full, polls
 * (only replies when replying or inside a handler) or gives up if IMMEDIATE.
 * Returns the claimed position, or UINT64_MAX for IMMEDIATE with no room. */
GASNETI_COLD static uint64_t claim_slow(ringhdr_t *h, size_t ri, const gasneti_am_msg_t *m) {
    for (;;) {
        uint64_t pos = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
        if (pos >= __atomic_load_n(&released_cache[ri], __ATOMIC_ACQUIRE) + depth) {
            uint64_t rel = __atomic_load_n(&h->released, __ATOMIC_ACQUIRE);
            __atomic_store_n(&released_cache[ri], rel, __ATOMIC_RELEASE);
            if (pos >= rel + depth) { /* full */
                if (m->flags & GEX_FLAG_IMMEDIATE) return UINT64_MAX;
                gasneti_wait_for_room_to(m->jobrank, m->is_req);
                continue;
            }
        }
        if (__atomic_compare_exchange_n(&h->head, &pos, pos + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return pos;
    }
}

/* Claims the next position of the queue m goes to (ring index ri); UINT64_MAX for
 * IMMEDIATE with no room. */
static inline uint64_t claim(size_t ri, const gasneti_am_msg_t *m) {
    ringhdr_t *h = rings[ri].hdr;
    /* fast path: room by our cached view of `released`, and the CAS wins (`released`
     * only grows, and the CAS fails if another producer took pos) */
    uint64_t pos = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
    if (GASNETI_UNLIKELY(pos >= __atomic_load_n(&released_cache[ri], __ATOMIC_ACQUIRE) + depth ||
                         !__atomic_compare_exchange_n(&h->head, &pos, pos + 1, 0, __ATOMIC_ACQUIRE,
                                                      __ATOMIC_RELAXED)))
        pos = claim_slow(h, ri, m);
    /* The slot's previous lap was published with a release store of its seq word; if a
     * thread of this process wrote it, this acquire orders that thread's writes before
     * ours here too. The order already holds through the owner's `released`, but that
     * path runs through another process, where ThreadSanitizer cannot follow it. */
    if (pos != UINT64_MAX) (void)__atomic_load_n(&rings[ri].slots[pos & mask].seq, __ATOMIC_ACQUIRE);
    return pos;
}

/* Writes m into claimed position pos of ring r and publishes it. A Medium payload
 * already at its place (m->src is the position's payload block: a negotiated payload)
 * is not copied again, except into the slot when it is small enough to travel there. */
static inline void fill(ring_t *r, uint64_t pos, const gasneti_am_msg_t *m) {
    slot_t *s = &r->slots[pos & mask];
    /* header and arguments first, in whole words */
    s->src = gasneti_mynode;
    s->nbytes = (uint32_t)m->nbytes;
    s->meta = GASNETI_META_OF(m);
    for (unsigned i = 0; i < m->nargs; i++) s->args[i] = m->args[i]; /* 0..16: cheaper than a memcpy call */
    if (m->category == GASNETI_AM_MEDIUM && m->nbytes) {
        void *dst = m->nbytes <= SLOT_INLINE ? s->data : r->payload + (pos & mask) * gasneti_pshm_max_medium;
        if (dst != m->src) memcpy(dst, m->src, m->nbytes);
    } else if (m->category == GASNETI_AM_LONG) {
        gasneti_pshm_copy_long(m);
        s->dest = (uint64_t)(uintptr_t)m->dest_addr;
    }
    __atomic_store_n(&s->seq, pos + 1, __ATOMIC_RELEASE);
}

int gasneti_pshm_am_send(const gasneti_am_msg_t *m) {
    size_t ri = 2 * (size_t)gasneti_nbrhd_index[m->jobrank] + !m->is_req;
    uint64_t pos = claim(ri, m);
    if (pos == UINT64_MAX) return GASNETI_AM_WOULD_BLOCK;
    fill(&rings[ri], pos, m);
    return GASNET_OK;
}

/* Negotiated payload (gasneti_am_prepare.c): claim a position for m (a Medium whose
 * payload is not written yet) and hand out its payload block, of gasneti_pshm_max_medium
 * bytes; NULL for IMMEDIATE with no room. The message is published by
 * gasneti_pshm_commit, which must follow before any other communication. */
void *gasneti_pshm_claim(const gasneti_am_msg_t *m, gasneti_pshm_claim_t *c) {
    size_t ri = 2 * (size_t)gasneti_nbrhd_index[m->jobrank] + !m->is_req;
    uint64_t pos = claim(ri, m);
    if (pos == UINT64_MAX) return NULL;
    c->where = GASNETI_CLAIM_QUEUE;
    c->pos = pos;
    c->ring = ri;
    return rings[ri].payload + (pos & mask) * gasneti_pshm_max_medium;
}

void gasneti_pshm_commit(const gasneti_pshm_claim_t *c, const gasneti_am_msg_t *m) {
    fill(&rings[c->ring], c->pos, m);
}

/* Is there a free slot in the queue m goes to? (a snapshot: see gasneti_am_would_block) */
int gasneti_pshm_have_room(const gasneti_am_msg_t *m) {
    size_t ri = 2 * (size_t)gasneti_nbrhd_index[m->jobrank] + !m->is_req;
    ringhdr_t *h = rings[ri].hdr;
    return __atomic_load_n(&h->head, __ATOMIC_RELAXED) < __atomic_load_n(&h->released, __ATOMIC_ACQUIRE) + depth;
}

/* Is there a message at the head of this queue? */
static inline int ring_ready(const ring_t *r) {
    return __atomic_load_n(__atomic_load_n(&r->watch, __ATOMIC_RELAXED), __ATOMIC_RELAXED) ==
           __atomic_load_n(&r->want, __ATOMIC_RELAXED);
}

GASNETI_NOINLINE static int drain(ring_t *r, int max) {
    if (GASNETI_LOCKS && __atomic_exchange_n(&r->hdr->poll_lock, 1, __ATOMIC_ACQUIRE)) return 0;
    int n = 0;
    while (n < max) {
        uint64_t pos = r->hdr->tail;
        slot_t *s = &r->slots[pos & mask];
        if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != pos + 1) break;
        r->hdr->tail = pos + 1;
        uint32_t meta = s->meta;
        unsigned cat = GASNETI_META_CAT(meta);
        void *buf;
        if (cat == GASNETI_AM_MEDIUM)
            buf = s->nbytes <= SLOT_INLINE ? s->data : r->payload + (pos & mask) * gasneti_pshm_max_medium;
        else
            buf = (void *)(uintptr_t)s->dest;
        gasneti_deliver(s->src, cat, GASNETI_META_IS_REQ(meta), GASNETI_META_NARGS(meta),
                        GASNETI_META_HANDLER(meta), s->args, buf, s->nbytes, NULL, GASNETI_META_DST_EP(meta),
                        GASNETI_META_SRC_EP(meta));
        __atomic_store_n(&r->hdr->released, pos + 1, __ATOMIC_RELEASE);
        n++;
    }
    uint64_t pos = r->hdr->tail;
    __atomic_store_n(&r->watch, &r->slots[pos & mask].seq, __ATOMIC_RELAXED);
    __atomic_store_n(&r->want, pos + 1, __ATOMIC_RELAXED);
    if (GASNETI_LOCKS) __atomic_store_n(&r->hdr->poll_lock, 0, __ATOMIC_RELEASE);
    return n;
}

int gasneti_pshm_poll(int replies_only) {
    if (gasneti_nbrhd_size < 2) return 0; /* no neighbor (AMs to itself never use the queues) */
    int n = gasneti_lanes_on ? gasneti_lanes_poll(replies_only) : 0;
    if (ring_ready(my_rep)) n += drain(my_rep, 64);
    if (!replies_only && ring_ready(my_req)) n += drain(my_req, 64);
    return n;
}

/* ---------------------------------------------------------------------------------
 * Named shared-memory objects: POSIX shm (/dev/shm) by default, or files in
 * GASNET_PSHM_DIR. Names are gasnet-<jobid>-<tag>; the launcher removes any left
 * by a crash with gasneti_shm_cleanup_job.
 * --------------------------------------------------------------------------------- */
static const char *shm_dir(void) {
    static const char *dir;
    static int done;
    if (!done) {
        dir = gasneti_getenv_dflt("GASNET_PSHM_DIR", "/dev/shm");
        if (dir && !*dir) dir = NULL;
        done = 1;
    }
    return dir;
}

static void shm_name(char *buf, size_t len, const char *jobid, const char *tag) {
    if (shm_dir())
        snprintf(buf, len, "%s/gasnet-%s-%s", shm_dir(), jobid, tag);
    else
        snprintf(buf, len, "/gasnet-%s-%s", jobid, tag);
}

static int shm_open_any(const char *name, int oflag) {
    return shm_dir() ? open(name, oflag, 0600) : shm_open(name, oflag, 0600);
}

uint64_t gasneti_shm_space_for_segments(void) {
    uint64_t avail = gasneti_shm_space_available();
    return avail > ctl_bytes ? avail - ctl_bytes : 0;
}

const char *gasneti_shm_dir_name(void) { return shm_dir() ? shm_dir() : "/dev/shm"; }

uint64_t gasneti_shm_space_available(void) {
    struct statvfs sv;
    if (statvfs(gasneti_shm_dir_name(), &sv)) return UINT64_MAX;
    return (uint64_t)sv.f_bavail * sv.f_frsize;
}

void *gasneti_shm_create(const char *tag, size_t size) {
    char name[512];
    shm_name(name, sizeof(name), gasneti_boot->jobid, tag);
    int fd = shm_open_any(name, O_CREAT | O_EXCL | O_RDWR);
    if (fd < 0)
        gasneti_fatalerror("cannot create shared memory object %s: %s%s", name, strerror(errno),
                           shm_dir() ? "" : " (set GASNET_PSHM_DIR to a writable directory to use files instead)");
    if (ftruncate(fd, (off_t)size)) {
        int e = errno;
        close(fd);
        gasneti_shm_unlink(tag);
        gasneti_fatalerror("cannot size shared memory object %s to %zu bytes: %s", name, size, strerror(e));
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) {
        gasneti_shm_unlink(tag);
        gasneti_fatalerror("cannot map %zu bytes of shared memory (%s): %s", size, name, strerror(e));
    }
    return p;
}

void *gasneti_shm_attach(const char *tag, size_t size) {
    char name[512];
    shm_name(name, sizeof(name), gasneti_boot->jobid, tag);
    int fd = shm_open_any(name, O_RDWR);
    if (fd < 0) gasneti_fatalerror("cannot open shared memory object %s: %s", name, strerror(errno));
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) gasneti_fatalerror("cannot map %zu bytes of shared memory (%s): %s", size, name, strerror(e));
    return p;
}

void gasneti_shm_unlink(const char *tag) {
    char name[512];
    shm_name(name, sizeof(name), gasneti_boot->jobid, tag);
    if (shm_dir())
        unlink(name);
    else
        shm_unlink(name);
}

/* Remove every object of this job (after a crash); called by the launcher/monitor. */
void gasneti_shm_cleanup_job(const char *jobid) {
    char prefix[128];
    snprintf(prefix, sizeof(prefix), "gasnet-%s-", jobid);
    const char *dirs[2] = {"/dev/shm", shm_dir()};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i]) continue;
        DIR *d = opendir(dirs[i]);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d)))
            if (!strncmp(de->d_name, prefix, strlen(prefix))) {
                char path[1024];
                snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
                unlink(path);
            }
        closedir(d);
    }
}

/* The state dump (gasneti_watchdog.c): neighbor r's part of what is outstanding: our
 * requests in our lanes to it, and what waits in its shared queues (from any sender). */
int gasneti_pshm_diag(gex_Rank_t r, char *buf, size_t len) {
    int32_t idx = gasneti_nbrhd_index[r];
    unsigned unhandled = 0;
    int inlanes = gasneti_lanes_diag(idx, &unhandled);
    const ringhdr_t *rq = rings[2 * (size_t)idx].hdr, *rp = rings[2 * (size_t)idx + 1].hdr;
    uint64_t req = __atomic_load_n(&rq->head, __ATOMIC_RELAXED) - __atomic_load_n(&rq->released, __ATOMIC_RELAXED);
    uint64_t rep = __atomic_load_n(&rp->head, __ATOMIC_RELAXED) - __atomic_load_n(&rp->released, __ATOMIC_RELAXED);
    buf[0] = 0;
    if (!inlanes && !req && !rep) return 0;
    snprintf(buf, len, "%d AM requests from us not yet answered (%u not yet handled by it); its queues hold %llu "
             "requests and %llu replies not yet handled (from any sender)", inlanes, unhandled,
             (unsigned long long)req, (unsigned long long)rep);
    return 1;
}
