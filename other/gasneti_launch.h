/* gasneti_launch.h: the shared launcher's insides (the launcher of udp, ofi, ucx and ibv:
 * gasneti_spawn_launch() of gasneti_spawn.h). Its whole state is one gasneti_launch_t,
 * made by gasneti_spawn_launch() and passed to every function here; the one file-scope
 * variable is the signal a handler saw (gasneti_launch_job.c). Layer: other (launchers),
 * internal; plain libc (the launcher has no library internals).
 *
 * The launcher's files, by role:
 *   gasneti_spawn_launch.c   running a job: set-up, the serve loop, the job's end and status
 *   gasneti_launch_spawn.c   the spawn functions L, S, C: commands, starting each rank
 *   gasneti_launch_ext.c     the spawner chosen by default, external launches (mpi, pmi)
 *   gasneti_launch_ctrl.c    the control protocol: port, key, HELLO, reading a rank's messages
 *   gasneti_launch_coll.c    the bootstrap collectives service, exit agreement
 *   gasneti_launch_job.c     ending the job: aborts, lost ranks, reaping, signals, clocks
 *   gasneti_launch_agent.c   the ssh spawner's tree: a host's agent, the links between nodes
 *   gasneti_launch_tree.c    the tree's shape and collectives, without I/O
 *
 * With the ssh spawner the job is a tree (gasneti_launch_tree.h): the launcher (node 0)
 * starts at most GASNET_SSH_OUT_DEGREE agents by ssh, each agent (one per host) starts
 * as many more and forks its host's ranks; every node serves its own ranks' control
 * connections as the launcher does for L and C, and talks to its parent and children
 * (kids) over the same kind of connection. */
#ifndef GASNETI_LAUNCH_H
#define GASNETI_LAUNCH_H

#include "gasneti_spawn.h"
#include "gasneti_launch_tree.h"

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#define GASNETI_LAUNCH_GRACE_S 2.0     /* after an abort: ABORT, then SIGTERM, then SIGKILL */
#define GASNETI_LAUNCH_LOST_WAIT_S 1.0 /* a closed connection's process still running: lost */

typedef struct {
    int fd;           /* control connection, -1 if none (yet, or any more) */
    pid_t pid;        /* our child for this rank (the rank itself for L), -1 once reaped */
    int joined;       /* said HELLO */
    int exiting;      /* said EXITING */
    int aborted;      /* said ABORT: it leaves on its own (after its teardown's last words) */
    int code;         /* its exit code */
    uint8_t *contrib; /* contribution to the current collective */
    uint32_t clen;
    int contributed;
    double lost_at; /* its connection closed unannounced while its process was still ours to reap */
    char host[64];
} gasneti_launch_rank_t;

typedef struct { /* a connection that has not said HELLO yet */
    int fd;
    size_t got;
    uint8_t buf[sizeof(ctrl_hdr_t) + sizeof(ctrl_hello_t)];
    double since;
} gasneti_launch_pending_t;

typedef struct gasneti_launch_s {
    /* what was asked for */
    const char *me;   /* the launcher's name in messages */
    char envpfx[32];  /* GASNET_<C>_ */
    char spawn;       /* the spawn function: L, S or C */
    int verbose;
    int nranks;  /* this node's own ranks (all of them for L and C; none at the tree's root) */
    int jobsize; /* the job's ranks */
    int argc;
    char **argv;
    char **servers; /* GASNET_SSH_SERVERS */
    int nservers;
    /* the job */
    uint64_t key;
    char jobid[64];
    char master[300]; /* host:port of the control port, as the ranks are told */
    int lfd;          /* the control port */
    gasneti_launch_rank_t *ranks;
    int nconnected, ncontributed, nexiting, all_exit_sent;
    int job_code; /* an abort's code, -1 while none */
    int first_nonzero;
    uint32_t min_barriers; /* the fewest barriers started by a rank that said EXITING */
    double kill_at, term_at;
    unsigned long refused;
    /* the serve loop: connections that have not said HELLO, and the poll set */
    gasneti_launch_pending_t *pend;
    int npend;
    struct pollfd *pfd;
    char namebuf[96]; /* gasneti_launch_envname's result */
    /* the ssh spawner's tree: this node's place and links (tree 0 for L and C) */
    int tree;
    int node; /* 0: the launcher; 1 + h: host h's agent */
    gasneti_tree_shape_t shape;
    gasneti_tree_coll_t coll;
    int parent_fd;               /* an agent's connection to its parent, -1 if none */
    gasneti_launch_rank_t *kids; /* child agents: fd, pid (their ssh), joined, exiting (said DONE), host */
    int nkids, nkids_joined;
} gasneti_launch_t;

/* rank i of this node's table, as the job numbers it */
static inline int gasneti_launch_rank_no(const gasneti_launch_t *L, int i) {
    return L->tree && L->node ? gasneti_tree_local_rank(&L->shape, L->node - 1, i) : i;
}

