/* SPDX-License-Identifier: BSD-3-Clause */
/* test_common.c -- Check suite of small helpers of common/: the growth
 * of arrays (grow.h: doubling, the first size, overflow refused with the old
 * array intact; an array that starts on a static buffer moves to the heap
 * with its contents and leaves the buffer alone), numbers without stdio
 * (numfmt.h: as printf writes them, truncated at the end), the byte-unit ladder (units.h: ftio_byte_unit and the
 * strings ftio_fmt_bytes printed before the ladder was shared) and the key of
 * an application (app_key.h: the shim's argv and a Darshan command line hash
 * alike; the values are pinned, since stores keep them), and big arrays
 * (bigarray.h: grown across the mapped size with their contents, calloc'd
 * zero even from a kept dirty mapping, the kept bytes bounded). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../check_main.h"
#include "app_key.h"
#include "bigarray.h"
#include "grow.h"
#include "numfmt.h"
#include "units.h"

START_TEST(grow_doubles)
{
    double *v = NULL;
    size_t cap = 0;
    ck_assert_int_eq(FTIO_GROW(v, cap, 1), 0);
    ck_assert_uint_eq(cap, 128);                 /* 1 KiB of doubles */
    for (size_t i = 0; i < 128; i++)
        v[i] = (double)i;
    ck_assert_int_eq(FTIO_GROW(v, cap, 128), 0); /* room already: untouched */
    ck_assert_uint_eq(cap, 128);
    ck_assert_int_eq(FTIO_GROW(v, cap, 129), 0);
    ck_assert_uint_eq(cap, 256);
    ck_assert_int_eq(FTIO_GROW(v, cap, 1000), 0);
    ck_assert_uint_eq(cap, 1024);
    for (size_t i = 0; i < 128; i++)
        ck_assert(v[i] == (double)i);            /* the contents moved along */
    free(v);

    char *big = NULL;                            /* 1-byte and huge elements */
    size_t bcap = 0;
    ck_assert_int_eq(FTIO_GROW(big, bcap, 10), 0);
    ck_assert_uint_eq(bcap, 1024);
    free(big);
    struct { char x[4096]; } *h = NULL;
    size_t hcap = 0;
    ck_assert_int_eq(FTIO_GROW(h, hcap, 1), 0);
    ck_assert_uint_eq(hcap, 16);
    free(h);
}
END_TEST

START_TEST(grow_overflow)
{
    uint64_t *v = NULL;
    size_t cap = 0;
    ck_assert_int_eq(FTIO_GROW(v, cap, 3), 0);
    v[0] = 42;
    uint64_t *old = v;
    errno = 0;
    ck_assert_int_eq(FTIO_GROW(v, cap, SIZE_MAX / 4), -1);   /* need * elem wraps */
    ck_assert_int_eq(errno, ENOMEM);
    ck_assert_ptr_eq(v, old);
    ck_assert_uint_eq(cap, 128);
    /* (A count that fits size_t but not memory is realloc's failure, the
     * same path; not tried here, so that `make asan` need not allow it.) */
    ck_assert(v[0] == 42);
    free(v);
}
END_TEST

START_TEST(grow_parallel)
{
    double *a = NULL;
    uint32_t *b = NULL;
    size_t cap = 0;
    void **const arrays[] = {(void **)&a, (void **)&b};
    const size_t elem[] = {sizeof *a, sizeof *b};
    ck_assert_int_eq(ftio_grow_parallel(&cap, 3, 2, arrays, elem), 0);
    ck_assert_uint_eq(cap, 128);     /* 1 KiB of the widest, doubles */
    a[127] = 1.5;
    b[127] = 7;
    ck_assert_int_eq(ftio_grow_parallel(&cap, 129, 2, arrays, elem), 0);
    ck_assert_uint_eq(cap, 256);
    ck_assert(a[127] == 1.5 && b[127] == 7);
    errno = 0;
    ck_assert_int_eq(ftio_grow_parallel(&cap, SIZE_MAX / 4, 2, arrays, elem), -1);
    ck_assert_int_eq(errno, ENOMEM);
    ck_assert_uint_eq(cap, 256);
    free(a);
    free(b);
}
END_TEST

