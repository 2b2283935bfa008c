/* gasnet_core_fwd.h: the conduit header under the name gasnetex.h includes.
 * Layer: udp-conduit (installed as include/udp-conduit/gasnet_core_fwd.h). */
#include "udp_conduit.h"
