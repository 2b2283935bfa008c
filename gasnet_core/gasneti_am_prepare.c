/* gasneti_am_prepare.c: negotiated-payload Active Messages (gex_AM_Prepare* and
 * gex_AM_Commit*) and the per-thread source descriptor between the two calls.
 * Layer: core. */
#include "conduit_contract.h"

#if GASNETI_DEBUG
GASNETI_THREADLOCAL const char *gasneti_prepare_pending;
#endif
