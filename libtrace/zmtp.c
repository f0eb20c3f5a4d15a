/* SPDX-License-Identifier: BSD-3-Clause */
/* zmtp.c -- a minimal ZMTP 3.0 client with the NULL mechanism (zmtp.h says
 * what for): the greeting (signature, version 3.0, "NULL", as-server 0),
 * READY with Socket-Type DEALER and an empty Identity, frames with the MORE,
 * LONG and COMMAND flags.  A message to ftiod is the frames sink.c
 * passes (delimiter, batch, auth frame), exactly what libzmq's DEALER puts
 * on the wire; a reply is [delimiter][ack], whose last frame is taken when
 * it is an acknowledgement (common/transport.h) and skipped otherwise.
 * The peer's greeting and READY are read as they come (the connection's
 * "ready", like ZMQ_IMMEDIATE: nothing is sent before), so opening never
 * waits on the peer; ftiod's own listener (ipc://PATH.zmtp, tried first,
 * PROTOCOL.md §1.6) takes messages before its greeting arrived, which saves
 * the exit a round trip.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"        /* ftio_iov_advance */
#include "zmtp.h"
#include "timeutil.h"
#include "zmtp_wire.h"

#define MAX_FRAMES 4

/* Our greeting and READY, sent at once after connecting. */
static const unsigned char hello[] = {
    ZMTP_GREETING_NULL,
    ZMTP_COMMAND, 1 + 5 + 1 + 11 + 4 + 6 + 1 + 8 + 4,
    5, 'R', 'E', 'A', 'D', 'Y',
    11, 'S', 'o', 'c', 'k', 'e', 't', '-', 'T', 'y', 'p', 'e', 0, 0, 0, 6, 'D', 'E', 'A', 'L', 'E', 'R',
    8, 'I', 'd', 'e', 'n', 't', 'i', 't', 'y', 0, 0, 0, 0,
};

int ftio_zmtp_endpoint_ok(const char *ep)
{
    if (strncmp(ep, "ipc://", 6) == 0)
        return ep[6] == '/' && strlen(ep + 6) < sizeof ((struct sockaddr_un *)0)->sun_path;
    if (strncmp(ep, "tcp://", 6) != 0)
        return 0;
    char host[64];
    const char *colon = strrchr(ep + 6, ':');
    size_t hl = colon ? (size_t)(colon - (ep + 6)) : 0;
    if (!colon || hl == 0 || hl >= sizeof host)
        return 0;
    memcpy(host, ep + 6, hl);
    host[hl] = 0;
    struct in_addr a;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    return inet_pton(AF_INET, host, &a) == 1 && !*end && port > 0 && port < 65536;
}

static int fail(struct ftio_zmtp *z, char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s", why);
    ftio_zmtp_close(z);
    return -1;
}

/* Everything of iov[0..n) by deadline_ns (non-blocking writes, poll between). */
static int write_all(struct ftio_zmtp *z, struct iovec *iov, int n, int64_t idle_ns,
                     int64_t deadline_ns, char *err, size_t errlen)
{
    /* A peer that reads slowly (a daemon under load) is alive: only
     * idle_ns without any progress, or the caller's deadline, end it. */
    int64_t stall = ftio_mono_ns() + idle_ns;
    while (n > 0) {
        int64_t limit = stall < deadline_ns ? stall : deadline_ns;
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(z->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return fail(z, err, errlen, strerror(errno));
        if (w < 0) {
            int64_t left = limit - ftio_mono_ns();
            if (left <= 0)
                return fail(z, err, errlen, "send timed out");
            struct pollfd p = { .fd = z->fd, .events = POLLOUT };
            struct timespec ts = { left / 1000000000, left % 1000000000 };
            if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR)
                return fail(z, err, errlen, strerror(errno));
            continue;
        }
        stall = ftio_mono_ns() + idle_ns;
        iov = ftio_iov_advance(iov, &n, (size_t)w);
    }
    return 0;
}

