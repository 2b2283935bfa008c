/* gasneti_tcp_p2p.h: out-of-band messages over TCP (the bootstrap's p2p_send/p2p_recv)
 * for a job whose launcher has no ordered point-to-point delivery: the pmi spawner's
 * plugin (gasneti_spawn_pmi.c), whose PMIx only moves data at fences.
 * Layer: other (spawners); plain sockets and one thread, no library internals.
 *
 * Each rank listens on a TCP port of its own (every interface) and publishes a card: its
 * host's address, the port, and a random key of its own. The first message to a rank
 * looks up that rank's card and opens a connection, whose first bytes are a HELLO (the
 * destination's key and the sender's rank); every later message to that rank goes on
 * the same connection as a 4-byte length and the bytes, so the order per (sender,
 * receiver) is TCP's. A destination on this host (its address is one of ours) is reached
 * over loopback. A message to this rank itself is delivered at once.
 * A receiver thread accepts connections and reads them without blocking on any one:
 * a connection whose HELLO is wrong (key, rank out of range, a second connection from
 * the same rank) or that says nothing for 10 s is closed (counted); each message that
 * arrives is handed to the caller's deliver(), in order per sender. A destination that
 * has gone (its connection reset) drops what is sent to it, as the launcher does. */
#ifndef GASNETI_TCP_P2P_H
#define GASNETI_TCP_P2P_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;  /* a connection to this rank must present it */
    uint32_t ip;   /* IPv4 address, network order */
    uint16_t port; /* network order */
    uint16_t pad;
} gasneti_tcp_p2p_card_t;

typedef struct {
    int rank, size;
    /* the card that `rank` published: 0, or -1 with a message in err */
    int (*lookup)(int rank, gasneti_tcp_p2p_card_t *card);
    /* a message from src has arrived (on the receiver thread; msg is copied by deliver) */
    void (*deliver)(int src, const void *msg, size_t len);
    /* the receiver thread cannot go on (out of memory, a peer's corrupt stream): end the
     * job with why; does not return */
    void (*fail)(const char *why);
    char *err; /* messages of failed calls */
    size_t errlen;
} gasneti_tcp_p2p_ops_t;

/* Listen and start the receiver thread; *card: what to publish. 0, or -1 with a message
 * in ops->err. ops is kept. */
extern int gasneti_tcp_p2p_open(const gasneti_tcp_p2p_ops_t *ops, gasneti_tcp_p2p_card_t *card);
/* len bytes to dest (copied before it returns; may wait for room in the connection).
 * 0, or -1 with a message in ops->err. The calls are serialized by the caller. */
extern int gasneti_tcp_p2p_send(int dest, const void *buf, size_t len);
/* Stop the receiver thread and close every socket (what has not been read is lost). */
extern void gasneti_tcp_p2p_close(void);
/* connections refused so far (tests) */
extern unsigned long gasneti_tcp_p2p_refused(void);

#endif
