/* tests/perf/bench_ucx.c - ucx-conduit against raw UCP in the same processes, and against
 * ucx_perftest's figures run by tests/perf/run-bench on the same UCX_TLS (run through
 * gasnetrun_ucx -n 2 with GASNET_SUPERNODE_MAXSIZE=1, so every operation crosses UCX).
 * Layer: tests (client code; the raw side calls UCP directly, with a context and worker
 * of its own, whose addresses and rkey travel through GASNet).
 * Baselines from ucx_perftest (run-bench), in the environment (no ratio without them):
 *   UCX_PERF_AM_LAT_US   ucp_am_lat's one-way latency, us (the AM round trip is twice it)
 *   UCX_PERF_PUT_LAT_US  ucp_put_lat's one-way latency (a ping-pong of puts, polled), us
 *   UCX_PERF_GET_LAT_US  ucp_get's latency (one get and its completion), us
 *   UCX_PERF_PUT_BW      ucp_put_bw's bandwidth with 1 MiB messages, MB/s
 * Figures (each the best of BENCH_RUNS runs; raw and ours alternate within each run):
 *   am_short_rtt      gex_AM_RequestShort0 replied with gex_AM_ReplyShort0, the initiator
 *                     polls; raw_am_rtt: the same with ucp_am_send_nbx of an empty message
 *                     each way (the receiver polls ucp_worker_progress and answers).
 *                     Target: <= 1.3 x twice ucp_am_lat.
 *   put_8_pingpong    one-way latency of an 8-byte put ping-pong (gex_RMA_PutNBI, the
 *                     receiver polls its memory and answers the same way), as ucp_put_lat
 *                     measures it. Target <= 1.3 x ucp_put_lat.
 *   put_8_lat, get_8_lat  a blocking 8-byte gex_RMA_PutBlocking (the put and the flush
 *                     that completes it remotely: a round trip) / GetBlocking. get_8_lat's
 *                     target: <= 1.3 x ucp_get.
 *   put_1m_bw         64 gex_RMA_PutNBI of 1 MiB then gex_NBI_Wait, MB/s. Target >= 0.8 x
 *                     ucp_put_bw.
 *   raw_put_8_pingpong, raw_get_8_lat, raw_put_1m_bw  the same three with ucp_put_nbx /
 *                     ucp_get_nbx (and one ucp_worker_flush_nbx) on the raw worker, into
 *                     a buffer of the peer's registered by ucp_mem_map as our segment is
 *                     (memory UCX did not allocate): the baseline on the same kind of
 *                     memory. ucx_perftest's buffers are UCX's own allocations, which its
 *                     shared-memory transports map directly (a memcpy) where ours and
 *                     the raw side's go by a system call (cma): docs/ucx-conduit.md.
 *   nbi_1000_put      1000 gex_RMA_PutNBI of 8 bytes and one gex_NBI_Wait, us; raw: 1000
 *                     ucp_put_nbx and one ucp_worker_flush_nbx. Target <= 1.5 x raw.
 *   long_64k_bw, long_1m_bw  64 gex_AM_RequestLong0 of 64 KiB / 1 MiB into the peer's
 *                     segment, each acknowledged, MB/s (GASNET_UCX_LONG_APART decides how
 *                     their payloads go).
 *   fadd_8_lat        a blocking 64-bit fetch-and-add (ucp_atomic_op_nbx), us.
 *   fadd_8_lat_bound  the same into a created, bound, published segment (alternated with
 *                     fadd_8_lat). Target: <= 1.3 x fadd_8_lat. */
#include "bench_netrma.h"
#include <math.h> /* fmin, fmax: each argument (a whole measurement, barriers inside) made once */
#include <ucp/api/ucp.h>

#define RTT_ITERS 20000L
#define LAT_ITERS 2000L
#define GET_ITERS 500L /* (a get over tcp takes UCX about a millisecond here: ucp_get's too) */
#define NBI_PUTS 1000
#define XCHG_OFF 4096 /* the raw side's address and rkey, in the segment (under the bulk area) */
#define XCHG_MAX 4096
#define BULK_OFF (2 * XCHG_MAX + XCHG_OFF)

/* ---- the raw UCP side ---- */
typedef struct {
    ucp_context_h ctx;
    ucp_worker_h w;
    ucp_ep_h ep;
    ucp_mem_h memh;
    ucp_rkey_h rkey; /* the peer's buffer */
    uint64_t *buf, peer_buf;
} raw_t;
static volatile long raw_got;

