// tests/api/test_newclient_probe.cc: the header probe a newer client (UPC++ 2021.9 and
// later) runs before building anything, played against this library.  Layer: tests
// (compiled and run by tests/api/test_newclient.sh, never by automake: its flags are a
// client's, -I<GASNet source>/other and a conduit fragment's).
// Includes exactly the four headers that probe includes, in its order, then tests each
// macro with #ifdef:
//   - required names: a missing one is an #error (the client's build would stop);
//   - optional names: printed "optional NAME present|absent", and checked against what
//     this library claims (docs/system.md): GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM on smp and
//     ofi, no device memory kinds, gasnett_assume, exactly one PLATFORM_ARCH_* and one
//     PLATFORM_OS_* of the released families;
// and prints "platform ARCH OS COMPILER" for the driver to compare with uname and the
// compiler.  Ends with "newclient probe: PASS" and status 0, or names what is wrong.
#include "gasnetex.h"
#include "gasnet_tools.h"
#include "gasnet_portable_platform.h"
#include "gasnet_mk.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

// ---- required: the names the client's code uses unconditionally ----
#ifndef gasneti_builtin_unreachable
#  error "gasneti_builtin_unreachable is not defined"
#endif
#if !defined(GEX_SPEC_VERSION_MAJOR) || !defined(GEX_SPEC_VERSION_MINOR)
#  error "GEX_SPEC_VERSION_MAJOR/MINOR are not defined"
#endif
#if !defined(GASNET_RELEASE_VERSION_MAJOR) || !defined(GASNET_RELEASE_VERSION_MINOR) || !defined(GASNET_RELEASE_VERSION_PATCH)
#  error "GASNET_RELEASE_VERSION_* are not defined"
#endif
#if !defined(GASNETT_RELEASE_VERSION_MAJOR) || !defined(GASNETT_RELEASE_VERSION_MINOR)
#  error "GASNETT_RELEASE_VERSION_* are not defined"
#endif
#if !defined(PLATFORM_COMPILER_FAMILYID) || !defined(PLATFORM_COMPILER_FAMILYNAME) || \
    !defined(PLATFORM_ARCH_FAMILYNAME) || !defined(PLATFORM_OS_FAMILYNAME)
#  error "the PLATFORM_* family names are not defined"
#endif
#if !defined(GASNET_CONDUIT_NAME) || !defined(GASNET_MAXNODES) || !defined(GEX_AM_INDEX_BASE) || !defined(GASNET_PAGESIZE)
#  error "GASNET_CONDUIT_NAME, GASNET_MAXNODES, GEX_AM_INDEX_BASE or GASNET_PAGESIZE is not defined"
#endif
#if !defined(GASNET_HAVE_MK_CLASS_HOST)
#  error "GASNET_HAVE_MK_CLASS_HOST is not defined"
#endif
#if !defined(PRIuSZ) || !defined(PRIdSZ) || !defined(PRIxSZ) || !defined(MIN) || !defined(MAX)
#  error "PRIuSZ, PRIdSZ, PRIxSZ, MIN or MAX is not defined"
#endif

static int failures;
static void fail(const char *what) {
    std::printf("FAIL %s\n", what);
    failures++;
}
// "optional NAME present|absent"; want: 1 present, 0 absent, -1 either
static void optional(const char *name, bool present, int want) {
    std::printf("optional %s %s\n", name, present ? "present" : "absent");
    if (want >= 0 && present != (want == 1)) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s is %s, this library claims the opposite", name,
                      present ? "defined" : "undefined");
        fail(msg);
    }
}
#define OPT(name, want)            optional(#name, OPT_##name, want)

