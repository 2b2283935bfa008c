/* udp_internal.h: what the three parts of udp-conduit share. Layer: udp-conduit, internal.
 *   udp_launch.c  the launcher: starts N ranks (GASNET_SPAWNFN L, S or C), serves their
 *                 control connections (TCP; bootstrap collectives, exit and abort), ends
 *                 the job. Linked into amudprun and into every udp program (self-spawn).
 *   udp_spawn.c   a rank's side: gasnetc_bootstrap_init (connect back to the launcher,
 *                 or become one when run as `prog N args...`), the bootstrap collectives,
 *                 exit and abort over the control connection.
 *   udp_am.c      Active Messages over UDP datagrams, with their own reliability. */
#ifndef UDP_INTERNAL_H
#define UDP_INTERNAL_H

#include <stdint.h>
#include <sys/socket.h>

/* The job's random key, given by the launcher to its ranks only (never on a command
 * line). Every datagram carries it; one without it is dropped and counted. */
extern uint64_t gasnetc_udp_key;

/* The local address of this rank's control connection (getsockname): the interface that
 * reaches the launcher, which udp_am.c binds its datagram socket to (port chosen by the
 * kernel) unless GASNET_UDP_ADDR names another. */
extern struct sockaddr_storage gasnetc_udp_ctrl_addr;
extern socklen_t gasnetc_udp_ctrl_addrlen;

/* ---- the control connection (TCP, rank <-> launcher) ----
 * Each message: a ctrl_hdr_t, then len bytes. A rank's first message is HELLO (key and
 * rank); a connection whose HELLO is wrong is closed and counted. The launcher answers
 * INIT (uint32 job size, then the job id), then ENV (the launcher's environment as
 * NUL-terminated "NAME=value" strings, applied by ranks not started by fork), and later:
 * EXCH results (the contributions of all ranks to one collective, in rank order),
 * ALL_EXITING, ABORT (int32 code). A rank sends EXCH (its contribution), EXITING (int32
 * code: leaving normally), ABORT (int32 code: end the job). */
enum { CTRL_HELLO = 1, CTRL_INIT, CTRL_ENV, CTRL_EXCH, CTRL_EXITING, CTRL_ALL_EXITING, CTRL_ABORT };
typedef struct {
    uint32_t type, len;
} ctrl_hdr_t;
typedef struct {
    uint64_t key;
    uint32_t rank, pad;
} ctrl_hello_t;

/* How the launcher tells a process it is a rank (environment):
 *   GASNET_UDP_MASTER=host:port   the launcher's control port
 *   GASNET_UDP_RANK=r             this process's rank
 *   GASNET_UDP_KEY=<16 hex>       the key (fork-spawned ranks; removed from the
 *                                 environment once read), or
 *   GASNET_UDP_KEY_STDIN=1        the key is the first line of stdin (ranks started by ssh
 *                                 or a custom command: never on a command line) */

/* Run a whole job: start nranks copies of argv[0] with argv[1..] (spawn "L", "S" or "C",
 * as GASNET_SPAWNFN), serve them, and return the job's exit status. Prints its own
 * errors (and returns non-zero). verbose: describe the launch on stderr. */
extern int gasnetc_udp_launch(int nranks, const char *spawn, int argc, char **argv, int verbose);

#endif
