/* SPDX-License-Identifier: BSD-3-Clause */
/* check_main.c -- main() of every Check unit-test binary: runs the suite the
 * test file defines (ftio_test_suite(), check_main.h) and exits 1 when a test
 * failed.  Check prints the "Checks: N, Failures: F, Errors: E" line that
 * tests/run.sh counts; CK_DEFAULT_TIMEOUT, CK_RUN_CASE, CK_FORK ... apply.
 * Also the one way a test file lists its tests (ftio_suite, ftio_tcase). */
#include <stdlib.h>
#include "check_main.h"

TCase *ftio_tcase(Suite *s, const char *tcase, const TTest *const tests[])
{
    TCase *c = tcase_create(tcase);
    for (size_t i = 0; tests[i]; i++)
        tcase_add_test(c, tests[i]);
    suite_add_tcase(s, c);
    return c;
}

Suite *ftio_suite(const char *suite, const char *tcase, TCase **tc, const TTest *const tests[])
{
    Suite *s = suite_create(suite);
    TCase *c = ftio_tcase(s, tcase, tests);
    if (tc)
        *tc = c;
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ftio_test_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