static ucs_status_t raw_am(void *arg, const void *h, size_t hl, void *d, size_t l, const ucp_am_recv_param_t *p) {
    (void)arg, (void)h, (void)hl, (void)d, (void)l, (void)p;
    raw_got++;
    return UCS_OK;
}

static void raw_check(const bench_job_t *j, ucs_status_t st, const char *what) {
    if (st != UCS_OK) {
        fprintf(stderr, "bench_ucx: %s: %s\n", what, ucs_status_string(st));
        bench_fail(j, "raw UCP set-up failed");
    }
}

/* waits for a request of the raw worker */
static void raw_wait(const bench_job_t *j, raw_t *r, ucs_status_ptr_t s, const char *what) {
    if (s == NULL) return;
    if (UCS_PTR_IS_ERR(s)) raw_check(j, UCS_PTR_STATUS(s), what);
    while (ucp_request_check_status(s) == UCS_INPROGRESS)
        ucp_worker_progress(r->w);
    ucp_request_free(s);
}

/* publishes len bytes at my segment's offset off; reads the peer's */
static void swap_blob(const bench_job_t *j, size_t off, const void *mine, size_t len, void *theirs) {
    uint64_t n = len;
    if (len + 8 > XCHG_MAX) bench_fail(j, "a raw UCP address or rkey is too large");
    memcpy((char *)j->my_seg + off, &n, 8);
    memcpy((char *)j->my_seg + off + 8, mine, len);
    bench_barrier(j);
    gex_RMA_GetBlocking(j->tm, theirs, j->peer, (char *)j->peer_seg + off, XCHG_MAX, 0);
    bench_barrier(j);
}

static void raw_init(const bench_job_t *j, raw_t *r) {
    ucp_config_t *cfg;
    raw_check(j, ucp_config_read(NULL, NULL, &cfg), "ucp_config_read");
    ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM | UCP_FEATURE_RMA};
    raw_check(j, ucp_init(&p, cfg, &r->ctx), "ucp_init");
    ucp_config_release(cfg);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE, .thread_mode = UCS_THREAD_MODE_SINGLE};
    raw_check(j, ucp_worker_create(r->ctx, &wp, &r->w), "ucp_worker_create");
    ucp_am_handler_param_t h = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB, .id = 7, .cb = raw_am};
    raw_check(j, ucp_worker_set_am_recv_handler(r->w, &h), "ucp_worker_set_am_recv_handler");
    ucp_address_t *addr;
    size_t alen;
    raw_check(j, ucp_worker_get_address(r->w, &addr, &alen), "ucp_worker_get_address");
    char *peer = malloc(XCHG_MAX);
    if (!peer) bench_fail(j, "out of memory");
    swap_blob(j, XCHG_OFF, addr, alen, peer);
    ucp_worker_release_address(r->w, addr);
    ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = (ucp_address_t *)(peer + 8)};
    raw_check(j, ucp_ep_create(r->w, &ep, &r->ep), "ucp_ep_create");
    /* a buffer of BENCH_BW_BYTES to put into, and its rkey */
    if (posix_memalign((void **)&r->buf, 4096, BENCH_BW_BYTES)) bench_fail(j, "out of memory");
    memset(r->buf, 0, BENCH_BW_BYTES);
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = r->buf,
                               .length = BENCH_BW_BYTES};
    raw_check(j, ucp_mem_map(r->ctx, &mp, &r->memh), "ucp_mem_map");
    void *packed;
    size_t plen;
    raw_check(j, ucp_rkey_pack(r->ctx, r->memh, &packed, &plen), "ucp_rkey_pack");
    char blob[XCHG_MAX];
    uint64_t base = (uintptr_t)r->buf;
    memcpy(blob, &base, 8);
    memcpy(blob + 8, packed, plen);
    ucp_rkey_buffer_release(packed);
    swap_blob(j, XCHG_OFF + XCHG_MAX, blob, plen + 8, peer);
    memcpy(&r->peer_buf, peer + 8, 8);
    raw_check(j, ucp_ep_rkey_unpack(r->ep, peer + 16, &r->rkey), "ucp_ep_rkey_unpack");
    free(peer);
}

/* one side drives, the other answers, until the driver says stop: both progress the raw
 * worker, between GASNet barriers */
static double raw_am_rtt(const bench_job_t *j, raw_t *r, long iters) {
    ucp_request_param_t p = {.op_attr_mask = 0};
    bench_barrier(j);
    raw_got = 0;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    for (long i = 0; i < iters; i++) {
        if (j->me == 0) raw_wait(j, r, ucp_am_send_nbx(r->ep, 7, NULL, 0, NULL, 0, &p), "ucp_am_send_nbx");
        while (raw_got <= i)
            ucp_worker_progress(r->w);
        if (j->me == 1) raw_wait(j, r, ucp_am_send_nbx(r->ep, 7, NULL, 0, NULL, 0, &p), "ucp_am_send_nbx");
    }
    double us = (double)(bench_now_ns() - t0) / (double)iters / 1000.0;
    bench_barrier(j);
    return us;
}

