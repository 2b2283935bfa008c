/* gasnet_mk.h: memory kinds (gex_MK_*, from gasnet-ex-proposed-additions-2020 under the
 * names released GASNet-EX ships).
 * Layer: public. This build knows host memory only: gex_MK_Create of a device class
 * (CUDA, HIP, Level Zero) returns GASNET_ERR_BAD_ARG ("not supported by this build"),
 * and no GASNET_HAVE_MK_CLASS_<device> macro is defined. Defined in gasneti_ep.c. */
#ifndef GASNET_MK_H
#define GASNET_MK_H
#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

typedef enum {
    GEX_MK_CLASS_HOST = 0,
    GEX_MK_CLASS_CUDA_UVA = 1,
    GEX_MK_CLASS_HIP = 2,
    GEX_MK_CLASS_ZE = 3
} gex_MK_Class_t;
#define GASNET_HAVE_MK_CLASS_HOST 1
/* GASNET_HAVE_MK_CLASS_MULTIPLE (a kind besides host memory) is left undefined, as the
 * released header leaves it without a device kind: clients test it with #ifdef */

typedef struct {
    gex_MK_Class_t gex_class;
    union {
        int gex_CUdevice;  /* GEX_MK_CLASS_CUDA_UVA */
        int gex_hipDevice; /* GEX_MK_CLASS_HIP */
        struct {           /* GEX_MK_CLASS_ZE */
            void *gex_zeDevice;
            void *gex_zeContext;
            uint32_t gex_zeMemoryOrdinal;
        } gex_ze;
    } gex_args;
} gex_MK_Create_args_t;

/* GASNET_OK with *kind_p set; GASNET_ERR_BAD_ARG (and *kind_p untouched) for a class this
 * build does not support or bad arguments. */
extern int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args, gex_Flags_t flags);
extern void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags);
extern gex_MK_Class_t gex_MK_QueryClass(gex_MK_t kind);

GASNETI_END_EXTERNC
#endif