START_TEST(grow_from_static)
{
    static int first[4] = { 0, 0, 0, 0 };
    int *v = first;
    size_t cap = 4;
    for (int i = 0; i < 4; i++)
        v[i] = 10 + i;
    ck_assert_int_eq(FTIO_GROW_FROM(v, cap, 4, first, 4), 0);   /* room already */
    ck_assert_ptr_eq(v, first);
    ck_assert_int_eq(FTIO_GROW_FROM(v, cap, 5, first, 3), 0);   /* 3 in use: moved */
    ck_assert_ptr_ne(v, first);
    ck_assert_uint_eq(cap, 8);                                  /* doubled, as ftio_grow */
    ck_assert_int_eq(v[0], 10);
    ck_assert_int_eq(v[2], 12);
    v[4] = 99;
    first[0] = -1;                                              /* the buffer is the caller's again */
    ck_assert_int_eq(v[0], 10);
    ck_assert_int_eq(FTIO_GROW_FROM(v, cap, 20, first, 5), 0);  /* on the heap: realloc */
    ck_assert_uint_eq(cap, 32);
    ck_assert_int_eq(v[4], 99);
    ck_assert_int_eq(FTIO_GROW_FROM(v, cap, SIZE_MAX / 2, first, 5), -1);
    ck_assert_int_eq(errno, ENOMEM);
    ck_assert_uint_eq(cap, 32);
    FTIO_GROW_RELEASE(v, first);
    ck_assert_ptr_null(v);
    v = first;
    cap = 4;
    ck_assert_int_eq(FTIO_GROW_FROM(v, cap, SIZE_MAX / 2, first, 4), -1);  /* untouched */
    ck_assert_ptr_eq(v, first);
    ck_assert_uint_eq(cap, 4);
    FTIO_GROW_RELEASE(v, first);                                /* not freed */
    ck_assert_ptr_null(v);
    ck_assert_int_eq(first[1], 11);
}
END_TEST

START_TEST(numbers_without_stdio)
{
    char buf[32], want[32];
    unsigned long long hv[] = { 0, 1, 0xabc, 0x123456789abcdefull, ~0ull };
    for (size_t i = 0; i < sizeof hv / sizeof *hv; i++) {
        *ftio_put_hex(buf, buf + 16, hv[i], 16) = '\0';
        snprintf(want, sizeof want, "%016llx", hv[i]);
        ck_assert_str_eq(buf, want);
        *ftio_put_hex(buf, buf + sizeof buf, hv[i], 0) = '\0';
        snprintf(want, sizeof want, "%llx", hv[i]);
        ck_assert_str_eq(buf, want);
        *ftio_put_ulong(buf, buf + sizeof buf, (unsigned long)hv[i]) = '\0';
        snprintf(want, sizeof want, "%lu", (unsigned long)hv[i]);
        ck_assert_str_eq(buf, want);
    }
    *ftio_put_ulong(buf, buf + 2, 12345) = '\0';               /* what fits, from the left */
    ck_assert_str_eq(buf, "12");
}
END_TEST

START_TEST(byte_units)
{
    double div;
    ck_assert_str_eq(ftio_byte_unit(0, &div), "B");
    ck_assert(div == 1);
    ck_assert_str_eq(ftio_byte_unit(1023, &div), "B");
    ck_assert_str_eq(ftio_byte_unit(1024, &div), "KiB");
    ck_assert(div == 1024);
    ck_assert_str_eq(ftio_byte_unit(-5.0 * 1024 * 1024, &div), "MiB");
    ck_assert(div == 1024.0 * 1024);
    ck_assert_str_eq(ftio_byte_unit(ldexp(1, 70), &div), "EiB");  /* the top */
    ck_assert(div == ldexp(1, 60));
    ck_assert_str_eq(ftio_byte_unit(NAN, &div), "B");

    char buf[FTIO_UNITS_LEN];
    ck_assert_str_eq(ftio_fmt_bytes(512, buf, sizeof buf), "512 B");
    ck_assert_str_eq(ftio_fmt_bytes(1536, buf, sizeof buf), "1.50 KiB");
    ck_assert_str_eq(ftio_fmt_bytes(12.0 * 1024 * 1024, buf, sizeof buf), "12.0 MiB");
    ck_assert_str_eq(ftio_fmt_bytes(-300.0 * 1024 * 1024 * 1024, buf, sizeof buf), "-300 GiB");
    ck_assert_str_eq(ftio_fmt_bytes(NAN, buf, sizeof buf), "-");
    ck_assert_str_eq(ftio_fmt_rate(1.5 * 1024 * 1024 * 1024, buf, sizeof buf), "1.50 GiB/s");
}
END_TEST

/* The hashes of one argument string fed as the shim feeds it (pieces). */
static void hash_pieces(const char *p, size_t n, size_t piece, char exact[17], char norm[17])
{
    struct ftio_args_hash h;
    ftio_args_hash_init(&h);
    for (size_t i = 0; i < n; i += piece)
        ftio_args_hash_add(&h, p + i, n - i < piece ? n - i : piece);
    ftio_args_hash_hex(&h, exact, norm);
}