/* the target of a raw transfer progresses both workers (tcp needs it: a get, a flush)
 * until the initiator, done, says stop; then both are past it */
static void raw_serve(const bench_job_t *j, raw_t *r) {
    volatile uint64_t *stop = (volatile uint64_t *)j->my_seg + 1;
    if (j->me == 1) {
        while (*stop != 1) {
            ucp_worker_progress(r->w);
            gasnet_AMPoll();
        }
    } else { /* tell the target to stop progressing */
        uint64_t one = 1;
        gex_RMA_PutBlocking(j->tm, 1, (uint64_t *)j->peer_seg + 1, &one, 8, 0);
    }
    bench_barrier(j);
    ((uint64_t *)j->my_seg)[1] = 0;
    bench_barrier(j);
}

static double raw_nbi_puts(const bench_job_t *j, raw_t *r) {
    ucp_request_param_t p = {.op_attr_mask = 0};
    uint64_t v = 5;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (int i = 0; i < NBI_PUTS; i++)
            raw_wait(j, r, ucp_put_nbx(r->ep, &v, 8, r->peer_buf + 8 * (uint64_t)(i % 64), r->rkey, &p), "ucp_put_nbx");
        raw_wait(j, r, ucp_worker_flush_nbx(r->w, &p), "ucp_worker_flush_nbx");
    }
    double us = (double)(bench_now_ns() - t0) / 1000.0;
    raw_serve(j, r);
    return us;
}

/* us per 8-byte ucp_get_nbx, waited for, over iters (the value read back is checked) */
static double raw_get_lat(const bench_job_t *j, raw_t *r, long iters) {
    ucp_request_param_t p = {.op_attr_mask = 0};
    uint64_t w = 0;
    r->buf[0] = 77;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (long i = 0; i < iters; i++)
            raw_wait(j, r, ucp_get_nbx(r->ep, &w, 8, r->peer_buf, r->rkey, &p), "ucp_get_nbx");
        if (w != 77) bench_fail(j, "raw_get_8_lat: the value read back is wrong");
    }
    double us = (double)(bench_now_ns() - t0) / iters / 1000.0;
    raw_serve(j, r);
    return us;
}

/* MB/s of BENCH_PUT_COUNT ucp_put_nbx of BENCH_BW_BYTES from src (private memory, as
 * ours) into the peer's registered buffer, then ucp_worker_flush_nbx */
static double raw_put_bw(const bench_job_t *j, raw_t *r, const void *src) {
    ucp_request_param_t p = {.op_attr_mask = 0};
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        ucs_status_ptr_t s[BENCH_PUT_COUNT];
        for (int i = 0; i < BENCH_PUT_COUNT; i++)
            s[i] = ucp_put_nbx(r->ep, src, BENCH_BW_BYTES, r->peer_buf, r->rkey, &p);
        for (int i = 0; i < BENCH_PUT_COUNT; i++)
            raw_wait(j, r, s[i], "ucp_put_nbx");
        raw_wait(j, r, ucp_worker_flush_nbx(r->w, &p), "ucp_worker_flush_nbx");
    }
    double sec = (double)(bench_now_ns() - t0) * 1e-9;
    raw_serve(j, r);
    return (double)BENCH_PUT_COUNT * BENCH_BW_BYTES / sec / 1e6;
}

/* both ranks flush their raw puts; each progresses the raw worker (the peer's flush may
 * need it: over tcp UCX emulates puts with messages) and GASNet until its own flush is done
 * and the peer has said (a GASNet put into my segment's byte 32) that its flush is too */
static void raw_flush_both(const bench_job_t *j, raw_t *r) {
    ucp_request_param_t p = {.op_attr_mask = 0};
    volatile uint64_t *done = (volatile uint64_t *)((char *)j->my_seg + 32);
    ucs_status_ptr_t f = ucp_worker_flush_nbx(r->w, &p);
    if (UCS_PTR_IS_ERR(f)) raw_check(j, UCS_PTR_STATUS(f), "ucp_worker_flush_nbx");
    while (f && ucp_request_check_status(f) == UCS_INPROGRESS) {
        ucp_worker_progress(r->w);
        gasnet_AMPoll();
    }
    if (f) ucp_request_free(f);
    static uint64_t one = 1;
    gex_RMA_PutNBI(j->tm, j->peer, (char *)j->peer_seg + 32, &one, 8, GEX_EVENT_DEFER, 0);
    while (*done != 1 || gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK) {
        ucp_worker_progress(r->w);
        gasnet_AMPoll();
    }
    bench_barrier(j);
    *done = 0;
    bench_barrier(j);
}

