/* gasneti_nic.h: which of several network devices a process uses: the one nearest its
 * CPUs, found with hwloc (one rule for every conduit that has a choice: ibv's HCAs, ofi's
 * domains). Layer: core, for network conduits; compiled only into the conduits that use
 * it (ibv, ofi), with -DGASNETI_HAVE_HWLOC=1 when configure found hwloc.
 *
 * The rule: of the candidate devices (OS names, as the kernel and hwloc know them:
 * "mlx5_0", "rxe0", "hfi1_0", "eth2"), those hwloc finds in the topology are scored by
 * where they sit: 2 if this process's CPU binding lies wholly in the CPUs near the
 * device (its socket or NUMA node), 1 if it overlaps them (an unbound process overlaps
 * every one), 0 if not. Among the best, the processes of one host spread by their index
 * on the host (gasneti_host_myidx), so two NICs of one socket share its processes. If
 * fewer than two candidates are in the topology (virtual devices, soft-RoCE), or hwloc is
 * not built in, or it cannot load the topology: the first candidate. */
#ifndef GASNETI_NIC_H
#define GASNETI_NIC_H

/* The index (0..n-1) of the device to use among names[0..n-1]; *how says why, for
 * GASNET_VERBOSEENV reports (a static string). */
extern int gasneti_nic_nearest(const char *const *names, int n, const char **how);

#endif
