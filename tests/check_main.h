/* SPDX-License-Identifier: BSD-3-Clause */
/* check_main.h -- the one convention of the Check unit tests: each test file
 * defines its suite with this function and no main(); tests/check_main.c is
 * the main() every Check binary links (the tests/ make fragments).  CK_RUN_SUITE and
 * CK_RUN_CASE (Check's own variables) select a test case to run. */
#ifndef FTIO_TEST_CHECK_MAIN_H
#define FTIO_TEST_CHECK_MAIN_H

#include <check.h>

Suite *ftio_test_suite(void);

#endif