/* one-way us of an 8-byte ucp_put_nbx ping-pong into each other's registered buffer, each
 * side polling its own word while progressing the raw worker (as ucp_put_lat) */
static double raw_put_pingpong(const bench_job_t *j, raw_t *r) {
    ucp_request_param_t p = {.op_attr_mask = 0};
    volatile uint64_t *mine = r->buf + 1;
    *mine = 0;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 1; i <= (uint64_t)LAT_ITERS; i++) {
        if (j->me == 0) raw_wait(j, r, ucp_put_nbx(r->ep, &i, 8, r->peer_buf + 8, r->rkey, &p), "ucp_put_nbx");
        while (*mine != i)
            ucp_worker_progress(r->w);
        if (j->me == 1) raw_wait(j, r, ucp_put_nbx(r->ep, &i, 8, r->peer_buf + 8, r->rkey, &p), "ucp_put_nbx");
    }
    double us = (double)(bench_now_ns() - t0) / LAT_ITERS / 2 / 1000.0;
    raw_flush_both(j, r);
    return us;
}

static void raw_fini(raw_t *r) {
    ucp_rkey_destroy(r->rkey);
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
    ucs_status_ptr_t s = ucp_ep_close_nbx(r->ep, &p);
    if (UCS_PTR_IS_PTR(s)) ucp_request_free(s);
    ucp_mem_unmap(r->ctx, r->memh);
    ucp_worker_destroy(r->w);
    ucp_cleanup(r->ctx);
    free(r->buf);
}

/* ---- ours ---- */
static double put_pingpong(const bench_job_t *j) {
    volatile uint64_t *mine = (volatile uint64_t *)((char *)j->my_seg + 64);
    uint64_t *theirs = (uint64_t *)((char *)j->peer_seg + 64);
    *mine = 0;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 1; i <= (uint64_t)LAT_ITERS; i++) {
        if (j->me == 0) gex_RMA_PutNBI(j->tm, 1, theirs, &i, 8, GEX_EVENT_NOW, 0);
        while (*mine != i)
            gasnet_AMPoll();
        if (j->me == 1) gex_RMA_PutNBI(j->tm, 0, theirs, &i, 8, GEX_EVENT_NOW, 0);
    }
    double us = (double)(bench_now_ns() - t0) / LAT_ITERS / 2 / 1000.0;
    gex_NBI_Wait(GEX_EC_PUT, 0);
    bench_barrier(j);
    return us;
}

