/* gasnet_core_fwd.h: the conduit header under the name gasnetex.h includes.
 * Layer: ucx-conduit (installed as include/ucx-conduit/gasnet_core_fwd.h). */
#include "ucx_conduit.h"
