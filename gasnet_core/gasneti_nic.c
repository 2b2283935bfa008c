/* gasneti_nic.c: the device nearest this process's CPUs (gasneti_nic.h: the rule).
 * Layer: core, for network conduits (ibv, ofi); hwloc when configure found it
 * (GASNETI_HAVE_HWLOC), else always the first candidate. */
#include "gasneti_internal.h"
#include "gasneti_nic.h"

#ifndef GASNETI_HAVE_HWLOC
#  define GASNETI_HAVE_HWLOC 0
#endif

#if GASNETI_HAVE_HWLOC
#  include <hwloc.h>

/* where name sits relative to mine: 2 within, 1 overlapping, 0 apart; -1 not found */
static int score(hwloc_topology_t t, hwloc_const_bitmap_t mine, const char *name) {
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(t, o));) {
        if (!o->name || strcmp(o->name, name)) continue;
        hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t, o);
        if (!a || !a->cpuset) return 1;
        if (hwloc_bitmap_isincluded(mine, a->cpuset)) return 2;
        return hwloc_bitmap_intersects(mine, a->cpuset) ? 1 : 0;
    }
    return -1;
}

int gasneti_nic_nearest(const char *const *names, int n, const char **how) {
    *how = "the only candidate";
    if (n <= 1) return 0;
    hwloc_topology_t t;
    *how = "the first: hwloc could not load this host's topology";
    if (hwloc_topology_init(&t)) return 0;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t)) {
        hwloc_topology_destroy(t);
        return 0;
    }
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (!mine || hwloc_get_cpubind(t, mine, HWLOC_CPUBIND_PROCESS) || hwloc_bitmap_iszero(mine))
        hwloc_bitmap_copy(mine, hwloc_topology_get_topology_cpuset(t));
    int *s = calloc((size_t)n, sizeof(int)), found = 0, best = -1, nbest = 0;
    if (!s) gasneti_fatalerror("out of memory choosing a network device");
    for (int i = 0; i < n; i++) {
        s[i] = score(t, mine, names[i]);
        if (s[i] >= 0) found++;
        if (s[i] > best) best = s[i], nbest = 0;
        if (s[i] == best) nbest++;
    }
    hwloc_bitmap_free(mine);
    hwloc_topology_destroy(t);
    int pick = 0;
    if (found < 2) {
        *how = "the first: fewer than two of the candidates are devices in hwloc's topology";
    } else {
        int k = (int)(gasneti_host_myidx % (gex_Rank_t)nbest);
        for (int i = 0; i < n; i++)
            if (s[i] == best && k-- == 0) {
                pick = i;
                break;
            }
        *how = best == 2 ? "nearest this process's CPU binding (hwloc)"
             : best == 1 ? "near this process's CPUs (hwloc; shared by the host's processes in turn)"
                         : "none is near this process's CPUs (hwloc); shared by the host's processes in turn";
    }
    free(s);
    return pick;
}
#else
int gasneti_nic_nearest(const char *const *names, int n, const char **how) {
    (void)names;
    *how = n <= 1 ? "the only candidate" : "the first: built without hwloc (configure did not find it)";
    return 0;
}
#endif
