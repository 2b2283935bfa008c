/* tests/api/test_tools_proto.c: the prototypes of README-tools (the released tools API),
 * checked against gasnet_tools.h: each call, made with arguments of the documented types,
 * compiles (incompatible pointers, int/pointer conversions and dropped qualifiers are
 * errors: see test_tools_cc.sh) and has the documented result type.  A name may be a
 * function or a macro, as the released text allows.  Where we differ on purpose
 * (docs/compatibility.md), RET_INT_FOR_VOID says so: the mutex, condition-variable and
 * rwlock calls and gasnett_setenv/_unsetenv return an int (the pthread or libc code) where
 * void is documented, which every call written for void accepts.
 * Compile-only (GNU C11: __typeof__, __builtin_types_compatible_p); written once from the
 * prototypes README-tools lists, one function a prototype.  Layer: tests (public tools API). */
#include <gasnet_tools.h>
#include <signal.h>
#include <sys/resource.h>

#define RET_IS(call, type)                                                                                             \
    _Static_assert(__builtin_types_compatible_p(__typeof__(call), type), #call " returns " #type);                     \
    if (0) (void)(call)
#define RET_INT_FOR_VOID(call) RET_IS(call, int)

static void chk1(void) { RET_IS(gasnett_ticks_now(), gasnett_tick_t); }
static void chk2(gasnett_tick_t a0) { RET_IS(gasnett_ticks_to_ns(a0), uint64_t); }
static void chk3(uint64_t a0) { RET_IS(gasnett_nsleep(a0), int); }
static void chk4(gasnett_atomic_t *a0, gasnett_atomic_val_t a1, int a2) {
    RET_IS(gasnett_atomic_set(a0, a1, a2), void);
}
static void chk5(gasnett_atomic_t *a0, int a1) { RET_IS(gasnett_atomic_read(a0, a1), gasnett_atomic_val_t); }
static void chk6(gasnett_atomic_t *a0, int a1) { RET_IS(gasnett_atomic_increment(a0, a1), void); }
static void chk7(gasnett_atomic_t *a0, int a1) { RET_IS(gasnett_atomic_decrement(a0, a1), void); }
static void chk8(gasnett_atomic_t *a0, int a1) { RET_IS(gasnett_atomic_decrement_and_test(a0, a1), int); }
static void chk9(gasnett_atomic_t *a0, gasnett_atomic_val_t a1, int a2) {
    RET_IS(gasnett_atomic_add(a0, a1, a2), gasnett_atomic_val_t);
}
static void chk10(gasnett_atomic_t *a0, gasnett_atomic_val_t a1, int a2) {
    RET_IS(gasnett_atomic_subtract(a0, a1, a2), gasnett_atomic_val_t);
}
static void chk11(gasnett_atomic_t *a0, gasnett_atomic_val_t a1, gasnett_atomic_val_t a2, int a3) {
    RET_IS(gasnett_atomic_compare_and_swap(a0, a1, a2, a3), int);
}
static void chk12(gasnett_atomic_t *a0, gasnett_atomic_val_t a1, int a2) {
    RET_IS(gasnett_atomic_swap(a0, a1, a2), gasnett_atomic_val_t);
}
static void chk13(gasnett_atomic32_t *a0, uint32_t a1, int a2) { RET_IS(gasnett_atomic32_set(a0, a1, a2), void); }
static void chk14(gasnett_atomic64_t *a0, uint64_t a1, int a2) { RET_IS(gasnett_atomic64_set(a0, a1, a2), void); }
static void chk15(gasnett_atomic32_t *a0, int a1) { RET_IS(gasnett_atomic32_read(a0, a1), uint32_t); }
static void chk16(gasnett_atomic64_t *a0, int a1) { RET_IS(gasnett_atomic64_read(a0, a1), uint64_t); }
static void chk17(gasnett_atomic32_t *a0, uint32_t a1, uint32_t a2, int a3) {
    RET_IS(gasnett_atomic32_compare_and_swap(a0, a1, a2, a3), int);
}
static void chk18(gasnett_atomic64_t *a0, uint64_t a1, uint64_t a2, int a3) {
    RET_IS(gasnett_atomic64_compare_and_swap(a0, a1, a2, a3), int);
}
static void chk19(gasnett_atomic32_t *a0, uint32_t a1, int a2) { RET_IS(gasnett_atomic32_swap(a0, a1, a2), uint32_t); }
static void chk20(gasnett_atomic64_t *a0, uint64_t a1, int a2) { RET_IS(gasnett_atomic64_swap(a0, a1, a2), uint64_t); }
static void chk21(gasnett_atomic32_t *a0, uint32_t a1, int a2) { RET_IS(gasnett_atomic32_add(a0, a1, a2), uint32_t); }
static void chk22(gasnett_atomic64_t *a0, uint64_t a1, int a2) { RET_IS(gasnett_atomic64_add(a0, a1, a2), uint64_t); }
static void chk23(gasnett_atomic32_t *a0, uint32_t a1, int a2) {
    RET_IS(gasnett_atomic32_subtract(a0, a1, a2), uint32_t);
}
static void chk24(gasnett_atomic64_t *a0, uint64_t a1, int a2) {
    RET_IS(gasnett_atomic64_subtract(a0, a1, a2), uint64_t);
}
static void chk25(gasnett_atomic32_t *a0, int a1) { RET_IS(gasnett_atomic32_increment(a0, a1), void); }
static void chk26(gasnett_atomic64_t *a0, int a1) { RET_IS(gasnett_atomic64_increment(a0, a1), void); }
static void chk27(gasnett_atomic32_t *a0, int a1) { RET_IS(gasnett_atomic32_decrement(a0, a1), void); }
static void chk28(gasnett_atomic64_t *a0, int a1) { RET_IS(gasnett_atomic64_decrement(a0, a1), void); }
static void chk29(gasnett_atomic32_t *a0, int a1) { RET_IS(gasnett_atomic32_decrement_and_test(a0, a1), int); }
static void chk30(gasnett_atomic64_t *a0, int a1) { RET_IS(gasnett_atomic64_decrement_and_test(a0, a1), int); }
static void chk31(gasnett_mutex_t *a0) { RET_INT_FOR_VOID(gasnett_mutex_init(a0)); }
static void chk32(gasnett_mutex_t *a0) { RET_INT_FOR_VOID(gasnett_mutex_destroy(a0)); }
static void chk33(gasnett_mutex_t *a0) { RET_IS(gasnett_mutex_destroy_ignoreerr(a0), int); }
static void chk34(gasnett_mutex_t *a0) { RET_INT_FOR_VOID(gasnett_mutex_lock(a0)); }
static void chk35(gasnett_mutex_t *a0) { RET_INT_FOR_VOID(gasnett_mutex_unlock(a0)); }
static void chk36(gasnett_mutex_t *a0) { RET_IS(gasnett_mutex_trylock(a0), int); }
static void chk37(gasnett_mutex_t *a0) { RET_IS(gasnett_mutex_assertlocked(a0), void); }
static void chk38(gasnett_mutex_t *a0) { RET_IS(gasnett_mutex_assertunlocked(a0), void); }
static void chk39(gasnett_cond_t *a0) { RET_INT_FOR_VOID(gasnett_cond_init(a0)); }
static void chk40(gasnett_cond_t *a0) { RET_INT_FOR_VOID(gasnett_cond_destroy(a0)); }
static void chk41(gasnett_cond_t *a0) { RET_INT_FOR_VOID(gasnett_cond_signal(a0)); }
static void chk42(gasnett_cond_t *a0) { RET_INT_FOR_VOID(gasnett_cond_broadcast(a0)); }
static void chk43(gasnett_cond_t *a0, gasnett_mutex_t *a1) { RET_INT_FOR_VOID(gasnett_cond_wait(a0, a1)); }
static void chk44(gasnett_rwlock_t *a0) { RET_INT_FOR_VOID(gasnett_rwlock_init(a0)); }
static void chk45(gasnett_rwlock_t *a0) { RET_INT_FOR_VOID(gasnett_rwlock_destroy(a0)); }
static void chk46(gasnett_rwlock_t *a0) { RET_INT_FOR_VOID(gasnett_rwlock_rdlock(a0)); }
static void chk47(gasnett_rwlock_t *a0) { RET_INT_FOR_VOID(gasnett_rwlock_wrlock(a0)); }
static void chk48(gasnett_rwlock_t *a0) { RET_INT_FOR_VOID(gasnett_rwlock_unlock(a0)); }
static void chk49(gasnett_rwlock_t *a0) { RET_IS(gasnett_rwlock_tryrdlock(a0), int); }
static void chk50(gasnett_rwlock_t *a0) { RET_IS(gasnett_rwlock_trywrlock(a0), int); }
static void chk51(gasnett_rwlock_t *a0) { RET_IS(gasnett_rwlock_assertrdlocked(a0), void); }
static void chk52(gasnett_rwlock_t *a0) { RET_IS(gasnett_rwlock_assertwrlocked(a0), void); }
static void chk53(gasnett_rwlock_t *a0) { RET_IS(gasnett_rwlock_assertlocked(a0), void); }
static void chk54(gasnett_rwlock_t *a0) { RET_IS(gasnett_rwlock_assertunlocked(a0), void); }
static void chk55(int64_t a0, char *a1, size_t a2, int a3) { RET_IS(gasnett_format_number(a0, a1, a2, a3), char *); }
static void chk56(const char *a0, uint64_t a1) { RET_IS(gasnett_parse_int(a0, a1), int64_t); }
static void chk57(const char *a0, const char *a1) { RET_INT_FOR_VOID(gasnett_setenv(a0, a1)); }
static void chk58(const char *a0) { RET_INT_FOR_VOID(gasnett_unsetenv(a0)); }
static void chk59(const char *a0) { RET_IS(gasnett_getenv(a0), char *); }
static void chk60(const char *a0, const char *a1) { RET_IS(gasnett_getenv_withdefault(a0, a1), char *); }
static void chk61(const char *a0, int a1) { RET_IS(gasnett_getenv_yesno_withdefault(a0, a1), int); }
static void chk62(const char *a0, int64_t a1, uint64_t a2) {
    RET_IS(gasnett_getenv_int_withdefault(a0, a1, a2), int64_t);
}
static void chk63(const char *a0, double a1) { RET_IS(gasnett_getenv_dbl_withdefault(a0, a1), double); }
static void chk64(void) { RET_IS(gasnett_verboseenv(), int); }
static void chk65(const char *a0, int64_t a1, int a2, int a3) { RET_IS(gasnett_envint_display(a0, a1, a2, a3), void); }
static void chk66(const char *a0, const char *a1, int a2) { RET_IS(gasnett_envstr_display(a0, a1, a2), void); }
static void chk67(const char *a0, double a1, int a2) { RET_IS(gasnett_envdbl_display(a0, a1, a2), void); }
static void chk68(const char *a0) { RET_IS(gasnett_backtrace_init(a0), void); }
static void chk69(int a0) { RET_IS(gasnett_print_backtrace(a0), int); }
static void chk70(void) { RET_IS(gasnett_gethostname(), const char *); }
static void chk71(void) { RET_IS(gasnett_exe_name(), const char *); }
static void chk72(void) { RET_IS(gasnett_cpu_count(), int); }
static void chk73(void) { RET_IS(gasnett_performance_warning_str(), const char *); }
static void chk74(void) { RET_IS(gasnett_release_version_str(), const char *); }
static void chk75(void) { RET_IS(gasnett_release_version(), uint64_t); }
static void chk76(int a0) { RET_IS(gasnett_set_affinity(a0), int); }
static void chk77(void) { RET_IS(gasnett_sched_yield(), void); }
static void chk78(void) { RET_IS(gasnett_flush_streams(), void); }
static void chk79(void) { RET_IS(gasnett_close_streams(), void); }
static void chk80(const char *a0) { RET_IS(gasnett_fatalerror(a0, "x"), void); }
static void chk81(const char *a0) { RET_IS(gasnett_fatalerror_nopos(a0, "x"), void); }
static void chk82(int a0) { RET_IS(gasnett_killmyprocess(a0), void); }
static void chk83(int a0, gasnett_sighandlerfn_t a1) { RET_IS(gasnett_reghandler(a0, a1), gasnett_sighandlerfn_t); }
static void chk84(const void *a0, int a1) { RET_IS(gasnett_checksum(a0, a1), uint64_t); }
static void chk85(uint32_t a0) { RET_IS(gasnett_count0s_uint32_t(a0), int); }
static void chk86(uint64_t a0) { RET_IS(gasnett_count0s_uint64_t(a0), int); }
static void chk87(uintptr_t a0) { RET_IS(gasnett_count0s_uintptr_t(a0), int); }
static void chk88(const void *a0, size_t a1) { RET_IS(gasnett_count0s(a0, a1), size_t); }
static void chk89(void *restrict a0, const void *restrict a1, size_t a2) {
    RET_IS(gasnett_count0s_copy(a0, a1, a2), size_t);
}
static void chk90(void) { RET_IS(gasnett_maximize_rlimits(), int); }
static void chk91(int a0, const char *a1) { RET_IS(gasnett_maximize_rlimit(a0, a1), int); }

int main(void) { return 0; }
