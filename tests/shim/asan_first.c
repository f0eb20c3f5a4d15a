/* SPDX-License-Identifier: BSD-3-Clause */
/* asan_first.c -- under `make asan` only: starts AddressSanitizer before any
 * other constructor of a traced program that is not instrumented itself.
 *
 * Why: the ASan build of libftio.so is preloaded behind libasan.so, but the
 * loader runs the constructors of objects that do not depend on each other
 * in any order, and libftio.so brings libzmq -> GnuTLS -> p11-kit into the
 * process.  p11-kit's constructor ran before libasan's and called
 * newlocale(): glibc's newlocale holds its locale lock for writing and
 * allocates, ASan started inside that allocation and translated a message
 * under the same lock for reading, which released the writer's hold; the
 * lock's count went below zero and LAMMPS hung at exit in p11-kit's
 * freelocale (and through libftio's newlocale wrapper, instrumented code ran
 * before ASan's shadow memory existed: a fault).  Linked with -z initfirst,
 * this object's constructor runs before every other one (glibc's
 * DF_1_INITFIRST), and __asan_init() is what ASan's own preinit entry and
 * every instrumented object's constructor call: idempotent.  tests/lib.sh
 * and bench/shim_env.sh put it right behind libasan.so in LD_PRELOAD; a
 * normal build neither makes nor uses it.
 */
void __asan_init(void);

__attribute__((constructor)) static void asan_first(void)
{
    __asan_init();
}
