/* tests/unit/test_netlock.c: the network conduits' lock (gasneti_netlock_t,
 * gasnet_core/gasneti_netkit.h), PAR, called directly (single process, no job):
 *   - one thread: the first to take the lock owns its bias, which stays on however often
 *     it takes it; a try by the owner while it holds it fails;
 *   - a second thread's try while the owner holds it fails at once (no wait: a fatal
 *     error's shut-down), and it gets the lock once the owner gives it back: the bias is
 *     then off for good;
 *   - mutual exclusion across the revocation, ROUNDS times: a fresh lock, the owner in a
 *     loop of unprotected read-wait-write increments under the lock while one or two more
 *     threads start and do the same: no increment lost;
 *   - the same again in a child process run with GASNET_LOCK_BIAS=0 (the bias never on),
 *     and there too when this kernel has no membarrier (its absence is what is checked).
 * Exit status 0 only if every check passed.  Layer: tests (unit). */
#include "gasneti_netkit.h"
#include "unit_check.h" /* CHECK (the job-less totals are printed here) */

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 300
#define ITERS 3000
static gasneti_netlock_t locks[ROUNDS + 1], *lk; /* a lock of its own for every round (never re-initialised in use) */
static long counter; /* guarded by lk, incremented in two steps with a pause between */
static int started;  /* threads running (atomic) */

static void bump(void) {
    gasneti_netlock(lk);
    long v = counter;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < (v & 7); i++) gasnett_spinloop_hint();
    counter = v + 1;
    gasneti_netunlock(lk);
}
static void *contender(void *arg) {
    (void)arg;
    __atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < ITERS; i++) bump();
    return NULL;
}

/* a second thread: its try while the owner holds the lock (must fail, at once), then a lock */
static int tried, got;
static void *trier(void *arg) {
    (void)arg;
    tried = gasneti_nettrylock(lk) ? 1 : -1;
    if (tried == 1) gasneti_netunlock(lk); /* (a failure: the owner holds it) */
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    gasneti_netlock(lk);
    got = 1;
    gasneti_netunlock(lk);
    return NULL;
}

static int run(int expect_bias) {
    gasneti_netlock_t fresh = GASNETI_NETLOCK_INIT;
    /* one thread */
    lk = &locks[0];
    *lk = fresh;
    for (int i = 0; i < 1000; i++) bump();
    CHECK(counter == 1000);
    CHECK(lk->claimed == expect_bias);
    CHECK(gasneti_netlock_mine == (expect_bias ? lk : NULL));
    CHECK(lk->bias == (expect_bias ? GASNETI_BIAS_ON : GASNETI_BIAS_OFF));
    gasneti_netlock(lk);
    CHECK(!gasneti_nettrylock(lk)); /* held by this thread */
    /* a second thread tries while the owner holds it */
    pthread_t t;
    started = 0;
    pthread_create(&t, NULL, trier, NULL);
    while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) gasnett_spinloop_hint();
    CHECK(tried == -1);
    CHECK(!__atomic_load_n(&got, __ATOMIC_ACQUIRE));
    gasneti_netunlock(lk);
    pthread_join(t, NULL);
    CHECK(got == 1);
    CHECK(lk->bias == GASNETI_BIAS_OFF);
    CHECK(gasneti_nettrylock(lk)); /* free: the word */
    CHECK(!gasneti_netlock_mine);
    gasneti_netunlock(lk);
    /* exclusion across the revocation */
    int lost = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int extra = 1 + r % 2;
        lk = &locks[r + 1];
        *lk = fresh;
        counter = 0;
        started = 0;
        bump(); /* this thread owns the bias */
        pthread_t th[2];
        for (int k = 0; k < extra; k++) pthread_create(&th[k], NULL, contender, NULL);
        for (int i = 1; i < ITERS; i++) bump();
        for (int k = 0; k < extra; k++) pthread_join(th[k], NULL);
        bump(); /* (if the others came after this thread's loop, it sees the revocation here) */
        if (counter != (long)ITERS * (1 + extra) + 1) lost++;
        if (gasneti_netlock_mine) lost++; /* the bias forgotten */
        if (lk->bias != GASNETI_BIAS_OFF) lost++;
    }
    CHECK(lost == 0);
    return 0;
}

int main(int argc, char **argv) {
    snprintf(unit_who, sizeof(unit_who), "test_netlock");
    int no_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) < 0 ||
                        !(syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) & MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    if (argc > 1 && !strcmp(argv[1], "nobias")) {
        snprintf(unit_who, sizeof(unit_who), "test_netlock (GASNET_LOCK_BIAS=0)");
        run(0);
    } else {
        run(!no_membarrier);
        /* again without the bias, in a process of its own (the choice is made once) */
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            setenv("GASNET_LOCK_BIAS", "0", 1);
            execl("/proc/self/exe", argv[0], "nobias", (char *)NULL);
            _exit(127);
        }
        int st = 0;
        CHECK(p > 0 && waitpid(p, &st, 0) == p);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    if (unit_failures) {
        printf("%s: %d of %d checks FAILED\n", unit_who, unit_failures, unit_checks);
        return 1;
    }
    printf("%s: PASS %d checks (%d rounds of revocation under contention%s)\n", unit_who, unit_checks, ROUNDS,
           no_membarrier ? "; this kernel has no membarrier: bias off" : "");
    return 0;
}
