/* SPDX-License-Identifier: BSD-3-Clause */
/* lazy_libs.h -- the libraries of `ftio`'s networked and history commands
 * (ZeroMQ, MUNGE, libsodium, SQLite, PostgreSQL), loaded when a command
 * first calls them, not at every start.
 *
 * `ftio FILE` (the offline analysis) never calls them, but linked they cost
 * every run the loading and relocation of 42 shared libraries (libzmq pulls
 * libstdc++, PGM, NORM and Kerberos; libpq OpenSSL, LDAP and GnuTLS): ~0.05 s,
 * half of what a 10^6-request analysis may cost (issue 27).  So `ftio` does
 * not link them: the code of its commands that talk to ftiod or to a
 * history store (predictor/cli/, and ftio's own builds of common/auth.c,
 * control.c, curve.c, transport.c and predictor/history/db_*.c, predictor/cli.mk)
 * is compiled with -include of this header, which turns each call of those
 * libraries into a call through a pointer resolved by dlsym() on its first
 * use (lazy_libs.c).  The code reads as usual; ftiod and the tests link the
 * libraries as before.  A missing library is one line and exit status 1.
 * (libftio.so does the same for the shim: libtrace/lazy.h.)
 */
#ifndef FTIO_CLI_LAZY_LIBS_H
#define FTIO_CLI_LAZY_LIBS_H

#include <libpq-fe.h>
#include <munge.h>
#include <sodium.h>
#include <sqlite3.h>
#include <zmq.h>

/* The libraries (their sonames: lazy_libs.c). */
enum ftio_lazy_lib { FTIO_LIB_ZMQ, FTIO_LIB_MUNGE, FTIO_LIB_SODIUM, FTIO_LIB_SQLITE, FTIO_LIB_PQ,
                     FTIO_LIB_COUNT };

/* Every function of theirs that ftio calls: (library, name). */
#define FTIO_LAZY_LIB_FUNCS(X)                                                                  \
    X(ZMQ, zmq_bind) X(ZMQ, zmq_close) X(ZMQ, zmq_connect) X(ZMQ, zmq_ctx_new)                  \
    X(ZMQ, zmq_ctx_term) X(ZMQ, zmq_curve_keypair) X(ZMQ, zmq_curve_public) X(ZMQ, zmq_errno)   \
    X(ZMQ, zmq_getsockopt) X(ZMQ, zmq_msg_close) X(ZMQ, zmq_msg_data) X(ZMQ, zmq_msg_init)      \
    X(ZMQ, zmq_msg_more) X(ZMQ, zmq_msg_recv) X(ZMQ, zmq_msg_send) X(ZMQ, zmq_msg_size)         \
    X(ZMQ, zmq_poll) X(ZMQ, zmq_proxy_steerable) X(ZMQ, zmq_recv) X(ZMQ, zmq_send)              \
    X(ZMQ, zmq_setsockopt) X(ZMQ, zmq_socket) X(ZMQ, zmq_socket_monitor) X(ZMQ, zmq_strerror)   \
    X(ZMQ, zmq_z85_decode)                                                                      \
    X(MUNGE, munge_ctx_create) X(MUNGE, munge_ctx_destroy) X(MUNGE, munge_ctx_set)              \
    X(MUNGE, munge_ctx_strerror) X(MUNGE, munge_encode) X(MUNGE, munge_strerror)                \
    X(SODIUM, sodium_init) X(SODIUM, sodium_memzero) X(SODIUM, randombytes_buf)                 \
    X(SODIUM, crypto_generichash)                                                               \
    X(SQLITE, sqlite3_bind_double) X(SQLITE, sqlite3_bind_int64) X(SQLITE, sqlite3_bind_null)   \
    X(SQLITE, sqlite3_bind_text) X(SQLITE, sqlite3_busy_timeout)                                \
    X(SQLITE, sqlite3_clear_bindings) X(SQLITE, sqlite3_close) X(SQLITE, sqlite3_column_count)  \
    X(SQLITE, sqlite3_column_double) X(SQLITE, sqlite3_column_int64)                            \
    X(SQLITE, sqlite3_column_text) X(SQLITE, sqlite3_column_type) X(SQLITE, sqlite3_errmsg)     \
    X(SQLITE, sqlite3_errstr) X(SQLITE, sqlite3_exec) X(SQLITE, sqlite3_finalize)               \
    X(SQLITE, sqlite3_free) X(SQLITE, sqlite3_open_v2) X(SQLITE, sqlite3_prepare_v3)            \
    X(SQLITE, sqlite3_reset) X(SQLITE, sqlite3_step)                                            \
    X(PQ, PQclear) X(PQ, PQconnectdbParams) X(PQ, PQerrorMessage) X(PQ, PQexec)                 \
    X(PQ, PQexecPrepared) X(PQ, PQfinish) X(PQ, PQftype) X(PQ, PQgetisnull) X(PQ, PQgetvalue)   \
    X(PQ, PQnfields) X(PQ, PQntuples) X(PQ, PQprepare) X(PQ, PQreset)                           \
    X(PQ, PQresultErrorField) X(PQ, PQresultErrorMessage) X(PQ, PQresultStatus) X(PQ, PQstatus)

