/* SPDX-License-Identifier: BSD-3-Clause */
/* lib_sonames.h -- the sonames of the libraries that libftio.so
 * (libtrace/lazy.c) and ftio (predictor/cli/lazy_libs.c) open on first use:
 * the build host's, passed by the build (`lazy_soname_flags` in
 * libtrace/libtrace.mk), or these when it found none. */
#ifndef FTIO_LIB_SONAMES_H
#define FTIO_LIB_SONAMES_H

#ifndef FTIO_ZMQ_SO
#define FTIO_ZMQ_SO "libzmq.so.5"
#endif
#ifndef FTIO_MUNGE_SO
#define FTIO_MUNGE_SO "libmunge.so.2"
#endif
#ifndef FTIO_SODIUM_SO
#define FTIO_SODIUM_SO "libsodium.so.23"
#endif
#ifndef FTIO_SQLITE3_SO
#define FTIO_SQLITE3_SO "libsqlite3.so.0"
#endif
#ifndef FTIO_PQ_SO
#define FTIO_PQ_SO "libpq.so.5"
#endif

#endif
