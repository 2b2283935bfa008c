/* gasnet_core_fwd.h: the conduit header under the name gasnetex.h includes.
 * Layer: mpi-conduit (installed as include/mpi-conduit/gasnet_core_fwd.h). */
#include "mpi_conduit.h"
