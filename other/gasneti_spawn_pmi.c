/* gasneti_spawn_pmi.c: the bootstrap plugin of the pmi spawner (gasnet-spawn-pmi.so): a
 * job started by a PMIx launcher (srun, prterun, Open MPI's mpirun) joins through
 * PMIx_Init and runs its bootstrap collectives through the PMIx server. Layer: other
 * (spawners); built as a shared object linked with libpmix, loaded by gasneti_spawn_ext.c
 * (interface: gasneti_spawn_plugin.h).
 *
 * Exchange (and broadcast): each rank puts its bytes under a key numbered by the round,
 * commits, and a fence that collects the data makes every rank's value readable; the
 * barrier is a fence without data. The exit collective is a non-blocking fence; an abort
 * is PMIx_Abort, which makes the launcher end every rank and the job with the code.
 *
 * Out-of-band messages: PMIx moves data only at fences every rank joins, so they go over
 * TCP (gasneti_tcp_p2p.c): p2p_listen opens this rank's port and puts its card (address,
 * port, key) under gasnet.p2p, committed before the first collective, whose fence makes
 * it readable; a rank's first message to another gets that card with PMIx_Get (no fence
 * of its own). The receiver thread hands messages to the library's deliver; fini closes
 * the sockets and joins the thread. */
#include "gasneti_spawn_plugin.h"
#include "gasneti_tcp_p2p.h"

#include <pmix.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me, all;
static int job_size, exit_started, exit_flag;
static unsigned round_no;
static char *errbuf;
static size_t errlen;

static int check(pmix_status_t rc, const char *what) {
    if (rc == PMIX_SUCCESS) return 0;
    snprintf(errbuf, errlen, "%s: %s", what, PMIx_Error_string(rc));
    return -1;
}

/* the fence of every rank, collecting what was put (collect=1) or not */
static int fence(int collect, const char *what) {
    pmix_info_t info;
    bool c = collect ? true : false;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &c, PMIX_BOOL);
    int rc = check(PMIx_Fence(&all, 1, &info, 1), what);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static int pmi_init(int *argc, char ***argv, int *rank, int *size, char *jobid, size_t jobidlen, char *err,
                    size_t elen) {
    (void)argc, (void)argv;
    errbuf = err;
    errlen = elen;
    if (!getenv("PMIX_NAMESPACE")) {
        snprintf(err, elen, "not started by a PMIx launcher (no PMIX_NAMESPACE in the environment)");
        return -1;
    }
    if (check(PMIx_Init(&me, NULL, 0), "PMIx_Init")) return -1;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (check(PMIx_Get(&all, PMIX_JOB_SIZE, NULL, 0, &v), "PMIx_Get(PMIX_JOB_SIZE)")) return -1;
    job_size = v->type == PMIX_UINT32 ? (int)v->data.uint32 : -1;
    PMIX_VALUE_RELEASE(v);
    if (job_size < 1 || me.rank >= (pmix_rank_t)job_size) {
        snprintf(err, elen, "PMIx gave rank %u of a job of %d", (unsigned)me.rank, job_size);
        return -1;
    }
    *rank = (int)me.rank;
    *size = job_size;
    /* the job id: the namespace, unique per job, kept to characters of file names (a
     * hash of it if long) */
    char id[64];
    size_t n = strlen(me.nspace);
    if (n + 5 < sizeof(id) && n + 5 < jobidlen) {
        memcpy(id, "pmi-", 4);
        memcpy(id + 4, me.nspace, n + 1);
        for (char *p = id; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
                *p = '_';
    } else {
        uint64_t h = 1469598103934665603ull; /* FNV-1a */
        for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)me.nspace[i]) * 1099511628211ull;
        snprintf(id, sizeof(id), "pmi-%016llx", (unsigned long long)h);
    }
    snprintf(jobid, jobidlen, "%s", id);
    return 0;
}

static int pmi_barrier(void) { return fence(0, "PMIx_Fence (barrier)"); }