#define FTIO_LAZY_INDEX(lib, name) FTIO_LAZY_##name,
enum ftio_lazy_func { FTIO_LAZY_LIB_FUNCS(FTIO_LAZY_INDEX) FTIO_LAZY_COUNT };
#undef FTIO_LAZY_INDEX

/* Function i's address once resolved (NULL before). */
extern void *ftio_lazy_func[FTIO_LAZY_COUNT];
/* Resolve function i (loading its library on first need); on failure print
 * one line ("ftio: cannot load libzmq.so.5: ...") and exit(1). */
void *ftio_lazy_resolve(enum ftio_lazy_func i);

static inline void *ftio_lazy_get(enum ftio_lazy_func i)
{
    void *p = __atomic_load_n(&ftio_lazy_func[i], __ATOMIC_ACQUIRE);
    return p ? p : ftio_lazy_resolve(i);
}

#ifndef FTIO_LAZY_LIBS_IMPL
/* A call of name, through its resolved address. */
#define FTIO_LAZY_CALL(name) (*(__typeof__(&name))ftio_lazy_get(FTIO_LAZY_##name))
#define zmq_bind               FTIO_LAZY_CALL(zmq_bind)
#define zmq_close              FTIO_LAZY_CALL(zmq_close)
#define zmq_connect            FTIO_LAZY_CALL(zmq_connect)
#define zmq_ctx_new            FTIO_LAZY_CALL(zmq_ctx_new)
#define zmq_ctx_term           FTIO_LAZY_CALL(zmq_ctx_term)
#define zmq_curve_keypair      FTIO_LAZY_CALL(zmq_curve_keypair)
#define zmq_curve_public       FTIO_LAZY_CALL(zmq_curve_public)
#define zmq_errno              FTIO_LAZY_CALL(zmq_errno)
#define zmq_getsockopt         FTIO_LAZY_CALL(zmq_getsockopt)
#define zmq_msg_close          FTIO_LAZY_CALL(zmq_msg_close)
#define zmq_msg_data           FTIO_LAZY_CALL(zmq_msg_data)
#define zmq_msg_init           FTIO_LAZY_CALL(zmq_msg_init)
#define zmq_msg_more           FTIO_LAZY_CALL(zmq_msg_more)
#define zmq_msg_recv           FTIO_LAZY_CALL(zmq_msg_recv)
#define zmq_msg_send           FTIO_LAZY_CALL(zmq_msg_send)
#define zmq_msg_size           FTIO_LAZY_CALL(zmq_msg_size)
#define zmq_poll               FTIO_LAZY_CALL(zmq_poll)
#define zmq_proxy_steerable    FTIO_LAZY_CALL(zmq_proxy_steerable)
#define zmq_recv               FTIO_LAZY_CALL(zmq_recv)
#define zmq_send               FTIO_LAZY_CALL(zmq_send)
#define zmq_setsockopt         FTIO_LAZY_CALL(zmq_setsockopt)
#define zmq_socket             FTIO_LAZY_CALL(zmq_socket)
#define zmq_socket_monitor     FTIO_LAZY_CALL(zmq_socket_monitor)
#define zmq_strerror           FTIO_LAZY_CALL(zmq_strerror)
#define zmq_z85_decode         FTIO_LAZY_CALL(zmq_z85_decode)
#define munge_ctx_create       FTIO_LAZY_CALL(munge_ctx_create)
#define munge_ctx_destroy      FTIO_LAZY_CALL(munge_ctx_destroy)
#define munge_ctx_set          FTIO_LAZY_CALL(munge_ctx_set)
#define munge_ctx_strerror     FTIO_LAZY_CALL(munge_ctx_strerror)
#define munge_encode           FTIO_LAZY_CALL(munge_encode)
#define munge_strerror         FTIO_LAZY_CALL(munge_strerror)
#define sodium_init            FTIO_LAZY_CALL(sodium_init)
#define sodium_memzero         FTIO_LAZY_CALL(sodium_memzero)
#define randombytes_buf        FTIO_LAZY_CALL(randombytes_buf)
#define crypto_generichash     FTIO_LAZY_CALL(crypto_generichash)
#define sqlite3_bind_double    FTIO_LAZY_CALL(sqlite3_bind_double)
#define sqlite3_bind_int64     FTIO_LAZY_CALL(sqlite3_bind_int64)
#define sqlite3_bind_null      FTIO_LAZY_CALL(sqlite3_bind_null)
#define sqlite3_bind_text      FTIO_LAZY_CALL(sqlite3_bind_text)
#define sqlite3_busy_timeout   FTIO_LAZY_CALL(sqlite3_busy_timeout)
#define sqlite3_clear_bindings FTIO_LAZY_CALL(sqlite3_clear_bindings)
#define sqlite3_close          FTIO_LAZY_CALL(sqlite3_close)
#define sqlite3_column_count   FTIO_LAZY_CALL(sqlite3_column_count)
#define sqlite3_column_double  FTIO_LAZY_CALL(sqlite3_column_double)
#define sqlite3_column_int64   FTIO_LAZY_CALL(sqlite3_column_int64)
#define sqlite3_column_text    FTIO_LAZY_CALL(sqlite3_column_text)
#define sqlite3_column_type    FTIO_LAZY_CALL(sqlite3_column_type)
#define sqlite3_errmsg         FTIO_LAZY_CALL(sqlite3_errmsg)
#define sqlite3_errstr         FTIO_LAZY_CALL(sqlite3_errstr)
#define sqlite3_exec           FTIO_LAZY_CALL(sqlite3_exec)
#define sqlite3_finalize       FTIO_LAZY_CALL(sqlite3_finalize)
#define sqlite3_free           FTIO_LAZY_CALL(sqlite3_free)
#define sqlite3_open_v2        FTIO_LAZY_CALL(sqlite3_open_v2)
#define sqlite3_prepare_v3     FTIO_LAZY_CALL(sqlite3_prepare_v3)
#define sqlite3_reset          FTIO_LAZY_CALL(sqlite3_reset)
#define sqlite3_step           FTIO_LAZY_CALL(sqlite3_step)
#define PQclear                FTIO_LAZY_CALL(PQclear)
#define PQconnectdbParams      FTIO_LAZY_CALL(PQconnectdbParams)
#define PQerrorMessage         FTIO_LAZY_CALL(PQerrorMessage)
#define PQexec                 FTIO_LAZY_CALL(PQexec)
#define PQexecPrepared         FTIO_LAZY_CALL(PQexecPrepared)
#define PQfinish               FTIO_LAZY_CALL(PQfinish)
#define PQftype                FTIO_LAZY_CALL(PQftype)
#define PQgetisnull            FTIO_LAZY_CALL(PQgetisnull)
#define PQgetvalue             FTIO_LAZY_CALL(PQgetvalue)
#define PQnfields              FTIO_LAZY_CALL(PQnfields)
#define PQntuples              FTIO_LAZY_CALL(PQntuples)
#define PQprepare              FTIO_LAZY_CALL(PQprepare)
#define PQreset                FTIO_LAZY_CALL(PQreset)
#define PQresultErrorField     FTIO_LAZY_CALL(PQresultErrorField)
#define PQresultErrorMessage   FTIO_LAZY_CALL(PQresultErrorMessage)
#define PQresultStatus         FTIO_LAZY_CALL(PQresultStatus)
#define PQstatus               FTIO_LAZY_CALL(PQstatus)
#endif

#endif
