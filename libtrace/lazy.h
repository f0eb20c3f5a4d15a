/* SPDX-License-Identifier: BSD-3-Clause */
/* lazy.h -- the heavy libraries of the way to ftiod (ZeroMQ, MUNGE,
 * libsodium), loaded only by a process that has something to send.
 *
 * libzmq alone pulls libstdc++, Kerberos, PGM and NORM into a process: about
 * 2 ms of dynamic loading at every start of every preloaded program, also of
 * the many that never touch a traced file (a shell, `env`, a launcher).  So
 * libftio.so does not link them: the flusher thread dlopen()s them
 * (ftio_lazy_load(), lazy.c) before it opens the sink, and the code that
 * talks to ftiod (sink.c, and the shim's own builds of common/auth.c and
 * common/transport.c, compiled with -include lazy.h) calls them through the
 * pointers below: this header renames each call, so that code reads as
 * usual.  Nothing here is on the hot path.
 */
#ifndef FTIO_LAZY_H
#define FTIO_LAZY_H

#include <zmq.h>
#include <munge.h>
#include <sodium.h>

/* Every function of the three libraries the shim calls: (library, name). */
#define FTIO_LAZY_FUNCS(X)                                                            \
    X(zmq, zmq_ctx_new) X(zmq, zmq_ctx_term) X(zmq, zmq_socket) X(zmq, zmq_close)     \
    X(zmq, zmq_connect) X(zmq, zmq_setsockopt) X(zmq, zmq_send) X(zmq, zmq_msg_init)  \
    X(zmq, zmq_msg_recv) X(zmq, zmq_msg_data) X(zmq, zmq_msg_size)                    \
    X(zmq, zmq_msg_more) X(zmq, zmq_msg_close) X(zmq, zmq_poll) X(zmq, zmq_strerror)  \
    X(munge, munge_ctx_create) X(munge, munge_ctx_destroy) X(munge, munge_ctx_set)    \
    X(munge, munge_ctx_strerror) X(munge, munge_encode) X(munge, munge_strerror)      \
    X(sodium, sodium_init) X(sodium, sodium_memzero) X(sodium, randombytes_buf)       \
    X(sodium, crypto_generichash)

#define FTIO_LAZY_MEMBER(lib, name) __typeof__(&name) name;
extern struct ftio_lazy {
    FTIO_LAZY_FUNCS(FTIO_LAZY_MEMBER)
} ftio_lz __attribute__((visibility("hidden")));

/* Load the libraries (each once; the flusher thread): MUNGE and libsodium,
 * and ZeroMQ when with_zmq (zmtp.c speaks to ftiod without it).  0, or -1
 * with the reason (a library or a symbol missing): then nothing is sent, all
 * is spooled. */
int ftio_lazy_load(int with_zmq, char *err, size_t errlen) __attribute__((visibility("hidden")));

#ifndef FTIO_LAZY_IMPL
#define zmq_ctx_new        (*ftio_lz.zmq_ctx_new)
#define zmq_ctx_term       (*ftio_lz.zmq_ctx_term)
#define zmq_socket         (*ftio_lz.zmq_socket)
#define zmq_close          (*ftio_lz.zmq_close)
#define zmq_connect        (*ftio_lz.zmq_connect)
#define zmq_setsockopt     (*ftio_lz.zmq_setsockopt)
#define zmq_send           (*ftio_lz.zmq_send)
#define zmq_msg_init       (*ftio_lz.zmq_msg_init)
#define zmq_msg_recv       (*ftio_lz.zmq_msg_recv)
#define zmq_msg_data       (*ftio_lz.zmq_msg_data)
#define zmq_msg_size       (*ftio_lz.zmq_msg_size)
#define zmq_msg_more       (*ftio_lz.zmq_msg_more)
#define zmq_msg_close      (*ftio_lz.zmq_msg_close)
#define zmq_poll           (*ftio_lz.zmq_poll)
#define zmq_strerror       (*ftio_lz.zmq_strerror)
#define munge_ctx_create   (*ftio_lz.munge_ctx_create)
#define munge_ctx_destroy  (*ftio_lz.munge_ctx_destroy)
#define munge_ctx_set      (*ftio_lz.munge_ctx_set)
#define munge_ctx_strerror (*ftio_lz.munge_ctx_strerror)
#define munge_encode       (*ftio_lz.munge_encode)
#define munge_strerror     (*ftio_lz.munge_strerror)
#define sodium_init        (*ftio_lz.sodium_init)
#define sodium_memzero     (*ftio_lz.sodium_memzero)
#define randombytes_buf    (*ftio_lz.randombytes_buf)
#define crypto_generichash (*ftio_lz.crypto_generichash)
#endif

#endif
