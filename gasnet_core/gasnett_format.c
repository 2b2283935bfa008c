/* gasnett_format.c: the formatting helpers of gasnet_tools.h (gasnett_format_*): one line of
 * text describing a data type, an operation, a token-info set, or the arguments of a VIS
 * call (address lists, memvec lists, strides). Usable in any build (no trace or stats
 * needed). Formats and guarantees: docs/tools.md "Formatting helpers".
 * Layer: tools. Compiled into the standalone libgasnet_tools-{seq,par}.a, which gets the
 * helpers of plain C types only (address lists, strides), and into every conduit library
 * (built with a threading mode, so with gasnetex.h), which gets those of gex types too.
 * Every helper returns the length of its text (strlen); a NULL buf writes nothing and
 * returns the same length. Each _bufsz gives a size that holds any text of that shape. */
#include "gasnet_tools.h"
#if defined(GASNET_SEQ) || defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#  include "gasnetex.h"
#  define GASNETT_FORMAT_GEX 1
#else
#  define GASNETT_FORMAT_GEX 0
#endif

#include <limits.h>
#include <string.h>

/* the widest text of each field: an unsigned size_t in decimal (64 bits: 20 digits; log10
 * of 256 is below 2.5), a signed one (a sign more), a pointer as 0x and its hex digits */
#define UDIGITS (sizeof(size_t) * 5 / 2 + 1)
#define DDIGITS (UDIGITS + 1)
#define PDIGITS (2 + 2 * sizeof(void *))
#define RDIGITS 10 /* a 32-bit rank */

/* text being built: with buf NULL only its length is counted */
typedef struct {
    char *buf;
    size_t len;
} sink_t;

static void put(sink_t *s, const char *str) {
    size_t n = strlen(str);
    if (s->buf) {
        memcpy(s->buf + s->len, str, n);
        s->buf[s->len + n] = 0;
    }
    s->len += n;
}
static void put_u(sink_t *s, uintmax_t v) {
    char t[48];
    snprintf(t, sizeof t, "%ju", v);
    put(s, t);
}
static void put_d(sink_t *s, intmax_t v) {
    char t[48];
    snprintf(t, sizeof t, "%jd", v);
    put(s, t);
}
static void put_x(sink_t *s, uintmax_t v) {
    char t[48];
    snprintf(t, sizeof t, "0x%jx", v);
    put(s, t);
}
static void put_p(sink_t *s, const void *p) { put_x(s, (uintptr_t)p); }
/* a byte total that may have wrapped */
static void put_total(sink_t *s, size_t total, int overflow) {
    if (overflow) put(s, "overflow");
    else put_u(s, total);
}
static size_t finish(sink_t *s) {
    if (s->buf && !s->len) s->buf[0] = 0;
    return s->len;
}

/* "[a b c]": count entries, or none when list is NULL */
static void put_ulist(sink_t *s, size_t count, const size_t *list) {
    put(s, "[");
    for (size_t i = 0; list && i < count; i++) {
        if (i) put(s, " ");
        put_u(s, list[i]);
    }
    put(s, "]");
}
static void put_dlist(sink_t *s, size_t count, const ptrdiff_t *list) {
    put(s, "[");
    for (size_t i = 0; list && i < count; i++) {
        if (i) put(s, " ");
        put_d(s, list[i]);
    }
    put(s, "]");
}
/* "[" count*(UDIGITS + 1) "]" and the NUL */
static size_t list_bufsz(size_t count, size_t digits) { return 2 + count * (digits + 1) + 1; }

/* ---- plain C types: every library ---- */
size_t gasnett_format_strides_bufsz(size_t count) { return list_bufsz(count, UDIGITS); }

size_t gasnett_format_strides(char *buf, size_t count, const size_t *list) {
    sink_t s = {buf, 0};
    put_ulist(&s, count, list);
    return finish(&s);
}

/* "count=N len=L total=T [0xA 0xB]" */
size_t gasnett_format_addrlist_bufsz(size_t count) {
    return sizeof("count= len= total= []") + 3 * UDIGITS + count * (PDIGITS + 1);
}

