/* gasnet_ratomic.h: placeholder for remote atomics (gex_AD_*).
 * Layer: public. Not available in this release: including it stops the build with a
 * message, so no client compiles against calls that do not exist. */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H
#include <gasnetex.h>
#error "gasnet_ratomic.h: remote atomics (gex_AD_*) are not available in this release of GASNet-EX"
#endif
