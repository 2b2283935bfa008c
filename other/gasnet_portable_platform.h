/* gasnet_portable_platform.h: one naming scheme for the compiler, operating system and
 * CPU a translation unit is compiled for, from the compilers' own predefined macros
 * (README-tools "Portable platform defines"), so that a client writes
 *     #if PLATFORM_COMPILER_GNU && PLATFORM_ARCH_X86_64 && PLATFORM_OS_LINUX
 * Layer: public (included by gasnetex.h and gasnet_tools.h; also usable alone, from C or
 * C++). Kept in other/ of the source tree, where the released tree has it (newer UPC++
 * compiles with -I<GASNet source>/other); installed flat in include/.
 *
 * Exactly one of each group is defined to 1 (the others stay undefined):
 *   PLATFORM_COMPILER_{INTEL,NVHPC,PGI,CRAY,XLC,SUN,MICROSOFT,CLANG,GNU,UNKNOWN}
 *     (checked in that order: Intel, NVHPC and Clang define __GNUC__ too)
 *   PLATFORM_OS_{LINUX,DARWIN,FREEBSD,NETBSD,OPENBSD,CYGWIN,SOLARIS,AIX,MSWINDOWS,UNKNOWN}
 *   PLATFORM_ARCH_{X86_64,X86,AARCH64,ARM,POWERPC,RISCV,MIPS,SPARC,S390,LOONGARCH,UNKNOWN}
 * and for each group a FAMILYNAME, the bare word of the one defined (GNU, LINUX, X86_64),
 * for _STRINGIFY. Besides:
 *   PLATFORM_COMPILER_FAMILYID     a small integer per compiler family (GNU 1, ... see below)
 *   PLATFORM_COMPILER_VERSION      the version as PLATFORM_COMPILER_VERSION_INT(maj,min,pat)
 *   PLATFORM_COMPILER_VERSION_INT(maj,min,pat)   maj<<16 | min<<8 | pat (min, pat < 256)
 *   PLATFORM_COMPILER_VERSION_{GT,GE,EQ,LT}(maj,min,pat)   the version compared with it
 *   PLATFORM_COMPILER_VERSION_STR  the version as a string ("12.2.0")
 *   PLATFORM_COMPILER_ID           FAMILYID * 2^24 + VERSION: one number per compiler release
 *   PLATFORM_COMPILER_IDSTR        "FAMILYNAME VERSION_STR" (with __VERSION__ where the
 *                                  compiler gives one): tells two builds' compilers apart
 *   PLATFORM_COMPILER_C_LANGLVL    in C: __STDC_VERSION__ (199000L for C89/C90)
 *   PLATFORM_COMPILER_CXX_LANGLVL  in C++: __cplusplus
 *   PLATFORM_ARCH_64 or PLATFORM_ARCH_32            the width of a pointer
 *   PLATFORM_ARCH_LITTLE_ENDIAN or PLATFORM_ARCH_BIG_ENDIAN
 *
 * Another header of the same scheme (a client's own portable_platform.h) may come first:
 * then its definitions are kept and this one adds nothing. */
#ifndef GASNET_PORTABLE_PLATFORM_H
#define GASNET_PORTABLE_PLATFORM_H
#ifndef PLATFORM_COMPILER_FAMILYID

#define _PLATFORM_STR1(x) #x
#define _PLATFORM_STR(x) _PLATFORM_STR1(x)

#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) (((maj) << 16) | ((min) << 8) | (pat))

/* ---- compiler ---- */
#if defined(__INTEL_LLVM_COMPILER) /* icx: __INTEL_LLVM_COMPILER is YYYYMMPP */
#  define PLATFORM_COMPILER_INTEL 1
#  define PLATFORM_COMPILER_FAMILYNAME INTEL
#  define PLATFORM_COMPILER_FAMILYID 2
#  define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__INTEL_LLVM_COMPILER / 10000, __INTEL_LLVM_COMPILER / 100 % 100, \
                                    __INTEL_LLVM_COMPILER % 100)
#elif defined(__INTEL_COMPILER) /* icc: __INTEL_COMPILER is VVRR or YYYY */
#  define PLATFORM_COMPILER_INTEL 1
#  define PLATFORM_COMPILER_FAMILYNAME INTEL
#  define PLATFORM_COMPILER_FAMILYID 2
#  if __INTEL_COMPILER >= 2021
#    define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER, 0, 0)
#  else
#    define PLATFORM_COMPILER_VERSION \
        PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER / 100, __INTEL_COMPILER / 10 % 10, __INTEL_COMPILER % 10)