static void put_addrlist(sink_t *s, size_t count, void *const *list, size_t len) {
    size_t total = count * len;
    int overflow = len && total / len != count;
    put(s, "count=");
    put_u(s, count);
    put(s, " len=");
    put_u(s, len);
    put(s, " total=");
    put_total(s, total, overflow);
    put(s, " [");
    for (size_t i = 0; list && i < count; i++) {
        if (i) put(s, " ");
        put_p(s, list[i]);
    }
    put(s, "]");
}

size_t gasnett_format_addrlist(char *buf, size_t count, void *const *list, size_t len) {
    sink_t s = {buf, 0};
    put_addrlist(&s, count, list, len);
    return finish(&s);
}

#if GASNETT_FORMAT_GEX
/* ---- gex types: conduit libraries ---- */
typedef struct {
    uint32_t v;
    const char *name;
} name_t;
#  define NAME(c) {(uint32_t)(c), #c}
static const name_t dt_names[] = {NAME(GEX_DT_I32), NAME(GEX_DT_U32), NAME(GEX_DT_I64), NAME(GEX_DT_U64),
                                  NAME(GEX_DT_FLT), NAME(GEX_DT_DBL), NAME(GEX_DT_USER)};
static const name_t op_names[] = {
    NAME(GEX_OP_SET),   NAME(GEX_OP_CAS),    NAME(GEX_OP_ADD),  NAME(GEX_OP_SUB),   NAME(GEX_OP_MULT),
    NAME(GEX_OP_MIN),   NAME(GEX_OP_MAX),    NAME(GEX_OP_AND),  NAME(GEX_OP_OR),    NAME(GEX_OP_XOR),
    NAME(GEX_OP_INC),   NAME(GEX_OP_DEC),    NAME(GEX_OP_SWAP), NAME(GEX_OP_FCAS),  NAME(GEX_OP_FADD),
    NAME(GEX_OP_FSUB),  NAME(GEX_OP_FMULT),  NAME(GEX_OP_FMIN), NAME(GEX_OP_FMAX),  NAME(GEX_OP_FAND),
    NAME(GEX_OP_FOR),   NAME(GEX_OP_FXOR),   NAME(GEX_OP_FINC), NAME(GEX_OP_FDEC),  NAME(GEX_OP_GET),
    NAME(GEX_OP_USER),  NAME(GEX_OP_USER_NC)};
static const name_t ti_names[] = {NAME(GEX_TI_SRCRANK), NAME(GEX_TI_EP), NAME(GEX_TI_ENTRY), NAME(GEX_TI_IS_REQ),
                                  NAME(GEX_TI_IS_LONG)};
#  undef NAME

/* A value equal to one name is that name; otherwise the names whose bits it holds, joined
 * by '|', then the bits left as 0x..; nothing at all is "0". */
static size_t format_set(char *buf, uint32_t v, const name_t *names, size_t n) {
    sink_t s = {buf, 0};
    for (size_t i = 0; i < n; i++)
        if (v == names[i].v) {
            put(&s, names[i].name);
            return finish(&s);
        }
    if (!v) put(&s, "0");
    for (size_t i = 0; i < n && v; i++) {
        if (!names[i].v || (v & names[i].v) != names[i].v) continue;
        if (s.len) put(&s, "|");
        put(&s, names[i].name);
        v &= ~names[i].v;
    }
    if (v) {
        if (s.len) put(&s, "|");
        put_x(&s, v);
    }
    return finish(&s);
}
#  define NNAMES(a) (sizeof(a) / sizeof((a)[0]))
size_t gasnett_format_dt(char *buf, gex_DT_t dt) { return format_set(buf, (uint32_t)dt, dt_names, NNAMES(dt_names)); }
size_t gasnett_format_op(char *buf, gex_OP_t op) { return format_set(buf, (uint32_t)op, op_names, NNAMES(op_names)); }
size_t gasnett_format_ti(char *buf, gex_TI_t ti) { return format_set(buf, (uint32_t)ti, ti_names, NNAMES(ti_names)); }

/* "count=N total=T [(0xA,L) (0xB,L)]" */
size_t gasnett_format_memveclist_bufsz(size_t count) {
    return sizeof("count= total= []") + 2 * UDIGITS + count * (sizeof("(,) ") + PDIGITS + UDIGITS);
}