static double nbi_puts(const bench_job_t *j) {
    uint64_t v = 6;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (int i = 0; i < NBI_PUTS; i++)
            gex_RMA_PutNBI(j->tm, 1, (uint64_t *)((char *)j->peer_seg + 128) + i % 64, &v, 8, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    double us = (double)(bench_now_ns() - t0) / 1000.0;
    bench_barrier(j);
    return us;
}

int main(int argc, char **argv) {
    gex_AM_Entry_t h[] = {BENCH_PINGPONG_HANDLERS,
                          BENCH_NETRMA_HANDLERS};
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_UCX", BULK_OFF + (size_t)BENCH_LONG_COUNT * BENCH_BW_BYTES, h, 4);
    if (j.nranks != 2) bench_fail(&j, "bench_ucx runs with 2 processes");
    raw_t raw;
    raw_init(&j, &raw);
    const char *only = getenv("UCX_BENCH_ONLY");
    int rtt_only = only && !strcmp(only, "rtt");
    uint64_t *buf = malloc(BENCH_BW_BYTES);
    if (!buf) bench_fail(&j, "out of memory");
    for (size_t i = 0; i < BENCH_BW_BYTES / 8; i++)
        buf[i] = bench_pattern(i);
    gex_AD_t ad;
    gex_AD_Create(&ad, j.tm, GEX_DT_U64, GEX_OP_FADD, 0);
    uint64_t *bound_word;
    gex_AD_t bound_ad = bench_bound_ad(&j, &bound_word);
    double fadd_bound = 1e30;
    double rtt = 1e30, raw_rtt = 1e30, ppong = 1e30, put = 1e30, get = 1e30, bw = 0, nbi = 1e30, raw_nbi = 1e30;
    double fadd = 1e30, l64 = 0, l1m = 0, raw_ppong = 1e30, raw_get = 1e30, raw_bw = 0;
    for (int r = 0; r < BENCH_RUNS; r++) {
        raw_rtt = fmin(raw_rtt, raw_am_rtt(&j, &raw, RTT_ITERS));
        rtt = fmin(rtt, bench_am_rtt(&j, RTT_ITERS));
        if (rtt_only) continue;
        raw_nbi = fmin(raw_nbi, raw_nbi_puts(&j, &raw));
        nbi = fmin(nbi, nbi_puts(&j));
        raw_ppong = fmin(raw_ppong, raw_put_pingpong(&j, &raw));
        ppong = fmin(ppong, put_pingpong(&j));
        put = fmin(put, bench_rma_lat(&j, 0, LAT_ITERS));
        raw_get = fmin(raw_get, raw_get_lat(&j, &raw, GET_ITERS));
        get = fmin(get, bench_rma_lat(&j, 1, GET_ITERS));
        raw_bw = fmax(raw_bw, raw_put_bw(&j, &raw, buf));
        bw = fmax(bw, bench_put_bw(&j, buf, BULK_OFF));
        fadd = fmin(fadd, bench_fadd_lat(&j, ad, LAT_ITERS));
        fadd_bound = fmin(fadd_bound, bench_fadd_lat_at(&j, bound_ad, bound_word, LAT_ITERS));
        l64 = fmax(l64, bench_long_bw(&j, (char *)buf, 65536, BULK_OFF));
        l1m = fmax(l1m, bench_long_bw(&j, (char *)buf, BENCH_BW_BYTES, BULK_OFF));
    }
    if (j.me == 0) {
        const char *tls = getenv("UCX_TLS");
        double am_lat = bench_env_figure("UCX_PERF_AM_LAT_US"), put_lat = bench_env_figure("UCX_PERF_PUT_LAT_US");
        double get_lat = bench_env_figure("UCX_PERF_GET_LAT_US"), put_bw_pf = bench_env_figure("UCX_PERF_PUT_BW");
        printf("# UCX_TLS: %s\n", tls ? tls : "(UCX's choice)");
        bench_print("raw_am_rtt", raw_rtt, "us");
        bench_print("am_short_rtt", rtt, "us");
        bench_ratio("am_short_rtt_vs_raw", rtt / raw_rtt, 1, 1.3);
        if (am_lat) {
            bench_print("ucx_perftest_am_rtt", 2 * am_lat, "us");
            bench_ratio("am_short_rtt_vs_ucx_perftest", rtt / (2 * am_lat), 1, 1.3);
        }
        if (!rtt_only) {
            bench_print("raw_put_8_pingpong", raw_ppong, "us");
            bench_print("put_8_pingpong", ppong, "us");
            bench_ratio("put_8_pingpong_vs_raw", ppong / raw_ppong, 1, 1.3);
            if (put_lat) bench_ratio("put_8_pingpong_vs_ucx_perftest", ppong / put_lat, 1, 1.3);
            bench_print("put_8_lat", put, "us");
            bench_print("raw_get_8_lat", raw_get, "us");
            bench_print("get_8_lat", get, "us");
            bench_ratio("get_8_lat_vs_raw", get / raw_get, 1, 1.3);
            if (get_lat) bench_ratio("get_8_lat_vs_ucx_perftest", get / get_lat, 1, 1.3);
            bench_print("raw_put_1m_bw", raw_bw, "MB/s");
            bench_print("put_1m_bw", bw, "MB/s");
            bench_ratio("put_1m_bw_vs_raw", bw / raw_bw, 0, 0.8);
            if (put_bw_pf) bench_ratio("put_1m_bw_vs_ucx_perftest", bw / put_bw_pf, 0, 0.8);
            bench_print("raw_nbi_1000_put", raw_nbi, "us");
            bench_print("nbi_1000_put", nbi, "us");
            bench_ratio("nbi_1000_put_vs_raw", nbi / raw_nbi, 1, 1.5);
            bench_print("long_64k_bw", l64, "MB/s");
            bench_print("long_1m_bw", l1m, "MB/s");
            bench_print("fadd_8_lat", fadd, "us");
            bench_print("fadd_8_lat_bound", fadd_bound, "us");
            bench_ratio("fadd_8_lat_bound_vs_primordial", fadd_bound / fadd, 1, 1.3);
        }
    }
    gex_AD_Destroy(ad);
    gex_AD_Destroy(bound_ad);
    free(buf);
    bench_barrier(&j);
    raw_fini(&raw);
    bench_finish(&j);
    return 0;
}
