/* gasneti_launch_job.c: how a job launched by the shared launcher ends. A rank lost
 * (connection closed before it said it was exiting, or a child that died) aborts the job;
 * SIGINT/SIGTERM/SIGHUP to the launcher too (code 128+signal). After an abort, survivors
 * get ABORT, then SIGTERM and SIGKILL (children of this launcher) after a grace. Also the
 * reaping of the launcher's children and the removal of shared memory a job left.
 * Layer: other (launchers). */
#include "gasneti_launch.h"
#include "../gasnet_core/gasneti_dumpsig.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The launcher's only file-scope variables: what the handlers saw, for the serve loop
 * (gasneti_launch_check_deadlines). A handler can reach nothing else safely. got_dump:
 * GASNET_DUMP_SIGNAL (default SIGUSR1) to the launcher, every rank prints its state dump. */
static volatile sig_atomic_t got_signal, got_dump;

static void on_signal(int sig) { got_signal = sig; }
static void on_dump_signal(int sig) { (void)sig; got_dump = 1; }

/* SIGINT, SIGTERM, SIGHUP end the job (seen by the serve loop); a rank's closed
 * connection must not kill the launcher (SIGPIPE). */
void gasneti_launch_catch_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int ds = gasneti_dump_signal_parse(getenv("GASNET_DUMP_SIGNAL"));
    sa.sa_handler = on_dump_signal;
    if (ds > 0) sigaction(ds, &sa, NULL);
}

void gasneti_launch_abort(gasneti_launch_t *L, int code, const char *why) {
    if (L->job_code < 0) {
        L->job_code = code;
        if (why) gasneti_launch_say(L, "%s; ending the job", why);
    }
    if (L->kill_at) return;
    int32_t c = L->job_code;
    for (int i = 0; i < L->nranks; i++)
        if (!L->ranks[i].aborted) gasneti_launch_send(L, i, CTRL_ABORT, &c, sizeof(c));
    for (int k = 0; k < L->nkids; k++) gasneti_launch_send_fd(&L->kids[k].fd, CTRL_ABORT, &c, sizeof(c));
    if (L->tree) gasneti_launch_send_fd(&L->parent_fd, CTRL_ABORT, &c, sizeof(c)); /* to the root, which tells all */
    L->term_at = gasneti_launch_now() + GASNETI_LAUNCH_GRACE_S;
    L->kill_at = L->term_at + GASNETI_LAUNCH_GRACE_S;
}

/* this node's ranks; child agents (their ssh) only when kids: an agent ends its own ranks
 * first, so its ssh is ended one grace later */
static void signal_children(gasneti_launch_t *L, int sig, int kids) {
    for (int i = 0; i < L->nranks; i++)
        if (L->ranks[i].pid > 0) kill(L->ranks[i].pid, sig);
    for (int k = 0; kids && k < L->nkids; k++)
        if (L->kids[k].pid > 0) kill(L->kids[k].pid, sig);
}

void gasneti_launch_remove_shm(const gasneti_launch_t *L) {
    char prefix[96];
    snprintf(prefix, sizeof(prefix), "gasnet-%s-", L->jobid);
    const char *dirs[2] = {"/dev/shm", getenv("GASNET_PSHM_DIR")};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i] || !*dirs[i]) continue;
        DIR *d = opendir(dirs[i]);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d)))
            if (!strncmp(de->d_name, prefix, strlen(prefix))) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
                unlink(path);
            }
        closedir(d);
    }
}

void gasneti_launch_rank_lost(gasneti_launch_t *L, int r, const char *what) {
    gasneti_launch_rank_t *rk = &L->ranks[r];
    if (rk->fd >= 0) close(rk->fd);
    rk->fd = -1;
    if (rk->exiting || L->kill_at) return;
    char why[160];
    snprintf(why, sizeof(why), "rank %d on host %s: %s", gasneti_launch_rank_no(L, r), rk->host, what);
    gasneti_launch_abort(L, 1, why);
}

static const char conn_lost[] = "control connection lost (the process died?)";
/* A connection that closed before its rank said it was exiting. The connection usually
 * closes a moment before the process can be reaped: if the process is our child (the rank
 * itself for L, its ssh or shell otherwise), its exit status says why (a signal, say) once
 * reap collects it; only one still running GASNETI_LAUNCH_LOST_WAIT_S later is reported
 * as lost (gasneti_launch_check_lost). */