static void put_memveclist(sink_t *s, size_t count, gex_Memvec_t const *list) {
    size_t total = 0;
    int overflow = 0;
    for (size_t i = 0; list && i < count; i++) {
        overflow |= total + list[i].gex_len < total;
        total += list[i].gex_len;
    }
    put(s, "count=");
    put_u(s, count);
    put(s, " total=");
    put_total(s, total, overflow);
    put(s, " [");
    for (size_t i = 0; list && i < count; i++) {
        put(s, i ? " (" : "(");
        put_p(s, list[i].gex_addr);
        put(s, ",");
        put_u(s, list[i].gex_len);
        put(s, ")");
    }
    put(s, "]");
}

size_t gasnett_format_memveclist(char *buf, size_t count, gex_Memvec_t const *list) {
    sink_t s = {buf, 0};
    put_memveclist(&s, count, list);
    return finish(&s);
}

/* "tm=0xT rank=R " */
static void put_tm_rank(sink_t *s, gex_TM_t tm, gex_Rank_t rank) {
    put(s, "tm=");
    put_p(s, (const void *)tm);
    put(s, " rank=");
    put_u(s, rank);
}
#  define TM_RANK_BUFSZ (sizeof("tm= rank=") + PDIGITS + RDIGITS)

/* "tm=0xT rank=R dst: <memveclist> src: <memveclist>" */
size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount) {
    return TM_RANK_BUFSZ + sizeof(" dst:  src: ") + gasnett_format_memveclist_bufsz(dstcount) +
           gasnett_format_memveclist_bufsz(srccount);
}

size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               gex_Memvec_t const dstlist[], size_t srccount, gex_Memvec_t const srclist[]) {
    sink_t s = {buf, 0};
    put_tm_rank(&s, tm, rank);
    put(&s, " dst: ");
    put_memveclist(&s, dstcount, dstlist);
    put(&s, " src: ");
    put_memveclist(&s, srccount, srclist);
    return finish(&s);
}

/* "tm=0xT rank=R dst: <addrlist> src: <addrlist>" */
size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount) {
    return TM_RANK_BUFSZ + sizeof(" dst:  src: ") + gasnett_format_addrlist_bufsz(dstcount) +
           gasnett_format_addrlist_bufsz(srccount);
}

size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount, void *const dstlist[],
                               size_t dstlen, size_t srccount, void *const srclist[], size_t srclen) {
    sink_t s = {buf, 0};
    put_tm_rank(&s, tm, rank);
    put(&s, " dst: ");
    put_addrlist(&s, dstcount, dstlist, dstlen);
    put(&s, " src: ");
    put_addrlist(&s, srccount, srclist, srclen);
    return finish(&s);
}

/* "tm=0xT rank=R dst=0xD dststrides=[..] src=0xS srcstrides=[..] elemsz=E count=[..] total=T"
 * The arrays are read only when stridelevels and elemsz are both nonzero (the spec lets a
 * call pass anything for them otherwise); they are then printed as []. */
size_t gasnett_format_putsgets_bufsz(size_t stridelevels) {
    return TM_RANK_BUFSZ + 2 * PDIGITS + 2 * UDIGITS + 2 * list_bufsz(stridelevels, DDIGITS) +
           list_bufsz(stridelevels, UDIGITS) + sizeof(" dst= dststrides= src= srcstrides= elemsz= count= total=");
}

size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels) {
    (void)pstats; /* the released library's statistics record; none kept here (docs/tools.md) */
    size_t levels = elemsz ? stridelevels : 0;
    size_t total = elemsz;
    int overflow = 0;
    for (size_t i = 0; count && i < levels; i++) {
        if (count[i] && total > SIZE_MAX / count[i]) overflow = 1;
        total *= count[i];
    }
    if (count && levels && !total) overflow = 0; /* a zero count: no data, whatever else */
    sink_t s = {buf, 0};
    put_tm_rank(&s, tm, rank);
    put(&s, " dst=");
    put_p(&s, dstaddr);
    put(&s, " dststrides=");
    put_dlist(&s, levels, dststrides);
    put(&s, " src=");
    put_p(&s, srcaddr);
    put(&s, " srcstrides=");
    put_dlist(&s, levels, srcstrides);
    put(&s, " elemsz=");
    put_u(&s, elemsz);
    put(&s, " count=");
    put_ulist(&s, levels, count);
    put(&s, " total=");
    put_total(&s, total, overflow);
    return finish(&s);
}
#endif /* GASNETT_FORMAT_GEX */
