/* SPDX-License-Identifier: BSD-3-Clause */
/* zmtp_listen.c -- ftiod's own ZMTP 3 listener (NULL mechanism) beside an
 * ipc:// --listen, at PATH.zmtp: a short process's batch read and
 * acknowledged on the ingest thread.
 *
 * Why: through the ROUTER a batch crosses three of ftiod's threads (libzmq's
 * I/O thread reads it, the ingest thread admits it, the I/O thread writes
 * the acknowledgement), and the handshake before it waits for the I/O thread
 * twice (its greeting, then its READY after ours); on a VM where a wake-up
 * costs 0.05-0.15 ms, a traced `cat` waited ~1 ms at its exit for the
 * handshake and the round trip (bench/README.md "exit8").  Here the ingest
 * thread polls the listener (ingest.c): it writes its greeting and READY at
 * once on accepting (the client need not wait for them: libtrace/zmtp.c
 * sends its first batch behind its own greeting when it reached this
 * socket), reads whole messages and hands them to the same admission as
 * the ROUTER's, and writes the acknowledgement itself.
 *
 * The wire is exactly what a DEALER sends a ROUTER (docs/PROTOCOL.md §1.6):
 * [empty delimiter][batch][MUNGE frame], and the reply [empty][ack].  The
 * ingest socket never had CURVE; MUNGE is in the message and checked by
 * the admission as before.  Anything unexpected (not ZMTP 3, not NULL, a
 * message before READY, an ERROR, a frame larger than --max-msg, an
 * acknowledgement that cannot be written at once) closes the connection:
 * the shim goes back to the ROUTER with every unacknowledged batch, and
 * ftiod drops a (pid, seq) it already has, so nothing counts twice.
 * Connections are capped at half of --max-connections (the ROUTER has its
 * own count, zap.c); one over is accepted and closed at once.  A connection
 * whose peer has not completed the handshake (its greeting and READY)
 * HANDSHAKE_NS after the accept is closed too: a shim sends both at once,
 * so one that says nothing is not a shim, and without a bound it would hold
 * its descriptor (and its place under the cap) for as long as it liked.  A
 * timer in the listener's epoll set (armed while a handshake is open) makes
 * the set readable when one is due, so the ingest loop's poll of the set
 * brings us here even if no peer says anything.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>
#include "timeutil.h"
#include "zmtp_listen.h"
#include "zmtp_wire.h"

#define FRAMES    4                 /* delimiter, batch, auth; a 4th says "too many" */
#define BUF_FIRST (16 * 1024)
#define READS_PER_TURN 16           /* per connection and serve: others get their turn */
#define HANDSHAKE_NS (2 * 1000000000ll)   /* greeting and READY within this of the accept, or closed */

struct conn {
    int fd;
    bool greeted, ready, dead;
    unsigned char *buf;
    size_t len, cap;
    int64_t accepted_ns;            /* (the handshake's bound) */
    struct conn *prev, *next;
};

static struct {
    struct ftiod *d;
    int lfd, ep, tfd;               /* tfd: the handshakes' timer (in ep) */
    bool timer_armed;
    size_t open, max_open;
    int64_t max_msg;
    struct conn *conns;
    char endpoint[6 + sizeof ((struct sockaddr_un *)0)->sun_path];
    ino_t ino;                      /* the socket file's, as bound */
    struct ftiod_ratelimit rl;
} L = { .lfd = -1, .ep = -1, .tfd = -1 };

/* The timer's mark in the epoll set (the listener's is NULL, a connection's
 * its struct). */
static char timer_tag;

/* Our greeting (ZMTP 3.0, NULL, as-server 0) and READY (Socket-Type ROUTER),
 * written in one piece at accept. */
static const unsigned char hello[] = {
    ZMTP_GREETING_NULL,
    ZMTP_COMMAND, 1 + 5 + 1 + 11 + 4 + 6,
    5, 'R', 'E', 'A', 'D', 'Y',
    11, 'S', 'o', 'c', 'k', 'e', 't', '-', 'T', 'y', 'p', 'e', 0, 0, 0, 6, 'R', 'O', 'U', 'T', 'E', 'R',
};