START_TEST(args_hash)
{
    /* /proc/self/cmdline of `lmp -in in.lj -var seed 4242`, argv[0] cut */
    static const char cmdline[] = "-in\0in.lj\0-var\0seed\0" "4242";
    char e1[17], n1[17], e2[17], n2[17], exe[64];
    for (size_t piece = 1; piece <= sizeof cmdline; piece++) {
        hash_pieces(cmdline, sizeof cmdline, piece, e1, n1);   /* with the final NUL */
        ck_assert_str_eq(e1, "cb1100e1177f7fb3");
        ck_assert_str_eq(n1, "6043388a1bd5d610");
    }
    /* Darshan's exe field of the same run: argv[0], then each argument and a space */
    ftio_app_split_cmdline("/opt//lammps/bin/lmp -in in.lj -var seed 4242 ", exe, sizeof exe, e2, n2);
    ck_assert_str_eq(exe, "/opt/lammps/bin/lmp");
    ck_assert_str_eq(ftio_app_prog(exe), "lmp");
    ck_assert_str_eq(e2, "cb1100e1177f7fb3");
    ck_assert_str_eq(n2, "6043388a1bd5d610");
    /* another seed: another exact hash, the same normalised one */
    ftio_app_split_cmdline("lmp -in in.lj -var seed 17", exe, sizeof exe, e2, n2);
    ck_assert_str_ne(e2, "cb1100e1177f7fb3");
    ck_assert_str_eq(n2, "6043388a1bd5d610");
    ck_assert_str_eq(exe, "lmp");
    /* no arguments at all, and an empty argument that stays one */
    hash_pieces("", 0, 1, e1, n1);
    ck_assert_str_eq(e1, "8c3c8456b30c063f");
    ftio_app_split_cmdline("a.out ", exe, sizeof exe, e2, n2);
    ck_assert_str_eq(e2, "8c3c8456b30c063f");
    hash_pieces("\0x\0", 4, 2, e1, n1);
    ftio_app_split_cmdline("a.out  x", exe, sizeof exe, e2, n2);
    ck_assert_str_eq(e1, e2);
    ftio_app_split_cmdline("a.out x", exe, sizeof exe, e2, n2);
    ck_assert_str_ne(e1, e2);
    ck_assert_str_eq(ftio_app_prog("a.out"), "a.out");
    ck_assert_str_eq(ftio_app_prog(NULL), "");
}
END_TEST

START_TEST(big_grow_keeps_contents)
{
    uint32_t *v = NULL;
    size_t cap = 0, n = 0;
    /* from malloc'd to mapped (1 MiB) and on by doubling, some by mremap */
    for (; n < (size_t)3 << 20; n++) {
        if (n == cap)
            ck_assert_int_eq(FTIO_BIG_GROW(v, cap, n, n + 1), 0);
        v[n] = (uint32_t)(n * 2654435761u);
    }
    ck_assert_uint_ge(cap, n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += v[i] != (uint32_t)(i * 2654435761u);
    ck_assert_uint_eq(wrong, 0);
    size_t before = cap;       /* overflow refused, the array intact */
    errno = 0;
    ck_assert_int_eq(FTIO_BIG_GROW(v, cap, n, SIZE_MAX / 2), -1);
    ck_assert_int_eq(errno, ENOMEM);
    ck_assert_uint_eq(cap, before);
    ck_assert_uint_eq(v[n - 1], (uint32_t)((n - 1) * 2654435761u));
    FTIO_BIG_FREE(v, cap);
}
END_TEST

START_TEST(big_calloc_zero_after_reuse)
{
    ftio_big_keep((size_t)64 << 20);
    size_t n = (size_t)5 << 20;       /* 20 MB of uint32 */
    for (int round = 0; round < 3; round++) {
        uint32_t *a = ftio_big_calloc(n, sizeof *a);
        ck_assert_ptr_nonnull(a);
        size_t nonzero = 0;
        for (size_t i = 0; i < n; i++)
            nonzero += a[i] != 0;
        ck_assert_uint_eq(nonzero, 0);
        memset(a, 0xab, n * sizeof *a);    /* dirty: kept for the next round */
        ftio_big_free(a, n, sizeof *a);
    }
    /* a smaller one from the kept mapping, then more than is kept */
    uint8_t *b = ftio_big_calloc((size_t)3 << 20, 1), *c = ftio_big_calloc((size_t)100 << 20, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(b[0] | b[((size_t)3 << 20) - 1] | c[0] | c[((size_t)100 << 20) - 1], 0);
    ftio_big_free(b, (size_t)3 << 20, 1);
    ftio_big_free(c, (size_t)100 << 20, 1);   /* over the 64 MB kept: unmapped */
    ftio_big_keep(0);                          /* and nothing kept any more */
    uint8_t *small = ftio_big_calloc(100, 1);  /* under 1 MiB: calloc'd */
    ck_assert_ptr_nonnull(small);
    ck_assert_uint_eq(small[99], 0);
    ftio_big_free(small, 100, 1);
    ftio_big_free(NULL, 0, 1);
}
END_TEST

Suite *ftio_test_suite(void)
{
    Suite *s = suite_create("common");
    FTIO_TCASE(s, "grow", grow_doubles, grow_overflow, grow_parallel, grow_from_static);
    FTIO_TCASE(s, "numfmt", numbers_without_stdio);
    FTIO_TCASE(s, "bigarray", big_grow_keeps_contents, big_calloc_zero_after_reuse);
    FTIO_TCASE(s, "units", byte_units);
    FTIO_TCASE(s, "app_key", args_hash);
    return s;
}
