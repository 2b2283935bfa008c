/* gasnet_vis.h: placeholder for VIS (vector, indexed and strided transfers).
 * Layer: public. Not available in this release: including it stops the build with a
 * message, so no client compiles against calls that do not exist. */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H
#include <gasnetex.h>
#error "gasnet_vis.h: VIS (vector, indexed and strided transfers) are not available in this release of GASNet-EX"
#endif