/* gasneti_spawn_launch.c (serve: until every process this node started has ended;
 * finish: the status of this node's part of the job) */
void gasneti_launch_serve(gasneti_launch_t *L, double start, double spawn_timeout);
int gasneti_launch_finish(gasneti_launch_t *L);
const char *gasneti_launch_envname(gasneti_launch_t *L, const char *suffix); /* GASNET_<C>_<suffix>, until the next call */
double gasneti_launch_now(void);
void gasneti_launch_say(const gasneti_launch_t *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gasneti_launch_split_list(const char *s, char ***words);

/* gasneti_launch_spawn.c (spawn_child: in the child, run argv (L), cmd (C) or ssh to host
 * running cmd (S), the key on stdin but for L; never returns) */
char *gasneti_launch_rank_command(gasneti_launch_t *L, const char *idvar, int id);
pid_t gasneti_launch_spawn_child(gasneti_launch_t *L, char spawn, const char *host, const char *cmd, int r);
char gasneti_launch_spawner(gasneti_launch_t *L, const char *spawnfn); /* L, S, C, or 0 after saying why */
int gasneti_launch_start_ranks(gasneti_launch_t *L);

/* gasneti_launch_ext.c: returns only on failure */
int gasneti_launch_external(gasneti_launch_t *L, const char *which);

/* gasneti_launch_ctrl.c */
int gasneti_launch_make_key(gasneti_launch_t *L);
int gasneti_launch_open_port(gasneti_launch_t *L);
void gasneti_launch_send(gasneti_launch_t *L, int r, uint32_t type, const void *data, uint32_t len);
void gasneti_launch_send_fd(int *fd, uint32_t type, const void *data, uint32_t len); /* closes *fd (-1) on failure */
/* a whole control message from fd; *data malloc'd (NULL if len 0); the rank side uses it too */
int gasneti_launch_read_msg(int fd, ctrl_hdr_t *h, uint8_t **data); /* 0, or -1 at the end or an error */
void gasneti_launch_env_blob(uint8_t **blob, uint32_t *len); /* this process's environment, NUL-separated */
void gasneti_launch_accept(gasneti_launch_t *L, double t);
void gasneti_launch_serve_pending(gasneti_launch_t *L, int npolled, double t);
void gasneti_launch_serve_rank(gasneti_launch_t *L, int r);
void gasneti_launch_drain_rank(gasneti_launch_t *L, int r);

/* gasneti_launch_coll.c: a message of rank r; 0, or -1 if r was dropped (protocol error) */
int gasneti_launch_on_exch(gasneti_launch_t *L, int r, uint8_t *data, uint32_t len); /* takes data */
void gasneti_launch_on_exiting(gasneti_launch_t *L, int r, int32_t code, const uint8_t *data, uint32_t len);
void gasneti_launch_job_exiting(gasneti_launch_t *L, int32_t code, uint32_t started); /* the star's, or the root's */
void gasneti_launch_tell_all(gasneti_launch_t *L, uint32_t type, const void *data, uint32_t len, int to_exiting);

/* gasneti_launch_job.c */
void gasneti_launch_abort(gasneti_launch_t *L, int code, const char *why);
void gasneti_launch_rank_lost(gasneti_launch_t *L, int r, const char *what);
void gasneti_launch_connection_lost(gasneti_launch_t *L, int r);
void gasneti_launch_catch_signals(void);
void gasneti_launch_check_deadlines(gasneti_launch_t *L, double t, double start, double spawn_timeout);
void gasneti_launch_check_lost(gasneti_launch_t *L);
void gasneti_launch_reap(gasneti_launch_t *L);
void gasneti_launch_remove_shm(const gasneti_launch_t *L);

/* gasneti_launch_agent.c */
int gasneti_launch_tree_root(gasneti_launch_t *L);         /* the launcher of a tree job (S): 0 or -1 */
int gasneti_launch_start_kids(gasneti_launch_t *L);        /* the tree: ssh to this node's children */
int gasneti_launch_accept_kid(gasneti_launch_t *L, int fd, int node); /* an agent's HELLO: 0, or -1 refused */
void gasneti_launch_serve_kid(gasneti_launch_t *L, int k);
void gasneti_launch_serve_parent(gasneti_launch_t *L);
void gasneti_launch_kid_ended(gasneti_launch_t *L, int k, int st);
void gasneti_launch_apply_env(const char *envpfx, const uint8_t *blob, uint32_t len);
/* An agent's whole life (gasneti_spawn_rank.c calls it for a process started with
 * GASNET_<C>_AGENT=node): its exit status, the status of its subtree's part of the job. */
int gasneti_spawn_agent(const char *launcher, const char *conduit, int node, const char *master, uint64_t key,
                        int argc, char **argv, int verbose);

#endif
