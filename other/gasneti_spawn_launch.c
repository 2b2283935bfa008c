/* gasneti_spawn_launch.c: the launcher shared by the network conduits that start their
 * own jobs (udp, ofi, ucx, ibv): gasneti_spawn_launch() runs a whole job (starts its
 * ranks, serves their control connections until every process has ended, returns the
 * job's exit status). Used by the launchers (amudprun, gasnetrun_ofi...: gasneti_run.c)
 * and by a program run as `prog N args...`; so it uses only libc (no library internals).
 * Its state is one gasneti_launch_t; the other roles are in the files gasneti_launch.h
 * lists (spawn functions, external launches, control protocol, collectives and relay,
 * the job's end and signals). Layer: other (launchers).
 *
 * The spawn function is the launcher's -spawn/-spawner, else gasneti_spawn_default():
 * L, S (ssh), C (custom): gasneti_launch_spawn.c; mpi, pmi: gasneti_launch_ext.c.
 * The job ends when every rank has ended: with the code of an abort (gasnet_exit on one
 * rank, a fatal error, a lost rank), else the first non-zero exit code, else 0. */
#include "gasneti_launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

const char *gasneti_launch_envname(gasneti_launch_t *L, const char *suffix) {
    snprintf(L->namebuf, sizeof(L->namebuf), "%.31s%s", L->envpfx, suffix);
    return L->namebuf;
}

double gasneti_launch_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gasneti_launch_say(const gasneti_launch_t *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", L->me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* the words of a space- or comma-separated list (kept for the launch's life) */
int gasneti_launch_split_list(const char *s, char ***words) {
    int n = 0;
    char *copy = strdup(s ? s : ""), *save = NULL;
    *words = NULL;
    for (char *w = strtok_r(copy, " ,\t\n", &save); w; w = strtok_r(NULL, " ,\t\n", &save)) {
        *words = realloc(*words, sizeof(char *) * (size_t)(n + 2));
        if (!*words) abort();
        (*words)[n++] = w;
    }
    if (*words) (*words)[n] = NULL;
    return n;
}

/* Serve the job until every process this node started has ended: each turn checks the
 * clock, polls the control port, the pending connections, the ranks' connections and the
 * tree's (children, parent; 20 ms at most), reaps ended processes, then serves what the
 * poll found. */
void gasneti_launch_serve(gasneti_launch_t *L, double start, double spawn_timeout) {
    struct pollfd *pfd = L->pfd;
    for (;;) {
        int alive = 0;
        for (int r = 0; r < L->nranks; r++) alive += L->ranks[r].pid > 0;
        for (int k = 0; k < L->nkids; k++) alive += L->kids[k].pid > 0;
        if (!alive) return;
        double t = gasneti_launch_now();
        gasneti_launch_check_deadlines(L, t, start, spawn_timeout);
        int np = 0, npolled = L->npend;
        pfd[np++] = (struct pollfd){L->lfd, POLLIN, 0};
        for (int i = 0; i < L->npend; i++) pfd[np++] = (struct pollfd){L->pend[i].fd, POLLIN, 0};
        int first_rank = np;
        for (int r = 0; r < L->nranks; r++)
            if (L->ranks[r].fd >= 0) pfd[np++] = (struct pollfd){L->ranks[r].fd, POLLIN, 0};
        int first_kid = np;
        for (int k = 0; k < L->nkids; k++)
            if (L->kids[k].fd >= 0) pfd[np++] = (struct pollfd){L->kids[k].fd, POLLIN, 0};
        int parent = np;
        if (L->parent_fd >= 0) pfd[np++] = (struct pollfd){L->parent_fd, POLLIN, 0};
        int rc = poll(pfd, (nfds_t)np, 20);
        gasneti_launch_reap(L);
        gasneti_launch_check_lost(L);
        if (rc < 0) continue; /* EINTR: a signal, seen at the top */
        gasneti_launch_serve_pending(L, npolled, t);
        for (int k = first_rank; k < np; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (k == parent) {
                if (L->parent_fd == pfd[k].fd) gasneti_launch_serve_parent(L);
            } else if (k >= first_kid) {
                int j = 0;
                while (j < L->nkids && L->kids[j].fd != pfd[k].fd) j++;
                if (j < L->nkids) gasneti_launch_serve_kid(L, j);
            } else {
                int r = 0;
                while (r < L->nranks && L->ranks[r].fd != pfd[k].fd) r++;
                if (r < L->nranks) gasneti_launch_serve_rank(L, r);
            }
        }
        if (pfd[0].revents & POLLIN) gasneti_launch_accept(L, t);
    }
}

/* After the last process ended: close every connection and the port, remove the shared
 * memory the job may have left, and give the job's status: an abort's code, else the
 * first non-zero exit code, else 0 (an agent tells its parent first: DONE). */
int gasneti_launch_finish(gasneti_launch_t *L) {
    gasneti_launch_reap(L);
    int32_t status = L->job_code >= 0 ? L->job_code : L->first_nonzero;
    gasneti_launch_send_fd(&L->parent_fd, CTRL_DONE, &status, sizeof(status));
    if (L->parent_fd >= 0) close(L->parent_fd);
    for (int i = 0; i < L->npend; i++) close(L->pend[i].fd);
    for (int r = 0; r < L->nranks; r++)
        if (L->ranks[r].fd >= 0) close(L->ranks[r].fd);
    for (int k = 0; k < L->nkids; k++)
        if (L->kids[k].fd >= 0) close(L->kids[k].fd);
    close(L->lfd);
    gasneti_launch_remove_shm(L);
    if (L->verbose || L->refused)
        gasneti_launch_say(L, "%lu control connection(s) refused (wrong key, rank or protocol)", L->refused);
    for (int r = 0; r < L->nranks; r++) free(L->ranks[r].contrib);
    free(L->ranks);
    free(L->kids);
    free(L->pend);
    free(L->pfd);
    return status;
}

int gasneti_spawn_launch(const char *launcher, const char *conduit, int n, const char *spawnfn, int argc,
                         char **argv, int verb) {
    gasneti_launch_t job, *L = &job; /* the launcher's whole state */
    memset(L, 0, sizeof(*L));
    L->me = launcher;
    L->verbose = verb;
    L->nranks = L->jobsize = n;
    L->argc = argc;
    L->argv = argv;
    L->job_code = -1;
    L->lfd = -1;
    L->parent_fd = -1;
    snprintf(L->envpfx, sizeof(L->envpfx), "GASNET_%s_", conduit);
    if (!spawnfn || !*spawnfn) spawnfn = "L";
    if (!strcasecmp(spawnfn, "mpi") || !strcasecmp(spawnfn, "pmi")) return gasneti_launch_external(L, spawnfn);
    if (!gasneti_launch_spawner(L, spawnfn) || gasneti_launch_make_key(L) || gasneti_launch_open_port(L)) return 1;
    if (L->spawn == 'S' && gasneti_launch_tree_root(L)) return 1; /* ssh: a tree of hosts' agents */
    if (L->verbose) gasneti_launch_say(L, "job %s: %d ranks, spawn %c, control port %s", L->jobid, n, L->spawn, L->master);
    gasneti_launch_catch_signals();
    if (gasneti_launch_start_ranks(L)) return 1;
    const char *st = getenv(gasneti_launch_envname(L, "SPAWN_TIMEOUT"));
    gasneti_launch_serve(L, gasneti_launch_now(), st && *st ? atof(st) : 60.0);
    int status = gasneti_launch_finish(L);
    if (L->tree) gasneti_tree_coll_fini(&L->coll);
    return status;
}
