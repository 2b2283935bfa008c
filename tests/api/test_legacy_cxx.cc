// tests/api/test_legacy_cxx.cc: a GASNet-1-only client in C++ (gasnet.h alone): gasnet_init,
// gasnet_attach, gasnet_getSegmentInfo for every node, each segment's address and size
// checked against the GASNet-EX query of the objects gasnet_QueryGexObjects returns, and
// a put into every peer's segment read back by its owner; the thread-info macros.
// (GASNet's own legacy tests reach the segment query this way; issue 42 saw one stop on a
// segment query without a team.)  Layer: tests (public API only).  Run with 1, 2, 4 ranks.
#include <gasnet.h>

#include <cstdio>
#include <cstdint>
#include <vector>

static gasnet_node_t me;
#define LCHECK(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "test_legacy_cxx: rank %u: FAILED check `%s` at line %d\n",       \
                         static_cast<unsigned>(me), #cond, __LINE__);                              \
            gasnet_exit(1);                                                                        \
        }                                                                                          \
    } while (0)

static const uintptr_t SEGSZ = 64 * 1024;

int main(int argc, char **argv) {
    GASNET_BEGIN_FUNCTION();
    LCHECK(gasnet_init(&argc, &argv) == GASNET_OK);
    me = gasnet_mynode();
    const gasnet_node_t nn = gasnet_nodes();
    LCHECK(gasnet_attach(nullptr, 0, SEGSZ, 0) == GASNET_OK);
    std::vector<gasnet_seginfo_t> si(nn);
    LCHECK(gasnet_getSegmentInfo(si.data(), static_cast<int>(nn)) == GASNET_OK);
    gex_TM_t tm = GEX_TM_INVALID;
    gex_Segment_t seg = GEX_SEGMENT_INVALID;
    gasnet_QueryGexObjects(nullptr, nullptr, &tm, &seg);
    LCHECK(tm != GEX_TM_INVALID && seg != GEX_SEGMENT_INVALID);
    LCHECK(si[me].addr == gex_Segment_QueryAddr(seg) && si[me].size == gex_Segment_QuerySize(seg));
    for (gasnet_node_t i = 0; i < nn; ++i) {
        std::printf("test_legacy_cxx: rank %u: segment of %u at %p, %lu bytes\n", static_cast<unsigned>(me),
                    static_cast<unsigned>(i), si[i].addr, static_cast<unsigned long>(si[i].size));
        LCHECK(si[i].addr != nullptr && si[i].size >= SEGSZ);
        void *owner = nullptr;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, i, &owner, nullptr, &size, 0));
        LCHECK(owner == si[i].addr && size == si[i].size);
    }
    // every rank writes its number into slot `me` of every segment; each owner checks
    for (gasnet_node_t i = 0; i < nn; ++i) {
        uint64_t v = 0xC0DE000000000000ull + me;
        gasnet_put(i, static_cast<uint64_t *>(si[i].addr) + me, &v, sizeof v);
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    LCHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
    const uint64_t *mine = static_cast<const uint64_t *>(si[me].addr);
    for (gasnet_node_t i = 0; i < nn; ++i) LCHECK(mine[i] == 0xC0DE000000000000ull + i);
    gasnet_barrier_notify(1, 0);
    LCHECK(gasnet_barrier_wait(1, 0) == GASNET_OK);
    if (me == 0) std::printf("test_legacy_cxx: PASS [%u ranks] gasnet_init/attach, every segment, puts\n",
                             static_cast<unsigned>(nn));
    gasnet_exit(0);
    return 0;
}
