/* gasnet_core_fwd.h: the conduit header under the name gasnetex.h includes.
 * Layer: ofi-conduit (installed as include/ofi-conduit/gasnet_core_fwd.h). */
#include "ofi_conduit.h"