#  endif
#elif defined(__NVCOMPILER)
#  define PLATFORM_COMPILER_NVHPC 1
#  define PLATFORM_COMPILER_FAMILYNAME NVHPC
#  define PLATFORM_COMPILER_FAMILYID 20
#  define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, __NVCOMPILER_PATCHLEVEL__)
#elif defined(__PGI)
#  define PLATFORM_COMPILER_PGI 1
#  define PLATFORM_COMPILER_FAMILYNAME PGI
#  define PLATFORM_COMPILER_FAMILYID 4
#  define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__PGIC__, __PGIC_MINOR__, __PGIC_PATCHLEVEL__)
#elif defined(_CRAYC) && defined(_RELEASE_MAJOR) /* the classic Cray compiler */
#  define PLATFORM_COMPILER_CRAY 1
#  define PLATFORM_COMPILER_FAMILYNAME CRAY
#  define PLATFORM_COMPILER_FAMILYID 10
#  define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(_RELEASE_MAJOR, _RELEASE_MINOR, 0)
#elif defined(__ibmxl__) || defined(__xlC__) || defined(__IBMC__)
#  define PLATFORM_COMPILER_XLC 1
#  define PLATFORM_COMPILER_FAMILYNAME XLC
#  define PLATFORM_COMPILER_FAMILYID 5
#  if defined(__ibmxl_version__)
#    define PLATFORM_COMPILER_VERSION \
        PLATFORM_COMPILER_VERSION_INT(__ibmxl_version__, __ibmxl_release__, __ibmxl_modification__)
#  else
#    define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__xlC__ >> 8, __xlC__ & 0xff, 0)
#  endif
#elif defined(__SUNPRO_C) || defined(__SUNPRO_CC)
#  define PLATFORM_COMPILER_SUN 1
#  define PLATFORM_COMPILER_FAMILYNAME SUN
#  define PLATFORM_COMPILER_FAMILYID 7
#  define PLATFORM_COMPILER_VERSION 0
#elif defined(_MSC_VER)
#  define PLATFORM_COMPILER_MICROSOFT 1
#  define PLATFORM_COMPILER_FAMILYNAME MICROSOFT
#  define PLATFORM_COMPILER_FAMILYID 14
#  define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(_MSC_VER / 100, _MSC_VER % 100, 0)
#elif defined(__clang__)
#  define PLATFORM_COMPILER_CLANG 1
#  define PLATFORM_COMPILER_FAMILYNAME CLANG
#  define PLATFORM_COMPILER_FAMILYID 19
#  define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__)
#elif defined(__GNUC__)
#  define PLATFORM_COMPILER_GNU 1
#  define PLATFORM_COMPILER_FAMILYNAME GNU
#  define PLATFORM_COMPILER_FAMILYID 1
#  if defined(__GNUC_PATCHLEVEL__)
#    define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#  else
#    define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, 0)
#  endif
#else
#  define PLATFORM_COMPILER_UNKNOWN 1
#  define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#  define PLATFORM_COMPILER_FAMILYID 0
#  define PLATFORM_COMPILER_VERSION 0
#endif

#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat) (PLATFORM_COMPILER_VERSION > PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat) (PLATFORM_COMPILER_VERSION >= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat) (PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat) (PLATFORM_COMPILER_VERSION < PLATFORM_COMPILER_VERSION_INT(maj, min, pat))

/* family and version in one number; the family above bit 32, so that a version whose major
 * part is a year (Intel's, 2021 and later) cannot reach it */
#define PLATFORM_COMPILER_ID (PLATFORM_COMPILER_FAMILYID * 0x100000000LL + PLATFORM_COMPILER_VERSION)

/* the version as a string, from the compiler's own macros where they are plain numbers */
#if defined(PLATFORM_COMPILER_GNU) && defined(__GNUC_PATCHLEVEL__)
#  define PLATFORM_COMPILER_VERSION_STR \
      _PLATFORM_STR(__GNUC__) "." _PLATFORM_STR(__GNUC_MINOR__) "." _PLATFORM_STR(__GNUC_PATCHLEVEL__)
#elif defined(PLATFORM_COMPILER_CLANG)
#  define PLATFORM_COMPILER_VERSION_STR \
      _PLATFORM_STR(__clang_major__) "." _PLATFORM_STR(__clang_minor__) "." _PLATFORM_STR(__clang_patchlevel__)
#elif defined(PLATFORM_COMPILER_NVHPC)
#  define PLATFORM_COMPILER_VERSION_STR \
      _PLATFORM_STR(__NVCOMPILER_MAJOR__) "." _PLATFORM_STR(__NVCOMPILER_MINOR__) "." _PLATFORM_STR(__NVCOMPILER_PATCHLEVEL__)
#elif defined(PLATFORM_COMPILER_INTEL) && defined(__INTEL_LLVM_COMPILER)
#  define PLATFORM_COMPILER_VERSION_STR _PLATFORM_STR(__INTEL_LLVM_COMPILER)
#elif defined(PLATFORM_COMPILER_INTEL)
#  define PLATFORM_COMPILER_VERSION_STR _PLATFORM_STR(__INTEL_COMPILER)
#elif defined(PLATFORM_COMPILER_MICROSOFT)
#  define PLATFORM_COMPILER_VERSION_STR _PLATFORM_STR(_MSC_VER)
#else
#  define PLATFORM_COMPILER_VERSION_STR "unknown"
#endif
#if defined(__VERSION__)
#  define PLATFORM_COMPILER_IDSTR \
      _PLATFORM_STR(PLATFORM_COMPILER_FAMILYNAME) " " PLATFORM_COMPILER_VERSION_STR " (" __VERSION__ ")"