const char *ftiod_zmtp_listen_open(struct ftiod *d, const char *endpoint)
{
    struct sockaddr_un u = { .sun_family = AF_UNIX };
    if (strncmp(endpoint, "ipc://", 6) != 0 ||
        (size_t)snprintf(u.sun_path, sizeof u.sun_path, "%s%s", endpoint + 6, ZMTP_DIRECT_SUFFIX) >=
            sizeof u.sun_path)
        return NULL;
    L.d = d;
    L.max_msg = d->cfg.max_msg;
    L.max_open = d->cfg.max_connections / 2 > 8 ? d->cfg.max_connections / 2 : 8;
    snprintf(L.endpoint, sizeof L.endpoint, "ipc://%s", u.sun_path);
    /* A socket file left by a daemon that died goes, as libzmq's does for
     * the ROUTER's own path. */
    unlink(u.sun_path);
    L.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    L.ep = epoll_create1(EPOLL_CLOEXEC);
    L.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    struct epoll_event tev = { .events = EPOLLIN, .data.ptr = &timer_tag };
    struct stat st;
    if (L.lfd < 0 || L.ep < 0 || L.tfd < 0 || bind(L.lfd, (struct sockaddr *)&u, sizeof u) != 0 ||
        listen(L.lfd, 1024) != 0 || epoll_ctl(L.ep, EPOLL_CTL_ADD, L.lfd, &ev) != 0 ||
        epoll_ctl(L.ep, EPOLL_CTL_ADD, L.tfd, &tev) != 0 || stat(u.sun_path, &st) != 0) {
        ftiod_log_at(FTIOD_WARNING, "%s: %s (the shims use %s only)", L.endpoint, strerror(errno),
                     endpoint);
        ftiod_zmtp_listen_close();
        return NULL;
    }
    L.ino = st.st_ino;
    return L.endpoint;
}

int ftiod_zmtp_listen_fd(void)
{
    return L.lfd >= 0 ? L.ep : -1;
}

static void conn_close(struct conn *c)
{
    close(c->fd);    /* also leaves the epoll set */
    if (c->prev)
        c->prev->next = c->next;
    else
        L.conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c->buf);
    free(c);
    L.open--;
}

/* Everything at once or the connection is dead: an acknowledgement (17
 * bytes) that does not fit in the socket's buffer is a peer that does not
 * read. */
static bool put(struct conn *c, const void *p, size_t n)
{
    if (c->dead)
        return false;
    ssize_t w = send(c->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w != (ssize_t)n)
        c->dead = true;
    return !c->dead;
}

static void reply(void *rctx, const unsigned char *ack, size_t len)
{
    unsigned char out[2 + ZMTP_HEAD_MAX + 255];
    if (len > 255)
        return;
    size_t n = zmtp_frame_put_head(out, 1, 0);          /* the empty delimiter */
    n += zmtp_frame_put_head(out + n, 0, len);
    memcpy(out + n, ack, len);
    put(rctx, out, n + len);
}

/* The timer fires at `at` (monotonic ns), once: when the oldest open
 * handshake is due. */
static void arm(int64_t at)
{
    struct itimerspec it = { .it_value = { at / 1000000000, at % 1000000000 } };
    L.timer_armed = timerfd_settime(L.tfd, TFD_TIMER_ABSTIME, &it, NULL) == 0;
}

/* The timer fired: close every connection whose handshake is past its
 * bound, and arm the timer again for the oldest one still open. */
