/* gasnet_coll.h: placeholder for collectives other than gex_Coll_BarrierNB.
 * Layer: public. Not available in this release: including it stops the build with a
 * message, so no client compiles against calls that do not exist. */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H
#include <gasnetex.h>
#error "gasnet_coll.h: collectives other than gex_Coll_BarrierNB are not available in this release of GASNet-EX"
#endif
