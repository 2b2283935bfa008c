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

/* Run a whole job: start nranks copies of argv[0] with argv[1..] (spawn "L", "S" or "C",
 * as GASNET_SPAWNFN), serve them, and return the job's exit status. Prints its own
 * errors (and returns non-zero). verbose: describe the launch on stderr. */
extern int gasnetc_udp_launch(int nranks, const char *spawn, int argc, char **argv, int verbose);

#endif
