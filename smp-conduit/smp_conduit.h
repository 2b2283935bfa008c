/* smp_conduit.h: smp-conduit's limits and capability knobs (see conduit_contract.h).
 * Layer: smp-conduit (installed). smp has no network: every peer is a neighbor, AMs go
 * through the core's shared-memory queues and RMA is load/store into mapped segments. */
#ifndef SMP_CONDUIT_H
#define SMP_CONDUIT_H

#define GASNET_CONDUIT_SMP 1
#define GASNET_SMP_CONDUIT 1 /* the released implementation's other spelling (implementation_defined.md) */
#define GASNET_CONDUIT_NAME SMP
#define GASNET_CONDUIT_NAME_STR "SMP"
#define GASNETC_NAME "smp"
#define GASNETC_NAME_UPPER "SMP"

#define GASNETC_NBRHD_ONLY 1 /* no network: every peer shares memory */
#define GASNETC_NATIVE_PUT 0
#define GASNETC_NATIVE_GET 0
#define GASNETC_NATIVE_AMO 0

#define GASNET_PSHM 1

#endif
