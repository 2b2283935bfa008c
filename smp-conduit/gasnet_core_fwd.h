/* gasnet_core_fwd.h: the conduit header under the name gasnetex.h includes.
 * Layer: smp-conduit (installed as include/smp-conduit/gasnet_core_fwd.h). */
#include "smp_conduit.h"