static void sweep(void)
{
    uint64_t expirations;
    if (read(L.tfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
        return;
    L.timer_armed = false;
    int64_t now = ftio_mono_ns(), next = 0;
    for (struct conn *c = L.conns, *after; c; c = after) {
        after = c->next;
        if (c->ready)
            continue;
        if (now - c->accepted_ns >= HANDSHAKE_NS) {
            ftiod_log_rl(&L.rl, "closed a direct connection: no handshake within %lld ms",
                         HANDSHAKE_NS / 1000000);
            conn_close(c);
        } else if (!next || c->accepted_ns + HANDSHAKE_NS < next) {
            next = c->accepted_ns + HANDSHAKE_NS;
        }
    }
    if (next)
        arm(next);
}

static void accept_all(void)
{
    for (;;) {
        int fd = accept4(L.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (L.open >= L.max_open) {
            close(fd);
            pthread_mutex_lock(&L.d->lock);
            L.d->stats.connections_refused++;
            pthread_mutex_unlock(&L.d->lock);
            ftiod_log_rl(&L.rl, "refused a direct connection: %zu open", L.open);
            continue;
        }
        struct conn *c = calloc(1, sizeof *c);
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        if (!c || epoll_ctl(L.ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->accepted_ns = ftio_mono_ns();
        if (!L.timer_armed)
            arm(c->accepted_ns + HANDSHAKE_NS);
        c->next = L.conns;
        if (L.conns)
            L.conns->prev = c;
        L.conns = c;
        L.open++;
        if (!put(c, hello, sizeof hello))
            conn_close(c);
    }
}

static void consume(struct conn *c, size_t k)
{
    memmove(c->buf, c->buf + k, c->len - k);
    c->len -= k;
}

/* Take every whole message of c's buffer.  Returns the bytes the next whole
 * piece needs in all (> c->len), or 0 when the connection is dead. */
static size_t parse(struct conn *c, ftiod_zmtp_message_fn fn, void *ctx)
{
    for (;;) {
        if (c->dead)
            return 0;
        if (!c->greeted) {
            if (c->len < ZMTP_GREETING_LEN)
                return ZMTP_GREETING_LEN;
            if (zmtp_greeting_refused(c->buf))
                return 0;
            consume(c, ZMTP_GREETING_LEN);
            c->greeted = true;
            continue;
        }
        /* One message: its frames in place, handed over when the last is in. */
        const void *f[FRAMES];
        size_t l[FRAMES], off = 0;
        int n = 0;
        for (;;) {
            unsigned flags;
            uint64_t size;
            int head = zmtp_frame_head(c->buf + off, c->len - off, &flags, &size);
            if (head < 0 || (head > 0 && (flags & ZMTP_COMMAND) && n))
                return 0;
            if (head == 0)
                return off + (c->len - off < 2 ? 2 : ZMTP_HEAD_MAX);
            size_t hl = (size_t)head;
            if (size > (uint64_t)L.max_msg || off + hl + size > (uint64_t)L.max_msg + 4096)
                return 0;
            if (c->len < off + hl + size)
                return off + hl + (size_t)size;
            const unsigned char *body = c->buf + off + hl;
            if (flags & ZMTP_COMMAND) {
                size_t nl = size ? body[0] : 0;
                if (size == 0 || nl + 1 > size || (nl == 5 && !memcmp(body + 1, "ERROR", 5)))
                    return 0;
                if (nl == 5 && !memcmp(body + 1, "READY", 5))
                    c->ready = true;    /* its properties: a DEALER's, not needed */
                consume(c, hl + (size_t)size);   /* others (PING): nothing asked of us */
                break;
            }
            if (!c->ready)
                return 0;
            if (n < FRAMES) {
                f[n] = body;
                l[n] = (size_t)size;
            }
            n++;
            off += hl + (size_t)size;
            if (!(flags & ZMTP_MORE)) {
                fn(ctx, f, l, n < FRAMES ? n : FRAMES, reply, c);
                consume(c, off);
                break;
            }
        }
    }
}

/* Read what c has (bounded: more at the next turn, epoll being level-
 * triggered), taking whole messages as they complete; closed at EOF, an
 * error or a surprise. */
static void serve_conn(struct conn *c, ftiod_zmtp_message_fn fn, void *ctx)
{
    for (int i = 0; i < READS_PER_TURN; i++) {
        size_t need = parse(c, fn, ctx);
        if (!need) {
            conn_close(c);
            return;
        }
        if (need > c->cap) {
            size_t cap = c->cap ? c->cap : BUF_FIRST;
            while (cap < need)
                cap *= 2;
            unsigned char *b = realloc(c->buf, cap);
            if (!b) {
                conn_close(c);
                return;
            }
            c->buf = b;
            c->cap = cap;
        }
        ssize_t got = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
        if (got > 0) {
            c->len += (size_t)got;
            continue;
        }
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            conn_close(c);
        return;
    }
}

void ftiod_zmtp_listen_serve(ftiod_zmtp_message_fn fn, void *ctx)
{
    if (L.lfd < 0)
        return;
    struct epoll_event ev[64];
    int n = epoll_wait(L.ep, ev, 64, 0);
    bool due = false;
    for (int i = 0; i < n; i++) {
        if (!ev[i].data.ptr)
            accept_all();
        else if (ev[i].data.ptr == &timer_tag)
            due = true;
        else
            serve_conn(ev[i].data.ptr, fn, ctx);
    }
    if (due)        /* last: it may close a connection listed after it in ev */
        sweep();
}

void ftiod_zmtp_listen_close(void)
{
    while (L.conns)
        conn_close(L.conns);
    /* The file goes unless another ftiod bound the path since (a restart
     * that overlapped this one's stop). */
    struct stat st;
    if (L.lfd >= 0 && L.ino && stat(L.endpoint + 6, &st) == 0 && st.st_ino == L.ino)
        unlink(L.endpoint + 6);
    if (L.lfd >= 0)
        close(L.lfd);
    if (L.ep >= 0)
        close(L.ep);
    if (L.tfd >= 0)
        close(L.tfd);
    L.lfd = L.ep = L.tfd = -1;
    L.timer_armed = false;
    L.ino = 0;
}
