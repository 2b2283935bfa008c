/* gasnet_mk.h: placeholder for memory kinds.
 * Layer: public. Not available in this release: including it stops the build with a
 * message, so no client compiles against calls that do not exist. */
#ifndef GASNET_MK_H
#define GASNET_MK_H
#include <gasnetex.h>
#error "gasnet_mk.h: memory kinds are not available in this release of GASNet-EX"
#endif