int ftio_zmtp_open(struct ftio_zmtp *z, const char *ep, char *err, size_t errlen)
{
    /* Field by field: the 8 KB input buffer is not cleared (two pages a
     * short process would touch for nothing, bench/README "exit latency"). */
    z->fd = -1;
    z->connecting = z->greeted = z->ready = z->direct = 0;
    z->nin = z->skip = 0;
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    if (!ftio_zmtp_endpoint_ok(ep)) {
        snprintf(err, errlen, "%s: not an ipc:// or numeric tcp:// endpoint", ep);
        return -1;
    }
    if (ep[0] == 'i') {
        struct sockaddr_un *u = (struct sockaddr_un *)&ss;
        u->sun_family = AF_UNIX;
        strcpy(u->sun_path, ep + 6);
        sl = sizeof *u;
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        const char *colon = strrchr(ep + 6, ':');
        char host[64];
        memcpy(host, ep + 6, (size_t)(colon - (ep + 6)));
        host[colon - (ep + 6)] = 0;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)atoi(colon + 1));
        inet_pton(AF_INET, host, &in->sin_addr);
        sl = sizeof *in;
    }
    if (ss.ss_family == AF_UNIX) {
        /* ftiod's own listener first (ftiod before it has none: ENOENT,
         * one system call more); then its ROUTER. */
        struct sockaddr_un d = *(struct sockaddr_un *)&ss;
        if (strlen(d.sun_path) + sizeof ZMTP_DIRECT_SUFFIX <= sizeof d.sun_path) {
            strcat(d.sun_path, ZMTP_DIRECT_SUFFIX);
            z->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
            if (z->fd >= 0 && connect(z->fd, (struct sockaddr *)&d, sizeof d) == 0) {
                z->direct = 1;
                struct iovec iov = { (void *)hello, sizeof hello };
                return write_all(z, &iov, 1, 100000000, ftio_mono_ns() + 100000000, err, errlen);
            }
        }
    }
    if (z->fd < 0)
        z->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (z->fd < 0)
        return fail(z, err, errlen, strerror(errno));
    if (ss.ss_family == AF_INET) {
        int one = 1;
        setsockopt(z->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    /* A TCP connection still being made (EINPROGRESS): the greeting goes
     * after it, at the first send or read (z->connecting). */
    if (connect(z->fd, (struct sockaddr *)&ss, sl) != 0) {
        if (errno != EINPROGRESS)
            return fail(z, err, errlen, strerror(errno));
        z->connecting = 1;
        return 0;
    }
    struct iovec iov = { (void *)hello, sizeof hello };
    return write_all(z, &iov, 1, 100000000, ftio_mono_ns() + 100000000, err, errlen);
}

/* A TCP connection in progress: made now?  0 (not yet, or made and
 * greeted), -1 when it failed. */
static int finish_connect(struct ftio_zmtp *z, char *err, size_t errlen)
{
    struct pollfd p = { .fd = z->fd, .events = POLLOUT };
    if (poll(&p, 1, 0) <= 0)
        return 0;
    int e = 0;
    socklen_t el = sizeof e;
    if (getsockopt(z->fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e)
        return fail(z, err, errlen, strerror(e ? e : errno));
    z->connecting = 0;
    struct iovec iov = { (void *)hello, sizeof hello };
    return write_all(z, &iov, 1, 100000000, ftio_mono_ns() + 100000000, err, errlen);
}

static void consume(struct ftio_zmtp *z, size_t k)
{
    memmove(z->in, z->in + k, z->nin - k);
    z->nin -= k;
}

/* Parse what was read: 1 with *ack, 0 when more bytes are needed, -1. */
static int parse(struct ftio_zmtp *z, struct ftio_ack *ack, char *err, size_t errlen)
{
    for (;;) {
        if (z->skip) {
            size_t k = z->skip < z->nin ? z->skip : z->nin;
            consume(z, k);
            z->skip -= k;
            if (z->skip)
                return 0;
        }
        if (!z->greeted) {
            if (z->nin < ZMTP_GREETING_LEN)
                return 0;
            const char *refused = zmtp_greeting_refused(z->in);
            if (refused)
                return fail(z, err, errlen, refused);
            consume(z, ZMTP_GREETING_LEN);
            z->greeted = 1;
            continue;
        }
        unsigned flags;
        uint64_t size;
        int head = zmtp_frame_head(z->in, z->nin, &flags, &size);
        if (head < 0)
            return fail(z, err, errlen, "a frame with reserved flags");
        if (head == 0)
            return 0;
        size_t hl = (size_t)head;
        if (size > sizeof z->in - hl) {
            if (flags & ZMTP_COMMAND)
                return fail(z, err, errlen, "an oversized command");
            if (!z->ready)
                return fail(z, err, errlen, "a message before READY");
            consume(z, hl);                /* not an acknowledgement: skipped */
            z->skip = size;
            continue;
        }
        if (z->nin < hl + size)
            return 0;
        const unsigned char *body = z->in + hl;
        int got = 0;
        if (flags & ZMTP_COMMAND) {
            size_t nl = size ? body[0] : 0;
            if (size == 0 || nl + 1 > size)
                return fail(z, err, errlen, "a malformed command");
            if (nl == 5 && memcmp(body + 1, "READY", 5) == 0) {
                z->ready = 1;
            } else if (nl == 5 && memcmp(body + 1, "ERROR", 5) == 0) {
                char why[300];
                size_t rl = size > nl + 1 ? body[nl + 1] : 0;
                if (rl > size - nl - 2)
                    rl = size > nl + 2 ? size - nl - 2 : 0;
                snprintf(why, sizeof why, "the peer says ERROR: %.*s", (int)rl, (const char *)body + nl + 2);
                return fail(z, err, errlen, why);
            }                              /* others (PING): nothing asked of us */
        } else if (!z->ready) {
            return fail(z, err, errlen, "a message before READY");
        } else if (!(flags & ZMTP_MORE) && size == FTIO_ACK_LEN &&
                   memcmp(body, FTIO_ACK_MAGIC, 4) == 0) {
            ack->seq = 0;
            for (int i = 0; i < 8; i++)
                ack->seq = ack->seq << 8 | body[4 + i];
            ack->status = body[12];
            got = 1;
        }
        consume(z, hl + (size_t)size);
        if (got)
            return 1;
    }
}

int ftio_zmtp_recv_ack(struct ftio_zmtp *z, struct ftio_ack *ack, int64_t deadline_ns, char *err,
                       size_t errlen)
{
    if (z->fd < 0)
        return fail(z, err, errlen, "closed");
    for (;;) {
        if (z->connecting && finish_connect(z, err, errlen) != 0)
            return -1;
        int r = z->connecting ? 0 : parse(z, ack, err, errlen);
        if (r != 0)
            return r;
        ssize_t got = z->connecting ? -1 : recv(z->fd, z->in + z->nin, sizeof z->in - z->nin, MSG_DONTWAIT);
        if (got > 0) {
            z->nin += (size_t)got;
            continue;
        }
        if (got == 0)
            return fail(z, err, errlen, "the peer closed the connection");
        if (!z->connecting && errno == EINTR)
            continue;
        if (!z->connecting && errno != EAGAIN && errno != EWOULDBLOCK)
            return fail(z, err, errlen, strerror(errno));
        int64_t left = deadline_ns - ftio_mono_ns();
        if (left <= 0)
            return 0;
        struct pollfd p = { .fd = z->fd, .events = z->connecting ? POLLOUT : POLLIN };
        struct timespec ts = { left / 1000000000, left % 1000000000 };
        if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR)
            return fail(z, err, errlen, strerror(errno));
    }
}

int ftio_zmtp_send(struct ftio_zmtp *z, const void *const *frame, const size_t *len, int n,
                   int64_t idle_ns, int64_t deadline_ns, char *err, size_t errlen)
{
    if (z->fd < 0 || !(z->ready || z->direct) || n > MAX_FRAMES)
        return fail(z, err, errlen, "not ready");
    unsigned char head[MAX_FRAMES][ZMTP_HEAD_MAX];
    struct iovec iov[2 * MAX_FRAMES];
    int k = 0;
    for (int i = 0; i < n; i++) {
        unsigned char *h = head[i];
        size_t hl = zmtp_frame_put_head(h, i + 1 < n, len[i]);
        iov[k++] = (struct iovec){ h, hl };
        if (len[i])
            iov[k++] = (struct iovec){ (void *)frame[i], len[i] };
    }
    return write_all(z, iov, k, idle_ns, deadline_ns, err, errlen);
}

void ftio_zmtp_wait(const struct ftio_zmtp *z, int64_t deadline_ns)
{
    int64_t left = deadline_ns - ftio_mono_ns();
    if (z->fd < 0 || left <= 0)
        return;
    struct pollfd p = { .fd = z->fd, .events = z->connecting ? POLLOUT : POLLIN };
    struct timespec ts = { left / 1000000000, left % 1000000000 };
    ppoll(&p, 1, &ts, NULL);
}

/* The listener's pid (SO_PEERCRED: who called listen(), in our pid
 * namespace, 0 when it is not visible there) and its state in
 * /proc/PID/stat, the letter after the command's closing parenthesis:
 * T or t (stopped, traced), Z, X are not running. */
int ftio_zmtp_peer_runs(const struct ftio_zmtp *z)
{
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (z->fd < 0 || !z->direct || getsockopt(z->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
        cred.pid <= 0)
        return 0;
    char path[40], num[24], buf[512];
    *ftio_put_ulong(num, num + sizeof num - 1, (unsigned long)cred.pid) = '\0';
    ftio_concat(path, sizeof path, "/proc/", num, "/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && paren[2] && !strchr("TtZX", paren[2]);
}

void ftio_zmtp_close(struct ftio_zmtp *z)
{
    if (z->fd >= 0)
        close(z->fd);
    z->fd = -1;
    z->ready = 0;
}
