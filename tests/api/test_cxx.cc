// tests/api/test_cxx.cc: the public headers from C++11 (-std=c++11 -Wall -Werror):
// init, a Short AM (numbered and variadic), a Medium by Prepare, Cancel and Commit_v2,
// put/get, EX and legacy barriers (gex_Coll_BarrierBlocking, gasnet_barrier_result), the
// bound-segment query, the system queries, gasnet_fwd.h (first, alone), the thread-info
// macros and gasnet_seginfo_t,
// gasnet_portable_platform.h (PLATFORM_COMPILER_CXX_LANGLVL is __cplusplus), a GASNet-1
// collective (gasnet_coll.h), and some of the tools' released names (gasnet_tools.h through
// gasnetex.h; test_tools_cc has them all).
// Layer: tests (public API only).  Run with 1, 2, 4 ranks.
#include <gasnet_fwd.h>
static gex_Flags_t fwd_flags = GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF; // gasnet_fwd.h alone
// the integer constants are preprocessor constants of their gex_ types (released headers)
#if (GEX_FLAG_PEER_NEVER_SELF == GEX_FLAG_PEER_NEVER_NBRHD) || (GEX_DT_USER & GEX_DT_I32) || (GEX_OP_USER == 0) || \
    (GEX_RANK_INVALID == 0) || (GEX_EP_CAPABILITY_ALL == 0) || (GEX_TI_ALL == 0) || (GEX_EC_ALL == 0)
#  error "GEX_ integer constants in #if"
#endif
#include <type_traits>
static_assert(std::is_same<decltype(GEX_FLAG_TM_LOCAL_SCRATCH), gex_Flags_t>::value &&
                  std::is_same<decltype(GEX_DT_DBL), gex_DT_t>::value &&
                  std::is_same<decltype(GEX_OP_FADD), gex_OP_t>::value &&
                  std::is_same<decltype(GEX_RANK_INVALID), gex_Rank_t>::value &&
                  std::is_same<decltype(GEX_FLAG_AM_REQREP), gex_Flags_t>::value,
              "GEX_ integer constants have their gex_ types");
#include <gasnetex.h>
#include <gasnet.h>
#include <gasnet_coll.h>
#include <gasnet_portable_platform.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>

static gex_TM_t tm;
static gex_Rank_t me, nranks;
static volatile long got;
static gex_HSL_t lock = GEX_HSL_INITIALIZER;

#define CXX_CHECK(cond)                                                                      \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "test_cxx: rank %u: FAILED check `%s` at %s:%d\n",           \
                         static_cast<unsigned>(me), #cond, __FILE__, __LINE__);              \
            std::fflush(stderr);                                                             \
            gasnet_exit(1);                                                                  \
        }                                                                                    \
    } while (0)

static volatile long medium_got;
static void medium(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t n) {
    (void)token;
    CXX_CHECK(nbytes == static_cast<size_t>(n));
    for (size_t i = 0; i < nbytes; ++i) CXX_CHECK(static_cast<unsigned char *>(buf)[i] == (i & 0xff));
    gex_HSL_Lock(&lock);
    medium_got++;
    gex_HSL_Unlock(&lock);
}

static void ping(gex_Token_t token, gex_AM_Arg_t a, gex_AM_Arg_t b) {
    gex_Token_Info_t info;
    gex_TI_t mask = gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    CXX_CHECK(mask & GEX_TI_SRCRANK);
    CXX_CHECK(a == static_cast<gex_AM_Arg_t>(info.gex_srcrank) * 3 + 1);
    CXX_CHECK(b == -static_cast<gex_AM_Arg_t>(me) - 7);
    gex_HSL_Lock(&lock);
    got++;
    gex_HSL_Unlock(&lock);
}

GASNETT_FORMAT_PRINTF(cxx_fmt, 2, 3, static int cxx_fmt(char *buf, const char *fmt, ...));
static int cxx_fmt(char *buf, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsnprintf(buf, 32, fmt, ap);
    va_end(ap);
    return n;
}

