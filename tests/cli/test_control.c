/* SPDX-License-Identifier: BSD-3-Clause */
/* test_control.c -- Check unit tests of the control socket's requests
 * (common/control.c): what every client encodes is what ftiod decodes,
 * and hostile requests (unknown verbs, spaces, control characters, NUL
 * bytes, absurd uids, missing arguments) are refused with a reason. */
#include <check.h>
#include "../check_main.h"
#include <stdint.h>
#include <string.h>
#include "control.h"

static int decode(const char *req, size_t len, enum ftio_control_verb *v, char *job, int64_t *uid)
{
    char err[200];
    return ftio_control_decode(req, len, v, job, FTIO_CONTROL_JOB_MAX + 1, uid, err, sizeof err);
}

START_TEST(round_trip)
{
    char req[FTIO_CONTROL_REQ_MAX], err[200], job[FTIO_CONTROL_JOB_MAX + 1];
    enum ftio_control_verb v;
    int64_t uid;
    static const struct { enum ftio_control_verb v; const char *job; int64_t uid; const char *text; } c[] = {
        {FTIO_CTL_STATUS, NULL, -1, "status"},
        {FTIO_CTL_END, "4711.0", -1, "end 4711.0"},
        {FTIO_CTL_LAST, "u1000:run1", -1, "last u1000:run1"},
        {FTIO_CTL_CLAIM, "4711.batch", 65534, "claim 4711.batch 65534"},
        {FTIO_CTL_CLAIM, "1", 0, "claim 1 0"},
        {FTIO_CTL_APPS, NULL, -1, "apps"},              /* the memory of runs */
        {FTIO_CTL_APP, "42", -1, "app 42"},
        {FTIO_CTL_FORGET, "all", -1, "forget all"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        ck_assert_int_eq(ftio_control_encode(req, sizeof req, c[i].v, c[i].job, c[i].uid, err,
                                             sizeof err), 0);
        ck_assert_str_eq(req, c[i].text);
        ck_assert_int_eq(decode(req, strlen(req), &v, job, &uid), 0);
        ck_assert_int_eq(v, c[i].v);
        ck_assert_str_eq(job, c[i].job ? c[i].job : "");
        ck_assert_int_eq(uid, c[i].v == FTIO_CTL_CLAIM ? c[i].uid : -1);
    }
    /* the longest job id fits */
    char longjob[FTIO_CONTROL_JOB_MAX + 1];
    memset(longjob, 'j', FTIO_CONTROL_JOB_MAX);
    longjob[FTIO_CONTROL_JOB_MAX] = 0;
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_CLAIM, longjob, 4294967294LL,
                                         err, sizeof err), 0);
    ck_assert_int_eq(decode(req, strlen(req), &v, job, &uid), 0);
    ck_assert_str_eq(job, longjob);
    ck_assert_int_eq(uid, 4294967294LL);
}
END_TEST

START_TEST(encode_refuses)
{
    char req[FTIO_CONTROL_REQ_MAX], err[200];
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_END, "a b", -1, err, sizeof err), -1);
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_END, "", -1, err, sizeof err), -1);
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_LAST, NULL, -1, err, sizeof err), -1);
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_END, "a\nb", -1, err, sizeof err), -1);
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_CLAIM, "j", -1, err, sizeof err), -1);
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_CLAIM, "j", 4294967295LL, err,
                                         sizeof err), -1);
    ck_assert_int_eq(ftio_control_encode(req, 8, FTIO_CTL_END, "4711.0.0", -1, err, sizeof err), -1);
    char toolong[FTIO_CONTROL_JOB_MAX + 2];
    memset(toolong, 'j', sizeof toolong - 1);
    toolong[sizeof toolong - 1] = 0;
    ck_assert_int_eq(ftio_control_encode(req, sizeof req, FTIO_CTL_END, toolong, -1, err, sizeof err), -1);
}
END_TEST

START_TEST(decode_refuses)
{
    char job[FTIO_CONTROL_JOB_MAX + 1];
    enum ftio_control_verb v;
    int64_t uid;
    static const char *const bad[] = {
        "", "stat", "statusx", "status now", "end", "end ", "end  x", "end a b", "last",
        "claim", "claim j", "claim j ", "claim j x", "claim j -1", "claim j 4294967295",
        "claim j 99999999999", "claim  5", "claim j 5 6", "END x", "end\tx",
        "apps 5", "apps ", "app", "app ", "forget", "forget a b",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(decode(bad[i], strlen(bad[i]), &v, job, &uid) == -1, "accepted '%s'", bad[i]);
    /* a NUL byte inside the job id */
    ck_assert_int_eq(decode("end a\0b", 7, &v, job, &uid), -1);
    /* a job id one byte too long */
    static char big[FTIO_CONTROL_JOB_MAX + 8];
    memcpy(big, "end ", 4);
    memset(big + 4, 'j', FTIO_CONTROL_JOB_MAX + 1);
    ck_assert_int_eq(decode(big, 4 + FTIO_CONTROL_JOB_MAX + 1, &v, job, &uid), -1);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("control", "control", NULL,
                      round_trip, encode_refuses, decode_refuses);
}
