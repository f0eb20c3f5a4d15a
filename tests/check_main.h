/* SPDX-License-Identifier: BSD-3-Clause */
/* check_main.h -- the one convention of the Check unit tests: each test file
 * defines its suite with this function and no main(); tests/check_main.c is
 * the main() every Check binary links (the tests/ make fragments).  CK_RUN_SUITE and
 * CK_RUN_CASE (Check's own variables) select a test case to run. */
#ifndef FTIO_TEST_CHECK_MAIN_H
#define FTIO_TEST_CHECK_MAIN_H

#include <check.h>
#include <stddef.h>

Suite *ftio_test_suite(void);

/* The suite most test files define: SUITE with one test case TCASE that
 * holds `tests` (a NULL-terminated list) in order.  When tc is not NULL it
 * gets the test case, for a fixture or a timeout:
 *     TCase *tc;
 *     Suite *s = FTIO_SUITE("readers", "core", &tc, parses_empty, ...);
 *     tcase_set_timeout(tc, 120);                                      */
Suite *ftio_suite(const char *suite, const char *tcase, TCase **tc, const TTest *const tests[]);
#define FTIO_SUITE(suite, tcase, tc, ...) \
    ftio_suite((suite), (tcase), (tc), (const TTest *const[]){ __VA_ARGS__, NULL })

/* A suite of several test cases: adds the test case TCASE holding `tests`
 * (NULL-terminated) to s, and returns it:
 *     FTIO_TCASE(s, "units", byte_units, fmt_rates);                    */
TCase *ftio_tcase(Suite *s, const char *tcase, const TTest *const tests[]);
#define FTIO_TCASE(s, tcase, ...) ftio_tcase((s), (tcase), (const TTest *const[]){ __VA_ARGS__, NULL })

/* Assertions for loops over many elements.  Every ck_assert that holds
 * writes its place to Check's log (a system call), and a test that asserts
 * on each of 10^5-10^6 elements spent most of its time there, past its
 * timeout on a loaded machine (the suite beside stress-ng).  These write
 * only when they fail, with Check's file and line:
 *     FTIO_CHECK(o[i] < n);
 *     FTIO_CHECK_MSG(a <= b, "n %zu: %g before %g", n, a, b);          */
#define FTIO_CHECK_MSG(cond, ...) \
    do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)
#define FTIO_CHECK(cond) FTIO_CHECK_MSG(cond, "Assertion '%s' failed", #cond)

#endif