#else
#  define PLATFORM_COMPILER_IDSTR _PLATFORM_STR(PLATFORM_COMPILER_FAMILYNAME) " " PLATFORM_COMPILER_VERSION_STR
#endif

/* the language level */
#if defined(__cplusplus)
#  define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#elif defined(__STDC_VERSION__)
#  define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#else
#  define PLATFORM_COMPILER_C_LANGLVL 199000L
#endif

/* ---- operating system ---- */
#if defined(__linux__) || defined(__linux) || defined(__gnu_linux__)
#  define PLATFORM_OS_LINUX 1
#  define PLATFORM_OS_FAMILYNAME LINUX
#elif defined(__APPLE__) && defined(__MACH__)
#  define PLATFORM_OS_DARWIN 1
#  define PLATFORM_OS_FAMILYNAME DARWIN
#elif defined(__FreeBSD__)
#  define PLATFORM_OS_FREEBSD 1
#  define PLATFORM_OS_FAMILYNAME FREEBSD
#elif defined(__NetBSD__)
#  define PLATFORM_OS_NETBSD 1
#  define PLATFORM_OS_FAMILYNAME NETBSD
#elif defined(__OpenBSD__)
#  define PLATFORM_OS_OPENBSD 1
#  define PLATFORM_OS_FAMILYNAME OPENBSD
#elif defined(__CYGWIN__)
#  define PLATFORM_OS_CYGWIN 1
#  define PLATFORM_OS_FAMILYNAME CYGWIN
#elif defined(__sun) || defined(__sun__)
#  define PLATFORM_OS_SOLARIS 1
#  define PLATFORM_OS_FAMILYNAME SOLARIS
#elif defined(_AIX)
#  define PLATFORM_OS_AIX 1
#  define PLATFORM_OS_FAMILYNAME AIX
#elif defined(_WIN32)
#  define PLATFORM_OS_MSWINDOWS 1
#  define PLATFORM_OS_FAMILYNAME MSWINDOWS
#else
#  define PLATFORM_OS_UNKNOWN 1
#  define PLATFORM_OS_FAMILYNAME UNKNOWN
#endif

/* ---- CPU ---- */
#if defined(__x86_64__) || defined(__x86_64) || defined(__amd64__) || defined(_M_X64)
#  define PLATFORM_ARCH_X86_64 1
#  define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__i386__) || defined(__i386) || defined(_M_IX86)
#  define PLATFORM_ARCH_X86 1
#  define PLATFORM_ARCH_FAMILYNAME X86
#elif defined(__aarch64__) || defined(_M_ARM64)
#  define PLATFORM_ARCH_AARCH64 1
#  define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__arm__) || defined(_M_ARM)
#  define PLATFORM_ARCH_ARM 1
#  define PLATFORM_ARCH_FAMILYNAME ARM
#elif defined(__powerpc__) || defined(__powerpc64__) || defined(__ppc__) || defined(__PPC__)
#  define PLATFORM_ARCH_POWERPC 1
#  define PLATFORM_ARCH_FAMILYNAME POWERPC
#elif defined(__riscv)
#  define PLATFORM_ARCH_RISCV 1
#  define PLATFORM_ARCH_FAMILYNAME RISCV
#elif defined(__mips__) || defined(__mips)
#  define PLATFORM_ARCH_MIPS 1
#  define PLATFORM_ARCH_FAMILYNAME MIPS
#elif defined(__sparc__) || defined(__sparc)
#  define PLATFORM_ARCH_SPARC 1
#  define PLATFORM_ARCH_FAMILYNAME SPARC
#elif defined(__s390__) || defined(__s390x__)
#  define PLATFORM_ARCH_S390 1
#  define PLATFORM_ARCH_FAMILYNAME S390
#elif defined(__loongarch__)
#  define PLATFORM_ARCH_LOONGARCH 1
#  define PLATFORM_ARCH_FAMILYNAME LOONGARCH
#else
#  define PLATFORM_ARCH_UNKNOWN 1
#  define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#endif

/* pointer width: the compiler's own __SIZEOF_POINTER__ where it has one, else the ABI */
#if defined(__SIZEOF_POINTER__)
#  if __SIZEOF_POINTER__ == 8
#    define PLATFORM_ARCH_64 1
#  else
#    define PLATFORM_ARCH_32 1
#  endif
#elif defined(_LP64) || defined(__LP64__) || defined(_WIN64)
#  define PLATFORM_ARCH_64 1
#else
#  define PLATFORM_ARCH_32 1
#endif

/* byte order */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__)
#  if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#    define PLATFORM_ARCH_BIG_ENDIAN 1
#  else
#    define PLATFORM_ARCH_LITTLE_ENDIAN 1
#  endif
#elif defined(__BIG_ENDIAN__) || defined(__ARMEB__) || defined(__MIPSEB__) || defined(_BIG_ENDIAN)
#  define PLATFORM_ARCH_BIG_ENDIAN 1
#else
#  define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

#endif /* PLATFORM_COMPILER_FAMILYID */
#endif
