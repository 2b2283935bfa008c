/* gasneti_fdio.h: whole reads and writes on a descriptor, looping over short transfers
 * and EINTR, for the spawners' sockets and pipes: the launcher (gasneti_spawn_launch.c),
 * a rank's control connection (gasneti_spawn_rank.c) and the pmi plugin's out-of-band
 * connections (gasneti_tcp_p2p.c). Layer: other (spawners); header only, plain libc (the
 * launcher and the plugins have no library internals). */
#ifndef GASNETI_FDIO_H
#define GASNETI_FDIO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* len bytes into buf: 0, or -1 on an error or the end of the stream */
static inline int gasneti_fd_read_all(int fd, void *buf, size_t len) {
    uint8_t *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The n pieces (at most 4; empty ones allowed) in order, in one system call when the
 * descriptor takes them all. nosignal (sockets only): a peer that has gone gives EPIPE
 * rather than SIGPIPE (for code in a client's process, whose SIGPIPE is the client's).
 * 0, or -1 with errno. */
static inline int gasneti_fd_writev_all(int fd, const struct iovec *pieces, int n, int nosignal) {
    struct iovec iov[4], *v = iov;
    if (n < 0 || n > 4) {
        errno = EINVAL;
        return -1;
    }
    memcpy(iov, pieces, sizeof(*iov) * (size_t)n);
    ssize_t k = 0; /* bytes of v[0...] written by the last call */
    for (;;) {
        while (n && (size_t)k >= v->iov_len) {
            k -= (ssize_t)v->iov_len;
            v++;
            n--;
        }
        if (!n) return 0;
        v->iov_base = (uint8_t *)v->iov_base + k;
        v->iov_len -= (size_t)k;
        struct msghdr mh;
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = v;
        mh.msg_iovlen = (size_t)n;
        k = nosignal ? sendmsg(fd, &mh, MSG_NOSIGNAL) : writev(fd, v, n);
        if (k < 0 && errno == EINTR)
            k = 0;
        else if (k <= 0)
            return -1;
    }
}

#endif
