/* ucx_amo.c: remote atomics of ucx-conduit by ucp_atomic_op_nbx, on the primordial
 * segment of any rank (this one and its neighbors included). Layer: ucx-conduit (the
 * optional atomics of conduit_contract.h: gasnetc_amo_domain, gasnetc_amo).
 *
 * A domain is native (gasnetc_amo_domain) when native RMA is on, GASNET_UCX_ATOMICS is
 * not 0 (the context then has UCP_FEATURE_AMO32 and AMO64), and UCX has every operation
 * of the domain on its type:
 *   32- and 64-bit integers (I32 U32 I64 U64): ADD (SUB of the negated operand, INC and
 *     DEC of 1 and -1), AND, OR, XOR, SET (a SWAP), SWAP, CAS and FCAS (CSWAP), GET (an
 *     ADD of 0), and the fetching forms;
 *   FLT and DBL: SET, SWAP, GET, CAS and FCAS on the bits (the spec lets CAS compare bits).
 * MULT, MIN, MAX and floating-point arithmetic are not UCX's: such a domain uses CPU
 * atomics and AMs (gasnete_ratomic.c). Such a domain sends every operation through UCX
 * (its own rank's and neighbors' too), so that all are performed by the same agent, which
 * UCX keeps to one kind per worker (device or CPU atomics).
 * Every operation fetches, the non-fetching ones into the operation's bounce word: UCX
 * completes a fetching atomic once it was performed at the target and its old value is
 * here (a non-fetching one only locally, leaving the rest to a flush), which is when the
 * operation's counter is signalled. Operands are copied into the operation. */
#include "conduit_contract.h"
#include "ucx_internal.h"

#include <string.h>

static size_t n_amo; /* GASNET_VERBOSEENV: operations by UCX */

static int is_int(gex_DT_t dt) { return dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_I64 || dt == GEX_DT_U64; }
static size_t dt_size(gex_DT_t dt) { return (dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT) ? 4 : 8; }

/* the UCX operation for one GEX_OP_* on dt; -1: not UCX's */
static int ucx_opcode(gex_DT_t dt, gex_OP_t op) {
    gex_OP_t base = op == GEX_OP_GET ? op : GEX_OP_TO_NONFETCHING(op);
    switch (base) {
    case GEX_OP_SET:
        return UCP_ATOMIC_OP_SWAP;
    case GEX_OP_CAS:
        return UCP_ATOMIC_OP_CSWAP;
    case GEX_OP_GET:
        return UCP_ATOMIC_OP_ADD; /* of 0: floats' bits unchanged too */
    default:
        break;
    }
    if (!is_int(dt)) return -1;
    switch (base) {
    case GEX_OP_ADD:
    case GEX_OP_SUB:
    case GEX_OP_INC:
    case GEX_OP_DEC:
        return UCP_ATOMIC_OP_ADD;
    case GEX_OP_AND:
        return UCP_ATOMIC_OP_AND;
    case GEX_OP_OR:
        return UCP_ATOMIC_OP_OR;
    case GEX_OP_XOR:
        return UCP_ATOMIC_OP_XOR;
    default:
        return -1;
    }
}

int gasnetc_amo_domain(gex_DT_t dt, gex_OP_t ops) {
    if (!gasnetc_ucx_up || !gasnetc_rma_native || !gasnetc_ucx_atomics_wanted() || !ops) return 0;
    if (!is_int(dt) && dt != GEX_DT_FLT && dt != GEX_DT_DBL) return 0;
    for (gex_OP_t rest = ops; rest; rest &= rest - 1)
        if (ucx_opcode(dt, rest & -rest) < 0) return 0;
    return 1;
}

/* the operand UCX adds (ADD, SUB, INC, DEC; GET: 0), in the type's bytes */
static uint64_t add_operand(gex_DT_t dt, gex_OP_t base, const void *a) {
    uint64_t v = 0;
    if (base == GEX_OP_GET) return 0;
    if (dt_size(dt) == 4) {
        uint32_t x = base == GEX_OP_INC ? 1u : base == GEX_OP_DEC ? (uint32_t)-1 : *(const uint32_t *)a;
        if (base == GEX_OP_SUB) x = -x;
        memcpy(&v, &x, 4);
    } else {
        v = base == GEX_OP_INC ? 1u : base == GEX_OP_DEC ? (uint64_t)-1 : *(const uint64_t *)a;
        if (base == GEX_OP_SUB) v = -v;
    }
    return v;
}

int gasnetc_amo(gex_Rank_t jr, const void *rkey, void *tgt, gex_DT_t dt, gex_OP_t op, const void *operand1, const void *operand2,
                void *result, gasneti_counter_t *rc, gex_Flags_t flags) {
    (void)flags; /* UCX always takes an operation: IMMEDIATE never refuses */
    gex_OP_t base = op == GEX_OP_GET ? op : GEX_OP_TO_NONFETCHING(op);
    size_t sz = dt_size(dt);
    const gasnetc_ucx_rkey_t *k = rkey; /* the target segment's (primordial or bound) */
    UCX_LOCK();
    gasnetc_ucx_op_t *o = gasnetc_ucx_op_get(jr, "ucp_atomic_op_nbx");
    o->rc = rc;
    o->result = result; /* the old value, copied from the bounce at completion (NULL: dropped) */
    o->size = (uint32_t)sz;
    o->operand = o->bounce = 0;
    if (base == GEX_OP_ADD || base == GEX_OP_SUB || base == GEX_OP_INC || base == GEX_OP_DEC || base == GEX_OP_GET) {
        o->operand = add_operand(dt, base, operand1);
    } else if (base == GEX_OP_CAS) { /* compared with operand1; operand2 goes in through the reply buffer */
        memcpy(&o->operand, operand1, sz);
        memcpy(&o->bounce, operand2, sz);
    } else {
        memcpy(&o->operand, operand1, sz);
    }
    ucp_request_param_t p;
    gasnetc_ucx_op_param(&p, o);
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.datatype = ucp_dt_make_contig(sz);
    p.reply_buffer = &o->bounce;
    if (gasnetc_ucx_verbose) n_amo++;
    ucs_status_ptr_t s = ucp_atomic_op_nbx(gasnetc_ucx_ep[jr], (ucp_atomic_op_t)ucx_opcode(dt, op), &o->operand, 1,
                                           (uint64_t)(uintptr_t)tgt, k->rkey, &p);
    if (!gasnetc_ucx_started(s, o->call, jr)) gasnetc_ucx_op_complete(o);
    UCX_UNLOCK();
    return 0;
}

void gasnetc_ucx_amo_say(void) {
    if (n_amo)
        fprintf(stderr, "ucx-conduit: rank %u made %zu atomic operation(s) by ucp_atomic_op_nbx\n",
                (unsigned)gasneti_mynode, n_amo);
}