#ifdef GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM
#  define OPT_GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM true
#else
#  define OPT_GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM false
#endif
#ifdef GASNET_HAVE_MK_CLASS_CUDA_UVA
#  define OPT_GASNET_HAVE_MK_CLASS_CUDA_UVA true
#else
#  define OPT_GASNET_HAVE_MK_CLASS_CUDA_UVA false
#endif
#ifdef GASNET_HAVE_MK_CLASS_HIP
#  define OPT_GASNET_HAVE_MK_CLASS_HIP true
#else
#  define OPT_GASNET_HAVE_MK_CLASS_HIP false
#endif
#ifdef GASNET_HAVE_MK_CLASS_ZE
#  define OPT_GASNET_HAVE_MK_CLASS_ZE true
#else
#  define OPT_GASNET_HAVE_MK_CLASS_ZE false
#endif
#ifdef GASNET_HAVE_MK_CLASS_MULTIPLE
#  define OPT_GASNET_HAVE_MK_CLASS_MULTIPLE true
#else
#  define OPT_GASNET_HAVE_MK_CLASS_MULTIPLE false
#endif
#ifdef gasnett_assume
#  define OPT_gasnett_assume true
#else
#  define OPT_gasnett_assume false
#endif

// the released families; one of each group must be defined
struct family { const char *name; bool on; };
#define FAM(group, x) {#x, FAM_##group##_##x}
#ifdef PLATFORM_ARCH_X86_64
#  define FAM_ARCH_X86_64 true
#else
#  define FAM_ARCH_X86_64 false
#endif
#ifdef PLATFORM_ARCH_X86
#  define FAM_ARCH_X86 true
#else
#  define FAM_ARCH_X86 false
#endif
#ifdef PLATFORM_ARCH_AARCH64
#  define FAM_ARCH_AARCH64 true
#else
#  define FAM_ARCH_AARCH64 false
#endif
#ifdef PLATFORM_ARCH_ARM
#  define FAM_ARCH_ARM true
#else
#  define FAM_ARCH_ARM false
#endif
#ifdef PLATFORM_ARCH_POWERPC
#  define FAM_ARCH_POWERPC true
#else
#  define FAM_ARCH_POWERPC false
#endif
#ifdef PLATFORM_ARCH_RISCV
#  define FAM_ARCH_RISCV true
#else
#  define FAM_ARCH_RISCV false
#endif
#ifdef PLATFORM_ARCH_UNKNOWN
#  define FAM_ARCH_UNKNOWN true
#else
#  define FAM_ARCH_UNKNOWN false
#endif
#ifdef PLATFORM_OS_LINUX
#  define FAM_OS_LINUX true
#else
#  define FAM_OS_LINUX false
#endif
#ifdef PLATFORM_OS_DARWIN
#  define FAM_OS_DARWIN true
#else
#  define FAM_OS_DARWIN false
#endif
#ifdef PLATFORM_OS_FREEBSD
#  define FAM_OS_FREEBSD true
#else
#  define FAM_OS_FREEBSD false
#endif
#ifdef PLATFORM_OS_CYGWIN
#  define FAM_OS_CYGWIN true
#else
#  define FAM_OS_CYGWIN false
#endif
#ifdef PLATFORM_OS_UNKNOWN
#  define FAM_OS_UNKNOWN true
#else
#  define FAM_OS_UNKNOWN false
#endif
#ifdef PLATFORM_COMPILER_GNU
#  define FAM_COMPILER_GNU true
#else
#  define FAM_COMPILER_GNU false
#endif
#ifdef PLATFORM_COMPILER_CLANG
#  define FAM_COMPILER_CLANG true
#else
#  define FAM_COMPILER_CLANG false
#endif
#ifdef PLATFORM_COMPILER_INTEL
#  define FAM_COMPILER_INTEL true
#else
#  define FAM_COMPILER_INTEL false
#endif
#ifdef PLATFORM_COMPILER_UNKNOWN
#  define FAM_COMPILER_UNKNOWN true
#else
#  define FAM_COMPILER_UNKNOWN false
#endif