void gasneti_launch_connection_lost(gasneti_launch_t *L, int r) {
    gasneti_launch_rank_t *rk = &L->ranks[r];
    if (rk->fd >= 0) close(rk->fd);
    rk->fd = -1;
    if (rk->exiting || L->kill_at) return;
    if (rk->pid > 0) {
        if (!rk->lost_at) rk->lost_at = gasneti_launch_now();
        return;
    }
    gasneti_launch_rank_lost(L, r, conn_lost);
}

void gasneti_launch_check_lost(gasneti_launch_t *L) {
    for (int r = 0; r < L->nranks; r++) {
        gasneti_launch_rank_t *rk = &L->ranks[r];
        if (rk->lost_at && rk->pid > 0 && gasneti_launch_now() - rk->lost_at > GASNETI_LAUNCH_LOST_WAIT_S) {
            rk->lost_at = 0;
            gasneti_launch_rank_lost(L, r, conn_lost);
        }
    }
}

/* rank r's process ended with status st, without having said it was exiting normally */
static void judge_exit(gasneti_launch_t *L, int i, int st, int code) {
    gasneti_launch_rank_t *rk = &L->ranks[i];
    int r = gasneti_launch_rank_no(L, i);
    char why[200];
    if (WIFSIGNALED(st))
        snprintf(why, sizeof(why), "rank %d on host %s was killed by signal %d (%s)", r, rk->host, WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else if (L->spawn != 'L' && code > 128 && code < 128 + 65) /* a shell's (and ssh's) 128 + S */
        snprintf(why, sizeof(why), "rank %d on host %s was killed by signal %d (%s), as its %s reports (status %d)", r,
                 rk->host, code - 128, strsignal(code - 128), L->spawn == 'S' ? "ssh" : "shell", code);
    else
        snprintf(why, sizeof(why), "rank %d on host %s exited with status %d %s", r, rk->host, code,
                 rk->joined ? "without gasnet_exit" : "before joining the job");
    gasneti_launch_abort(L, code ? code : 1, why);
}

void gasneti_launch_reap(gasneti_launch_t *L) {
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        int r = 0, k = 0;
        while (k < L->nkids && L->kids[k].pid != pid) k++;
        if (k < L->nkids) {
            gasneti_launch_kid_ended(L, k, st);
            continue;
        }
        while (r < L->nranks && L->ranks[r].pid != pid) r++;
        if (r == L->nranks) continue;
        L->ranks[r].pid = -1;
        gasneti_launch_drain_rank(L, r);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (L->ranks[r].exiting && WIFEXITED(st)) {
            if (code && !L->first_nonzero) L->first_nonzero = code;
            continue;
        }
        if (L->kill_at) continue; /* ending anyway */
        judge_exit(L, r, st, code);
    }
}

/* The job's clock, once per turn of the serve loop: a signal to the launcher aborts the
 * job; an abort's grace periods run out (SIGTERM, then SIGKILL to the survivors); ranks
 * that have not connected within spawn_timeout s of the start abort it. */
void gasneti_launch_check_deadlines(gasneti_launch_t *L, double t, double start, double spawn_timeout) {
    if (got_dump) { /* over the control connections and down the tree: ranks on every host */
        got_dump = 0;
        gasneti_launch_tell_all(L, CTRL_DUMP, NULL, 0, 0);
    }
    int sig = got_signal;
    if (sig && !L->kill_at) {
        char why[80];
        snprintf(why, sizeof(why), "got signal %d (%s)", sig, strsignal(sig));
        gasneti_launch_abort(L, 128 + sig, why);
        signal_children(L, SIGTERM, 0);
    }
    if (L->term_at && t > L->term_at) {
        signal_children(L, SIGTERM, 0);
        L->term_at = 0;
    }
    if (L->kill_at && t > L->kill_at) signal_children(L, SIGKILL, t > L->kill_at + GASNETI_LAUNCH_GRACE_S);
    if ((L->nconnected < L->nranks || L->nkids_joined < L->nkids) && !L->kill_at && t - start > spawn_timeout) {
        char why[160];
        snprintf(why, sizeof(why), "only %d of %d ranks%s connected within %.0f s (%sSPAWN_TIMEOUT)", L->nconnected,
                 L->nranks, L->nkids_joined < L->nkids ? " and not every agent" : "", spawn_timeout, L->envpfx);
        gasneti_launch_abort(L, 1, why);
    }
}
