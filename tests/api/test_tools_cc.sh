#!/bin/bash
# tests/api/test_tools_cc.sh: gasnet_tools.h as compilers see it, without a conduit.
#   test_tools_cc.sh BUILDDIR SRCDIR
# With the build's C and C++ compilers (CC and CXX of BUILDDIR/Makefile), checks:
#   - one client using the names of the released tools API that are not in v0.8 (the
#     4-argument GASNETT_FORMAT_PRINTF and _FUNCPTR, the pragma forms, GASNETT_DEPRECATED,
#     GASNETT_EXTERNC, GASNETT_UNUSED_ARGS1..8, gasnett_assume / _unreachable /
#     _constant_p, count0s, current_loc, reghandler, maximize_rlimit(s), release_version,
#     the weak fences, every atomic family) builds with -Wall -Wextra -Werror as C99
#     (-pedantic) and as C++11 and C++17, links with libgasnet_tools-par.a and runs;
#     C++ also checks the released return types (char * from gasnett_format_number, int
#     from gasnett_nsleep and gasnett_set_affinity);
#   - a printf-format mismatch in a call of a function declared with the 4-argument
#     GASNETT_FORMAT_PRINTF, or through a pointer declared with _FUNCPTR, is an error
#     under -Werror=format, in C and C++; with -DGASNETT_USE_GCC_ATTRIBUTE_FORMAT=0 (and
#     _FORMAT_FUNCPTR=0) the same source builds: the client's knob wins;
#   - a call of a GASNETT_DEPRECATED function is an error under
#     -Werror=deprecated-declarations, and builds with GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED=0;
#   - PRIuSZ/PRIdSZ/PRIxSZ, MIN and MAX (which the released headers give every client) with
#     -Wall -Wextra -Werror in C99 and C++11: glibc's <sys/param.h> (its own MIN/MAX) may come
#     before or after gasnet_tools.h, and a client's own MIN defined first is kept;
#   - every prototype README-tools lists (tests/api/test_tools_proto.c) takes arguments of
#     the documented types and has the documented result type, in both threading modes.
# Layer: tests (driver).
set -u
[ $# -eq 2 ] || { echo "usage: test_tools_cc.sh BUILDDIR SRCDIR" >&2; exit 2; }
B=$(cd "$1" && pwd) || exit 2
S=$(cd "$2" && pwd) || exit 2
CC=$(sed -n 's/^CC = //p' "$B/Makefile")
CXX=$(sed -n 's/^CXX = //p' "$B/Makefile")
[ -n "$CC" ] && [ -n "$CXX" ] || { echo "FAIL test_tools_cc: no CC / CXX in $B/Makefile"; exit 1; }
[ -f "$B/libgasnet_tools-par.a" ] || { echo "FAIL test_tools_cc: $B/libgasnet_tools-par.a is not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-tools-cc.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL test_tools_cc: $*"; failed=1; }
ok() { echo "ok   $*"; }
FLAGS=(-I"$S" -I"$S/other" -I"$B" -D_GNU_SOURCE -DGASNETT_THREAD_SAFE -D_REENTRANT)

cat > "$tmp/client.c" <<'EOF'
#include <gasnet_tools.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
GASNETT_FORMAT_PRINTF(say, 2, 3, static int say(char *buf, const char *fmt, ...));
static int say(char *buf, const char *fmt, ...) {
    (void)fmt;
    buf[0] = 'x';
    return 1;
}
GASNETT_FORMAT_PRINTF_FUNCPTR(say_fp, 2, 3, static int (*say_fp)(char *, const char *, ...)) = say;
GASNETT_MALLOC extern void *mk(size_t n);
GASNETT_MALLOCP(mk)
GASNETT_PURE extern int pu(const int *p);
GASNETT_PUREP(pu)
GASNETT_CONST extern int co(int x);
GASNETT_CONSTP(co)
GASNETT_DEPRECATED extern int old_fn(int x);
extern void bye(int) GASNETT_NORETURN;
GASNETT_NORETURNP(bye)
GASNETT_EXTERNC int ext_fn(int x);
void *mk(size_t n) { return malloc(n); }
int pu(const int *p) { return *p; }
int co(int x) { return x + 1; }
int old_fn(int x) { return x; }
void bye(int c) { exit(c); }
int ext_fn(int x) { return x; }
static void on_sig(int s) { (void)s; }
#define FAMILY(T, V)                                                                           \
    do {                                                                                       \
        T##_t a = T##_init(1);                                                                 \
        T##_set(&a, 5, GASNETT_ATOMIC_NONE);                                                   \
        T##_increment(&a, GASNETT_ATOMIC_REL);                                                 \
        T##_decrement(&a, GASNETT_ATOMIC_ACQ);                                                 \
        bad += T##_add(&a, 2, GASNETT_ATOMIC_MB_PRE) != 7;                                     \
        bad += T##_subtract(&a, 6, GASNETT_ATOMIC_MB_POST) != 1;                               \
        bad += !T##_compare_and_swap(&a, 1, 4, GASNETT_ATOMIC_ACQ_IF_TRUE);                    \
        bad += T##_swap(&a, 1, GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_POST) != 4;         \
        bad += !T##_decrement_and_test(&a, GASNETT_ATOMIC_ACQ_IF_FALSE);                       \
        bad += T##_read(&a, GASNETT_ATOMIC_RMB_POST) != (V)0;                                  \
    } while (0)
int main(void) {
    int bad = 0, k = 0, one = 1;
    char buf[64];
    bad += say(buf, "%d", 1) != 1 || say_fp(buf, "%s", "s") != 1;
    void *p = mk(4);
    bad += p == NULL || pu(&one) != 1 || co(1) != 2 || ext_fn(3) != 3;
    free(p);
    GASNETT_UNUSED_ARGS1(k++);
    GASNETT_UNUSED_ARGS2(k++, k++);
    GASNETT_UNUSED_ARGS3(k++, k++, k++);
    GASNETT_UNUSED_ARGS4(k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS5(k++, k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS6(k++, k++, k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS7(k++, k++, k++, k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS8(k++, k++, k++, k++, k++, k++, k++, k++);
    bad += k != 36;
    gasnett_assume(k == 36);
    bad += !gasnett_constant_p(12);
    if (k != 36) gasnett_unreachable();
    bad += gasnett_count0s_uint32_t(0) != 4 || gasnett_count0s_uint64_t(1) != 7 ||
           gasnett_count0s_uintptr_t(0) != (int)sizeof(uintptr_t);
    static const char zz[5] = {0, 1, 0, 2, 0};
    char cp[5];
    bad += gasnett_count0s(zz, 5) != 3 || gasnett_count0s_copy(cp, zz, 5) != 3 || memcmp(cp, zz, 5);
    char *loc = gasnett_current_loc;
    bad += strstr(loc, "main() at ") != loc;
    free(loc);
    gasnett_sighandlerfn_t prev = gasnett_reghandler(SIGUSR2, on_sig);
    bad += gasnett_reghandler(SIGUSR2, prev) != on_sig;
    bad += !gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU") || !gasnett_maximize_rlimits();
    bad += gasnett_release_version() != (uint64_t)GASNETT_RELEASE_VERSION_MAJOR * 1000000 +
                                            GASNETT_RELEASE_VERSION_MINOR * 10000 + GASNETT_RELEASE_VERSION_PATCH;
    size_t sz = sizeof buf;
    snprintf(buf, sizeof buf, "%" PRIuSZ ",%" PRIdSZ ",%" PRIxSZ, sz, -(ssize_t)sz, sz);
    bad += strcmp(buf, "64,-64,40") != 0 || MIN(sz, (size_t)3) != 3 || MAX(-2, 1) != 1;
    bad += gasnett_isLittleEndian() != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
    gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
    bad += gasnett_mutex_destroy_ignoreerr(&m) != 0;
    gasnett_weak_mb();
    gasnett_weak_rmb();
    gasnett_weak_wmb();
    GASNETT_STATS_DUMP(1);
    int ns = gasnett_nsleep(0);
    char *num = gasnett_format_number(2048, buf, sizeof buf, 1);
    bad += ns != 0 || strcmp(num, "2 KB") != 0 || gasnett_print_backtrace_ifenabled == NULL;
#if GASNETT_SET_AFFINITY_SUPPORT
    cpu_set_t mask;
    sched_getaffinity(0, sizeof mask, &mask);
    int aff = gasnett_set_affinity(0);
    sched_setaffinity(0, sizeof mask, &mask);
    bad += aff != 0;
#endif
    FAMILY(gasnett_atomic, gasnett_atomic_val_t);
    FAMILY(gasnett_atomic32, uint32_t);
    FAMILY(gasnett_atomic64, uint64_t);
    FAMILY(gasnett_strongatomic, gasnett_atomic_val_t);
    FAMILY(gasnett_strongatomic32, uint32_t);
    FAMILY(gasnett_strongatomic64, uint64_t);
    if (bad) bye(1);
    return 0;
}
EOF
cat > "$tmp/badfmt.c" <<'EOF'
#include <gasnet_tools.h>
GASNETT_FORMAT_PRINTF(logf_, 1, 2, extern void logf_(const char *fmt, ...));
GASNETT_FORMAT_PRINTF_FUNCPTR(logp, 1, 2, extern void (*logp)(const char *fmt, ...));
void call_them(void);
void call_them(void) {
    logf_("%d", "not an int");
    logp("%s", 42);
}
EOF
cat > "$tmp/deprec.c" <<'EOF'
#include <gasnet_tools.h>
GASNETT_DEPRECATED extern int old_fn(int x);
int call_it(void);
int call_it(void) { return old_fn(1); }
EOF

cat > "$tmp/minmax.c" <<'EOF'
#ifdef PARAM_FIRST
#  include <sys/param.h>
#endif
#ifdef OWN_MIN
#  define MIN(a, b) 12345
#endif
#include <gasnet_tools.h>
#if !defined(PARAM_FIRST) && !defined(OWN_MIN) /* (glibc would redefine the client's own) */
#  include <sys/param.h>
#endif
#include <stdio.h>
#include <string.h>
int main(void) {
    char b[64];
    size_t z = 17;
    snprintf(b, sizeof b, "%" PRIuSZ " %" PRIdSZ " %" PRIxSZ, z, -(ssize_t)z, z);
#ifdef OWN_MIN
    if (MIN(1, 2) != 12345) return 1;
#else
    if (MIN(z, (size_t)3) != 3) return 1;
#endif
    return strcmp(b, "17 -17 11") != 0 || MAX(z, (size_t)40) != 40;
}
EOF
# C99 and C++11; sys/param.h after and before gasnet_tools.h; the client's own MIN
for variant in "c:$CC -std=c99 -pedantic -D_POSIX_C_SOURCE=200809L -x c" "c++:$CXX -std=c++11 -x c++"; do
    lang=${variant%%:*}; comp=${variant#*:}
    for order in "" -DPARAM_FIRST -DOWN_MIN; do
        if $comp -Wall -Wextra -Werror "${FLAGS[@]}" $order -o "$tmp/minmax" "$tmp/minmax.c" > "$tmp/minmax.log" 2>&1 &&
           "$tmp/minmax"; then
            ok "$lang ${order:-(sys/param.h after)}: PRIuSZ/PRIdSZ/PRIxSZ, MIN and MAX with -Wall -Wextra -Werror"
        else
            bad "$lang ${order:-(sys/param.h after)}: PRIuSZ/MIN/MAX client failed:"; cat "$tmp/minmax.log"
        fi
    done
done

# compiler language-flags... : builds client.c, links it with the tools library, runs it
build_run() {
    local name=$1; shift
    local out="$tmp/$name"
    if ! "$@" -Wall -Wextra -Werror "${FLAGS[@]}" -o "$out" "$tmp/client.c" -x none "$B/libgasnet_tools-par.a" \
         -lpthread -lm > "$out.log" 2>&1; then
        bad "$name: does not build:"; cat "$out.log"; return
    fi
    if ! "$out" > "$out.run" 2>&1; then bad "$name: the client's checks failed:"; cat "$out.run"; return; fi
    ok "$name: built with -Wall -Wextra -Werror, linked with libgasnet_tools-par.a, ran"
}
build_run c99 $CC -std=c99 -pedantic -D_POSIX_C_SOURCE=200809L -x c
build_run c++11 $CXX -std=c++11 -x c++
build_run c++17 $CXX -std=c++17 -x c++

# lang compiler...: badfmt.c must fail with both mismatches; with the knobs at 0 it builds
for lang in c c++; do
    comp=$CC; [ "$lang" = c++ ] && comp=$CXX
    log="$tmp/badfmt-$lang.log"
    if $comp -x $lang -Werror=format "${FLAGS[@]}" -c -o "$tmp/badfmt.o" "$tmp/badfmt.c" > "$log" 2>&1; then
        bad "$lang: a printf-format mismatch under GASNETT_FORMAT_PRINTF(4 args) built without error"
    elif [ "$(grep -c 'error:.*format' "$log")" -lt 2 ]; then
        bad "$lang: expected two format errors (function and pointer):"; cat "$log"
    else
        ok "$lang: both format mismatches are errors (GASNETT_FORMAT_PRINTF and _FUNCPTR)"
    fi
    if $comp -x $lang -Werror=format -DGASNETT_USE_GCC_ATTRIBUTE_FORMAT=0 -DGASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR=0 \
         "${FLAGS[@]}" -c -o "$tmp/badfmt.o" "$tmp/badfmt.c" > "$log" 2>&1; then
        ok "$lang: GASNETT_USE_GCC_ATTRIBUTE_FORMAT=0 / _FUNCPTR=0 turn the checks off"
    else
        bad "$lang: with the format knobs at 0 the mismatches are still errors:"; cat "$log"
    fi
    log="$tmp/deprec-$lang.log"
    if $comp -x $lang -Werror=deprecated-declarations "${FLAGS[@]}" -c -o "$tmp/deprec.o" "$tmp/deprec.c" > "$log" 2>&1; then
        bad "$lang: a call of a GASNETT_DEPRECATED function built without error"
    elif ! grep -q "deprecated" "$log"; then
        bad "$lang: the GASNETT_DEPRECATED call failed, but not as deprecated:"; cat "$log"
    elif ! $comp -x $lang -Werror=deprecated-declarations -DGASNETT_USE_GCC_ATTRIBUTE_DEPRECATED=0 "${FLAGS[@]}" \
           -c -o "$tmp/deprec.o" "$tmp/deprec.c" > "$log" 2>&1; then
        bad "$lang: with GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED=0 the call is still an error:"; cat "$log"
    else
        ok "$lang: GASNETT_DEPRECATED warns at a call, and not with its knob at 0"
    fi
done

# every prototype of README-tools, with its documented argument and result types, in both
# threading modes (tests/api/test_tools_proto.c)
for mode in GASNETT_THREAD_SAFE GASNETT_THREAD_SINGLE; do
    log="$tmp/proto-$mode.log"
    if $CC -std=gnu11 -Wall -Werror -Werror=incompatible-pointer-types -Werror=int-conversion \
           -Werror=discarded-qualifiers -Wno-unused-function -I"$S" -I"$S/other" -I"$B" -D_GNU_SOURCE \
           -D$mode=1 -c -o "$tmp/proto.o" "$S/tests/api/test_tools_proto.c" > "$log" 2>&1; then
        ok "C, $mode: the $(grep -c '^static void chk' "$S/tests/api/test_tools_proto.c") README-tools prototypes, as documented"
    else
        bad "C, $mode: a README-tools prototype differs from gasnet_tools.h:"; head -20 "$log"
    fi
done
exit $failed