// the one defined member of a group, which must be the FAMILYNAME too; "?" if not exactly one
static const char *one_of(const char *group, const family *f, int n, const char *familyname) {
    const char *on = NULL;
    int count = 0;
    for (int i = 0; i < n; i++)
        if (f[i].on) {
            on = f[i].name;
            count++;
        }
    char msg[160];
    if (count != 1) {
        std::snprintf(msg, sizeof msg, "%d of the PLATFORM_%s_* names listed are defined, not 1", count, group);
        fail(msg);
        return "?";
    }
    if (std::strcmp(on, familyname) != 0) {
        std::snprintf(msg, sizeof msg, "PLATFORM_%s_%s is defined but PLATFORM_%s_FAMILYNAME is %s", group, on, group,
                      familyname);
        fail(msg);
    }
    return on;
}

static int reached(int argc) {
    if (argc < 0) gasneti_builtin_unreachable(); // usable as a statement, in C++
    int x = argc + 1;
    gasnett_assume(x > 0);
    return MAX(x, 1) - MIN(x, 1);
}

int main(int argc, char **) {
    // optional names and this library's claims about them
#if defined(GASNET_CONDUIT_SMP) || defined(GASNET_CONDUIT_OFI)
    OPT(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM, 1);
#else
    OPT(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM, 0);
#endif
    OPT(GASNET_HAVE_MK_CLASS_CUDA_UVA, 0);
    OPT(GASNET_HAVE_MK_CLASS_HIP, 0);
    OPT(GASNET_HAVE_MK_CLASS_ZE, 0);
    OPT(GASNET_HAVE_MK_CLASS_MULTIPLE, 0); // only with a device kind
    OPT(gasnett_assume, 1);

    const family arch[] = {FAM(ARCH, X86_64), FAM(ARCH, X86),   FAM(ARCH, AARCH64), FAM(ARCH, ARM),
                           FAM(ARCH, POWERPC), FAM(ARCH, RISCV), FAM(ARCH, UNKNOWN)};
    const family os[] = {FAM(OS, LINUX), FAM(OS, DARWIN), FAM(OS, FREEBSD), FAM(OS, CYGWIN), FAM(OS, UNKNOWN)};
    const family cc[] = {FAM(COMPILER, GNU), FAM(COMPILER, CLANG), FAM(COMPILER, INTEL), FAM(COMPILER, UNKNOWN)};
    const char *a = one_of("ARCH", arch, sizeof arch / sizeof arch[0], _STRINGIFY(PLATFORM_ARCH_FAMILYNAME));
    const char *o = one_of("OS", os, sizeof os / sizeof os[0], _STRINGIFY(PLATFORM_OS_FAMILYNAME));
    const char *c = one_of("COMPILER", cc, sizeof cc / sizeof cc[0], _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME));
#ifdef PLATFORM_ARCH_64
    const int bits = 64;
#else
    const int bits = 32;
#endif
    if (bits != (int)(8 * sizeof(void *))) fail("PLATFORM_ARCH_64/_32 disagrees with sizeof(void *)");
    std::printf("platform %s %s %s\n", a, o, c);

    // what the client then uses: the spec version, a size_t format, a formatting helper
    std::printf("spec %d.%d\n", GEX_SPEC_VERSION_MAJOR, GEX_SPEC_VERSION_MINOR);
    char line[64];
    std::snprintf(line, sizeof line, "%" PRIuSZ, sizeof(gex_Memvec_t));
    if (std::strtoul(line, NULL, 10) != sizeof(gex_Memvec_t)) fail("PRIuSZ does not print a size_t");
    size_t need = gasnett_format_ti(NULL, GEX_TI_ALL);
    char ti[256];
    if (need >= sizeof ti || gasnett_format_ti(ti, GEX_TI_ALL) != need || std::strlen(ti) != need ||
        std::strstr(ti, "GEX_TI_SRCRANK") != ti)
        fail("gasnett_format_ti from C++");
    if (reached(argc) != 1) fail("MIN/MAX");

    if (failures) {
        std::printf("newclient probe: %d FAILED\n", failures);
        return 1;
    }
    std::printf("newclient probe: PASS\n");
    return 0;
}
