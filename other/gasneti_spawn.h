/* gasneti_spawn.h: the shared launcher and spawners of the network conduits that start
 * their own jobs (udp, ofi): the launcher side (gasneti_spawn_launch.c: start N ranks
 * locally, by ssh or by a custom command, serve their control connections, end the job),
 * the rank side (gasneti_spawn_rank.c: connect back, the bootstrap collectives, exit and
 * abort), and the launcher's command line (gasneti_run.c: amudprun, gasnetrun_ofi).
 * Layer: other (launchers and spawners), internal.
 *
 * Variables naming a conduit use its upper-case name C (UDP, OFI): the launcher tells a
 * process it is a rank by the environment
 *   GASNET_C_MASTER=host:port   the launcher's control port
 *   GASNET_C_RANK=r             this process's rank
 *   GASNET_C_KEY=<16 hex>       the job key (fork-spawned ranks; removed once read), or
 *   GASNET_C_KEY_STDIN=1        the key is the first line of stdin (ranks started by ssh
 *                               or a custom command: never on a command line) */
#ifndef GASNETI_SPAWN_H
#define GASNETI_SPAWN_H

#include <stdint.h>
#include <sys/socket.h>

/* The job's random key, given by the launcher to its ranks only (never on a command
 * line); a conduit may use it to authenticate its own traffic too (udp does). */
extern uint64_t gasneti_spawn_key;

/* The local address of this rank's control connection (getsockname): the interface that
 * reaches the launcher (udp binds its datagram socket to it). */
extern struct sockaddr_storage gasneti_spawn_ctrl_addr;
extern socklen_t gasneti_spawn_ctrl_addrlen;

/* ---- the control connection (TCP, rank <-> launcher) ----
 * Each message: a ctrl_hdr_t, then len bytes. A rank's first message is HELLO (key and
 * rank); a connection whose HELLO is wrong is closed and counted. The launcher answers
 * INIT (uint32 job size, then the job id), then ENV (the launcher's environment as
 * NUL-terminated "NAME=value" strings, applied by ranks not started by fork), and later:
 * EXCH results (the contributions of all ranks to one collective, in rank order),
 * ALL_EXITING, ABORT (int32 code), PEER_EXITING (int32 code, uint32 barriers: a rank
 * leaving normally and the fewest primordial barriers such a rank started, sent to the
 * ranks still running when the first leaves and when that number drops). A rank sends
 * EXCH (its contribution), EXITING (int32 code, uint32 barriers started: leaving
 * normally), ABORT (int32 code: end the job).
 * Out-of-band messages (the bootstrap's p2p_send) do not use the control connection: a
 * rank sends them directly to the destination rank over TCP (gasneti_tcp_p2p.c), whose
 * card every rank learns in one exchange at start-up; the launcher relays nothing
 * (CTRL_P2P is no longer sent: a protocol error, kept numbered for the values after it). */
enum {
    CTRL_HELLO = 1,
    CTRL_INIT,
    CTRL_ENV,
    CTRL_EXCH,
    CTRL_EXITING,
    CTRL_ALL_EXITING,
    CTRL_ABORT,
    CTRL_PEER_EXITING,
    CTRL_P2P,
    /* between the nodes of the ssh spawner's tree (other/gasneti_launch.h): an agent's
     * HELLO (ctrl_hello_t, rank: its node), AGENT_INIT (uint32 job size, hosts,
     * out-degree, then the job id), then ENV; TREE_UP and TREE_DOWN (a collective,
     * gasneti_launch_tree.h); DONE (int32: the subtree's status, an agent's last word).
     * EXITING (int32 code, uint32 barriers), PEER_EXITING, ALL_EXITING and ABORT travel
     * the tree too. */
    CTRL_AGENT_HELLO,
    CTRL_AGENT_INIT,
    CTRL_TREE_UP,
    CTRL_TREE_DOWN,
    CTRL_DONE,
    CTRL_DUMP /* launcher or agent to rank and child agent: print the state dump (GASNET_DUMP_SIGNAL
               * to the launcher), passed down the tree */
};
typedef struct {
    uint32_t type, len;
} ctrl_hdr_t;
typedef struct {
    uint64_t key;
    uint32_t rank, pad;
} ctrl_hello_t;

/* Run a whole job: start nranks copies of argv[0] with argv[1..] and serve them; returns
 * the job's exit status. `launcher` names the launcher in messages ("amudprun");
 * `conduit` is the conduit's upper-case name (the GASNET_C_* variables above). `spawn`:
 * "L" or "local" (fork/exec here), "S" or "ssh", "C" or "custom" (GASNET_CSPAWN_CMD);
 * "mpi" and "pmi" (where the build has them: GASNETI_SPAWN_MPIRUN_PATHS) run the job
 * through gasnetrun_mpi (mpirun, or PMIRUN_CMD for pmi), the ranks joining through a
 * plugin (gasneti_spawn_ext.c), and do not return. Prints its own
 * errors (and returns non-zero). verbose: describe the launch on stderr. */
extern int gasneti_spawn_launch(const char *launcher, const char *conduit, int nranks, const char *spawn, int argc,
                                char **argv, int verbose);

/* The spawner a launch uses when none is given on the command line: GASNET_<C>_SPAWNER,
 * else GASNET_SPAWNER, else GASNET_SPAWNFN, else "ssh" when hostlist_means_ssh and
 * GASNET_SSH_SERVERS is set, else "L". */
extern const char *gasneti_spawn_default(const char *conduit, int hostlist_means_ssh);

/* A rank of a job started by an external launcher (which: "mpi" or "pmi"): joins it
 * through that spawner's plugin (gasneti_spawn_ext.c); fails with a message if it cannot.
 * gasneti_spawn_external(): "mpi" or "pmi" if this process is such a rank (the spawner
 * asked for is one of them and the environment shows the launcher's), else NULL. */
struct gasneti_bootstrap_s;
extern struct gasneti_bootstrap_s *gasneti_spawn_ext_init(const char *which, int *argc, char ***argv);
extern const char *gasneti_spawn_external(const char *spawner);

#endif
