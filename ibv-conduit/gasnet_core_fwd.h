/* gasnet_core_fwd.h: the conduit header under the name gasnetex.h includes.
 * Layer: ibv-conduit (installed as include/ibv-conduit/gasnet_core_fwd.h). */
#include "ibv_conduit.h"