/* one round: put len bytes at src (if src), fence; then get(rank r) gives r's bytes */
static int put_round(const void *src, size_t len, char *key, size_t keylen) {
    snprintf(key, keylen, "gasnet.boot.%u", round_no++);
    if (src) {
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = (char *)src;
        v.data.bo.size = len;
        if (check(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put") || check(PMIx_Commit(), "PMIx_Commit")) return -1;
    }
    return fence(1, "PMIx_Fence (exchange)");
}

static int get_value(const char *key, int r, void *dst, size_t len) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)r);
    pmix_value_t *v = NULL;
    if (check(PMIx_Get(&p, key, NULL, 0, &v), "PMIx_Get")) return -1;
    int ok = v->type == PMIX_BYTE_OBJECT && v->data.bo.size == len;
    if (ok && len) memcpy(dst, v->data.bo.bytes, len);
    else if (!ok)
        snprintf(errbuf, errlen, "PMIx_Get of rank %d's %s: %zu bytes expected, got type %d size %zu", r, key, len,
                 (int)v->type, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0);
    PMIX_VALUE_RELEASE(v);
    return ok ? 0 : -1;
}

static int pmi_allgather(const void *src, size_t len, void *dst) {
    char key[64];
    if (put_round(src, len, key, sizeof(key))) return -1;
    for (int r = 0; r < job_size; r++)
        if (r == (int)me.rank) {
            if (len) memmove((char *)dst + (size_t)r * len, src, len);
        } else if (get_value(key, r, (char *)dst + (size_t)r * len, len)) {
            return -1;
        }
    return 0;
}

static int pmi_bcast(void *buf, size_t len, int root) {
    char key[64];
    int i_am_root = root == (int)me.rank;
    if (put_round(i_am_root ? buf : NULL, len, key, sizeof(key))) return -1;
    return i_am_root ? 0 : get_value(key, root, buf, len);
}

#define CARD_KEY "gasnet.p2p"
static int p2p_open;

static int card_of(int r, gasneti_tcp_p2p_card_t *card) { return get_value(CARD_KEY, r, card, sizeof(*card)); }

static void p2p_failed(const char *why) {
    fprintf(stderr, "gasnet-spawn-pmi: rank %u: %s\n", (unsigned)me.rank, why);
    PMIx_Abort(1, why, NULL, 0);
    _exit(1);
}

static int pmi_p2p_listen(void (*deliver)(int src, const void *msg, size_t len)) {
    gasneti_tcp_p2p_ops_t ops = {(int)me.rank, job_size, card_of, deliver, p2p_failed, errbuf, errlen};
    gasneti_tcp_p2p_card_t card;
    if (gasneti_tcp_p2p_open(&ops, &card)) return -1;
    p2p_open = 1;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)&card;
    v.data.bo.size = sizeof(card);
    return check(PMIx_Put(PMIX_GLOBAL, CARD_KEY, &v), "PMIx_Put (out-of-band card)") ||
                   check(PMIx_Commit(), "PMIx_Commit")
               ? -1
               : 0;
}

static int pmi_p2p_send(int dest, const void *buf, size_t len) { return gasneti_tcp_p2p_send(dest, buf, len); }

static void exit_done_cb(pmix_status_t status, void *cbdata) {
    (void)status, (void)cbdata;
    __atomic_store_n(&exit_flag, 1, __ATOMIC_RELEASE);
}

static int pmi_exit_begin(void) {
    exit_started = 1;
    return check(PMIx_Fence_nb(&all, 1, NULL, 0, exit_done_cb, NULL), "PMIx_Fence_nb (exit)");
}

static int pmi_exit_test(void) { return exit_started && __atomic_load_n(&exit_flag, __ATOMIC_ACQUIRE); }

static void pmi_abort(int code, const char *why) {
    PMIx_Abort(code, why ? why : "", NULL, 0);
    _exit(code);
}

static void pmi_fini(void) {
    if (p2p_open) gasneti_tcp_p2p_close();
    p2p_open = 0;
    PMIx_Finalize(NULL, 0);
}

const gasneti_spawn_plugin_t gasneti_spawn_plugin = {
    GASNETI_SPAWN_PLUGIN_VERSION, "pmi",          pmi_init,      pmi_barrier, pmi_allgather, pmi_bcast,
    pmi_exit_begin,               pmi_exit_test, pmi_abort, pmi_fini,    pmi_p2p_send,  NULL,
    pmi_p2p_listen};