// the GASNet-1 thread-info macros from C++ (gasnetex.h): any block, nested, repeated,
// before other declarations, with no unused or shadowed name (made errors here)
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic error "-Wshadow"
#  pragma GCC diagnostic error "-Wunused-variable"
#  pragma GCC diagnostic error "-Wunused-parameter"
#endif
static gasnet_threadinfo_t ti_pass(gasnet_threadinfo_t ti) {
    GASNET_POST_THREADINFO(ti);
    gasnet_threadinfo_t here = GASNET_GET_THREADINFO();
    {
        GASNET_BEGIN_FUNCTION();
        for (int i = 0; i < 2; ++i) {
            GASNET_BEGIN_FUNCTION();
            GASNET_POST_THREADINFO(here);
        }
    }
    return here == ti ? here : nullptr;
}
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif

int main(int argc, char **argv) {
    GASNET_BEGIN_FUNCTION();
    gex_Client_t client;
    gex_EP_t ep;
    if (gex_Client_Init(&client, &ep, &tm, "CXX_TEST", &argc, &argv, GEX_FLAG_USES_GASNET1) != GASNET_OK) {
        std::fprintf(stderr, "test_cxx: gex_Client_Init failed\n");
        return 1;
    }
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    CXX_CHECK(sizeof(gex_Event_t) == sizeof(std::uintptr_t));

    char nb[32];
    char *num = gasnett_format_number(4096, nb, sizeof nb, 1); // char *, as released
    CXX_CHECK(std::strcmp(num, "4 KB") == 0);
    CXX_CHECK(cxx_fmt(nb, "%d", 5) == 1 && std::strcmp(nb, "5") == 0);
    CXX_CHECK(gasnett_count0s_uint64_t(0) == 8 && gasnett_count0s(nb, 2) == 1);
    gasnett_atomic64_t a64 = gasnett_atomic64_init(1);
    CXX_CHECK(gasnett_atomic64_add(&a64, 2, GASNETT_ATOMIC_NONE) == 3);
    char *loc = gasnett_current_loc;
    CXX_CHECK(std::strstr(loc, "main() at ") == loc);
    std::free(loc);
    gasnett_assume(nranks >= 1);
    CXX_CHECK(gasnett_release_version() == GASNETT_RELEASE_VERSION_MAJOR * 1000000ull +
                                               GASNETT_RELEASE_VERSION_MINOR * 10000 + GASNETT_RELEASE_VERSION_PATCH);

    gex_AM_Entry_t table[] = {
        { 0, reinterpret_cast<gex_AM_Fn_t>(&ping), GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, nullptr, "ping" },
        { 0, reinterpret_cast<gex_AM_Fn_t>(&medium), GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, nullptr, "medium" },
    };
    CXX_CHECK(gex_EP_RegisterHandlers(ep, table, 2) == GASNET_OK);
    CXX_CHECK(table[0].gex_index == 255);
    gex_Segment_t seg = GEX_SEGMENT_INVALID;
    CXX_CHECK(gex_Segment_Attach(&seg, tm, 16 * GASNET_PAGESIZE) == GASNET_OK);
    auto *base = static_cast<std::uint64_t *>(gex_Segment_QueryAddr(seg));
    base[0] = 0;

    // the released additions, from C++
    CXX_CHECK(fwd_flags == (GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF));
    CXX_CHECK(gex_System_QueryMaxThreads() >= 1);
    CXX_CHECK(gex_System_GetVerboseErrors() == 1);
    CXX_CHECK(gex_System_QueryHiddenAMConcurrencyLevel() == 0);
    CXX_CHECK(PLATFORM_COMPILER_CXX_LANGLVL == __cplusplus);
    CXX_CHECK(std::strlen(_STRINGIFY(PLATFORM_COMPILER_FAMILYNAME)) > 0);
    int taken = 0;
    if_pt(nranks > 0) taken = 1;
    if_pf(nranks == 0) taken = 0;
    CXX_CHECK(taken == 1);
    gasnet_threadinfo_t ti = GASNET_GET_THREADINFO();
    CXX_CHECK(ti != nullptr && ti_pass(ti) == ti);
    gasnet_seginfo_t si = {nullptr, 0}; // gasnetex.h declares it (as released)
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, me, &si.addr, nullptr, &si.size, 0));
    CXX_CHECK(si.addr == base && si.size == gex_Segment_QuerySize(seg));
    gasnet_memvec_t mv = {base, 8};
    CXX_CHECK(mv.addr == base && mv.len == 8);

    const gex_Rank_t peer = (me + 1) % nranks;
    void *peer_base = nullptr;
    std::uintptr_t peer_size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &peer_base, nullptr, &peer_size, 0));
    CXX_CHECK(peer_base != nullptr && peer_size == 16 * GASNET_PAGESIZE);

    // a Medium prepared and cancelled, then one prepared and sent by Commit_v2
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, peer, nullptr, 100, 100, nullptr, 0, 1);
    CXX_CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    CXX_CHECK(gex_AM_CancelRequestMedium(sd, 0) == 0);
    sd = gex_AM_PrepareRequestMedium(tm, peer, nullptr, 100, 200, nullptr, 0, 1);
    auto *p = static_cast<unsigned char *>(gex_AM_SrcDescAddr(sd));
    for (size_t i = 0; i < 150; ++i) p[i] = static_cast<unsigned char>(i & 0xff);
    CXX_CHECK(gex_AM_CommitRequestMedium_v2(sd, table[1].gex_index, 150, 0, 150) == 0);
    GASNET_BLOCKUNTIL(medium_got == 1);

    // a Short AM to every rank, numbered and variadic forms
    for (gex_Rank_t r = 0; r < nranks; ++r) {
        CXX_CHECK(gex_AM_RequestShort2(tm, r, table[0].gex_index, 0, me * 3 + 1, -static_cast<int>(r) - 7) == 0);
        CXX_CHECK(gex_AM_RequestShort(tm, r, table[0].gex_index, 0, me * 3 + 1, -static_cast<int>(r) - 7) == 0);
    }
    GASNET_BLOCKUNTIL(got == 2 * static_cast<long>(nranks));

    // put to the right neighbor, barrier, check mine, get it back
    std::uint64_t v = 0xC0FFEE00ull + me;
    CXX_CHECK(gex_RMA_PutBlocking(tm, peer, peer_base, &v, sizeof v, 0) == 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    const gex_Rank_t left = (me + nranks - 1) % nranks;
    CXX_CHECK(base[0] == 0xC0FFEE00ull + left);
    std::uint64_t w = 0;
    gex_Event_t ev = gex_RMA_GetNB(tm, &w, peer, peer_base, sizeof w, 0);
    gex_Event_Wait(ev);
    CXX_CHECK(w == v);

    // a GASNet-1 all-gather of each rank's number
    std::uint32_t mine = 100 + me, all[64] = {};
    if (nranks <= 64) {
        gasnet_coll_handle_t h = gasnet_coll_gather_all_nb(GASNET_TEAM_ALL, all, &mine, sizeof mine,
                                                           GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC |
                                                               GASNET_COLL_LOCAL);
        gasnet_coll_wait_sync(h);
        for (gex_Rank_t r = 0; r < nranks; ++r) CXX_CHECK(all[r] == 100 + r);
    }

    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CXX_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
    int id = -1;
    CXX_CHECK(gasnet_barrier(3, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK);
    CXX_CHECK(gasnet_barrier(4, 0) == GASNET_OK);
    CXX_CHECK(gasnet_barrier_result(&id) == 0 && id == 4);
    if (me == 0)
        std::printf("test_cxx: PASS [%u ranks] C++11 client: AM, Prepare/Cancel/Commit_v2, put/get, barriers, gasnet_coll\n",
                    static_cast<unsigned>(nranks));
    std::fflush(stdout);
    gex_Coll_BarrierBlocking(tm, 0);
    gasnet_exit(0);
    return 0;
}
