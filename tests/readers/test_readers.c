/* SPDX-License-Identifier: BSD-3-Clause */
/* test_readers.c -- Check tests of the trace readers (predictor/trace.h) and
 * the report JSON (predictor/publish/report.h): libftioreaders.a and
 * libftiopublish.a.
 *
 * Reference traces come from tests/data (run from the repository root, or set
 * FTIO_TEST_DATA).  Spool files are made here with the wire encoder, TMIO
 * msgpack with msgpack-c's packer.  Every buffer handed to a reader is an
 * exact-size heap copy, so AddressSanitizer sees any read past the end, and
 * every proper prefix of each format is fed in to prove truncation is an
 * error (never a crash, never silently accepted).
 */
#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>
#include "publish/report.h"
#include "trace.h"
#include "readers/readers.h"
#include "wire.h"
#include "../kit/xorshift.h"

/* ---- helpers ------------------------------------------------------------ */

static char err[1024], warn[1024];

static const char *data_path(const char *name)
{
    static char path[1024];
    const char *dir = getenv("FTIO_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
    return path;
}

static int read_buf(struct ftio_trace_set *set, const void *buf, size_t len, const char *name,
                    const struct ftio_read_options *o)
{
    char *copy = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, buf, len);
    err[0] = warn[0] = 0;
    int rc = ftio_trace_read_buffer(set, copy, len, name, o, err, sizeof err, warn, sizeof warn);
    free(copy);
    return rc;
}

static int read_str(struct ftio_trace_set *set, const char *s, const char *name,
                    const struct ftio_read_options *o)
{
    return read_buf(set, s, strlen(s), name, o);
}

/* Reads tests/data/NAME into *set as `ftio` does: the file with o (the test
 * fails with the reader's message when it refuses), then the set finished. */
static void read_data(struct ftio_trace_set *set, const char *name, const struct ftio_read_options *o)
{
    err[0] = warn[0] = 0;
    ck_assert_msg(ftio_trace_read_file(set, data_path(name), o, err, sizeof err, warn, sizeof warn) == 0,
                  "%s", err);
    ftio_trace_set_finish(set, o);
}

/* read_data of a sample trace that holds `writes` write requests of 1 MiB
 * from `ranks` ranks. */
static void read_sample(struct ftio_trace_set *set, const char *name, const struct ftio_read_options *o,
                        size_t writes, int ranks)
{
    read_data(set, name, o);
    ck_assert_uint_eq(set->job[0].write.req.n, writes);
    ck_assert_double_eq(set->job[0].write.bytes, writes * 1048576.0);
    ck_assert_int_eq(set->job[0].ranks, ranks);
}

static struct ftio_read_options defaults(void)
{
    struct ftio_read_options o;
    ftio_read_options_default(&o);
    return o;
}

/* Every proper prefix of buf must fail (or, if it happens to be a complete
 * shorter document, at least not crash); the error names the file and a
 * position.  Returns how many prefixes failed. */
static size_t feed_prefixes(const char *buf, size_t len, const char *name, const char *where)
{
    struct ftio_read_options o = defaults();
    size_t failed = 0;
    for (size_t n = 1; n < len; n++) {
        struct ftio_trace_set set = { 0 };
        if (read_buf(&set, buf, n, name, &o) != 0) {
            failed++;
            ck_assert_msg(strstr(err, name) && strstr(err, where),
                          "prefix %zu: error \"%s\" lacks \"%s\"", n, err, where);
        }
        ftio_trace_set_free(&set);
    }
    return failed;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* ---- detection ---------------------------------------------------------- */

START_TEST(test_detect)
{
    ck_assert_int_eq(ftio_trace_detect("\x87\xa1v\x01", 4, "x.bin"), FTIO_FORMAT_SPOOL);
    ck_assert_int_eq(ftio_trace_detect("\xde\x00\x10", 3, "x"), FTIO_FORMAT_SPOOL);
    ck_assert_int_eq(ftio_trace_detect("\x9e\xaawrite_sync", 12, "x.json"), FTIO_FORMAT_TMIO_MSGPACK);
    ck_assert_int_eq(ftio_trace_detect("  \n{\"a\":1}", 10, "x.csv"), FTIO_FORMAT_TMIO_JSON);
    const char *dxt = "# darshan log version: 3.41\n X_POSIX 0 write 0 0 1 0.1 0.2\n";
    ck_assert_int_eq(ftio_trace_detect(dxt, strlen(dxt), "log.json"), FTIO_FORMAT_DXT);
    const char *csv = "# comment\nrank,op,t_start,t_end,bytes\n0,write,0,1,5\n";
    ck_assert_int_eq(ftio_trace_detect(csv, strlen(csv), "trace.dat"), FTIO_FORMAT_CSV);
    ck_assert_int_eq(ftio_trace_detect("hello", 5, "x.jsonl"), FTIO_FORMAT_TMIO_JSON);
    ck_assert_int_eq(ftio_trace_detect("hello", 5, "x.bin"), FTIO_FORMAT_AUTO);

    struct ftio_trace_set set = { 0 };
    struct ftio_read_options o = defaults();
    ck_assert_int_eq(read_str(&set, "hello world\n", "junk.bin", &o), -1);
    ck_assert_ptr_nonnull(strstr(err, "junk.bin: offset 0: unknown trace format"));
    ck_assert_int_eq(read_buf(&set, "", 0, "empty", &o), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty"));
    ftio_trace_set_free(&set);
}
END_TEST

/* ---- TMIO JSONL / msgpack: the reference trace -------------------------- */

START_TEST(test_tmio_reference_jsonl_and_msgpack_agree)
{
    struct ftio_read_options o = defaults();
    struct ftio_trace_set a = { 0 }, b = { 0 };
    read_data(&a, "tmio-8ranks.jsonl", &o);
    read_data(&b, "tmio-8ranks.msgpack", &o);
    ck_assert_uint_eq(a.n, 1);
    ck_assert_uint_eq(b.n, 1);
    const struct ftio_trace *ta = &a.job[0], *tb = &b.job[0];
    ck_assert_str_eq(ta->job, "");
    /* 15 flushes of 73 phases per direction; total_bytes 329 per flush. */
    ck_assert_uint_eq(ta->write.req.n, 1095);
    ck_assert_uint_eq(ta->read.req.n, 1095);
    ck_assert_double_eq_tol(ta->write.bytes, 4935, 1e-9);
    ck_assert_int_eq(ta->ranks, 8);
    ck_assert_uint_eq(tb->write.req.n, ta->write.req.n);
    ck_assert_uint_eq(tb->read.req.n, ta->read.req.n);
    ck_assert_double_eq_tol(tb->write.bytes, ta->write.bytes, 1e-9);
    ck_assert_int_eq(tb->ranks, 8);
    for (size_t i = 0; i < ta->write.req.n; i++) {
        ck_assert_double_eq_tol(ta->write.req.rec[i].t_start, tb->write.req.rec[i].t_start, 1e-6);
        ck_assert_double_eq_tol(ta->write.req.rec[i].t_end, tb->write.req.rec[i].t_end, 1e-6);
        ck_assert_double_eq_tol(ta->write.req.rec[i].rate, tb->write.req.rec[i].rate,
                                1e-6 * fabs(ta->write.req.rec[i].rate) + 1e-9);
    }
    ck_assert(!ta->write.has_overlap);
    ftio_trace_set_free(&a);
    ftio_trace_set_free(&b);
}
END_TEST

START_TEST(test_tmio_truncated_and_corrupt)
{
    size_t len;
    char *jsonl = slurp(data_path("tmio-8ranks.jsonl"), &len);
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    /* Cut in the middle of line 3: an error at line 3; lenient keeps lines 1-2. */
    const char *l3 = jsonl;
    for (int k = 0; k < 2; k++)
        l3 = strchr(l3, '\n') + 1;
    size_t cut = (size_t)(l3 - jsonl) + 100;
    ck_assert_int_eq(read_buf(&set, jsonl, cut, "t.jsonl", &o), -1);
    ck_assert_msg(strstr(err, "t.jsonl: line 3:") != NULL, "got %s", err);
    ftio_trace_set_free(&set);
    o.lenient = true;
    ck_assert_int_eq(read_buf(&set, jsonl, cut, "t.jsonl", &o), 0);
    ck_assert_ptr_nonnull(strstr(warn, "line 3"));
    ck_assert_uint_eq(set.job[0].read.req.n, 73);   /* line 1 = read_sync of flush 1 */
    ftio_trace_set_free(&set);
    free(jsonl);

    char *mp = slurp(data_path("tmio-8ranks.msgpack"), &len);
    o.lenient = false;
    /* Every 97th prefix (the whole loop over 115 kB x 1095 records is slow
     * under ASan): all must fail with an offset. */
    size_t next_boundary = 0;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    for (size_t n = 1; n < len; n += 97) {
        while (next_boundary < n)   /* item ends: those prefixes are complete files */
            ck_assert_int_eq(msgpack_unpack_next(&u, mp, len, &next_boundary), MSGPACK_UNPACK_SUCCESS);
        int rc = read_buf(&set, mp, n, "t.msgpack", &o);
        if (n == next_boundary) {
            ck_assert_int_eq(rc, 0);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_msg(strstr(err, "t.msgpack: offset ") != NULL, "prefix %zu: %s", n, err);
        }
        ftio_trace_set_free(&set);
    }
    msgpack_unpacked_destroy(&u);
    /* A byte that is never valid msgpack (0xc1) at an item start mid-file. */
    char *bad = malloc(len);
    memcpy(bad, mp, len);
    size_t mid = 0;
    msgpack_unpacked_init(&u);
    while (mid < len / 2)
        ck_assert_int_eq(msgpack_unpack_next(&u, mp, len, &mid), MSGPACK_UNPACK_SUCCESS);
    msgpack_unpacked_destroy(&u);
    bad[mid] = (char)0xc1;
    ck_assert_int_eq(read_buf(&set, bad, len, "bad.msgpack", &o), -1);
    snprintf(warn, sizeof warn, "bad.msgpack: offset %zu: invalid msgpack", mid);
    ck_assert_str_eq(err, warn);
    ftio_trace_set_free(&set);
    free(bad);
    free(mp);
}
END_TEST

/* ---- TMIO msgpack built here: ints and floats, io_time, bad shapes ------- */

static void pack_mode(msgpack_packer *pk, const char *name, int is_write, int use_int)
{
    msgpack_pack_array(pk, 14);
    msgpack_pack_str_with_body(pk, name, strlen(name));
    msgpack_pack_false(pk);
    if (is_write) msgpack_pack_true(pk); else msgpack_pack_false(pk);
    msgpack_pack_int(pk, 300);                 /* total_bytes */
    for (int i = 0; i < 7; i++)
        msgpack_pack_double(pk, 1.0);
    msgpack_pack_int(pk, 3);                   /* number_of_ranks */
    msgpack_pack_int(pk, 3);
    msgpack_pack_array(pk, 2);
    for (int r = 0; r < 2; r++) {
        msgpack_pack_array(pk, 9);
        msgpack_pack_double(pk, 150);
        if (use_int) msgpack_pack_int(pk, 10 * r); else msgpack_pack_double(pk, 10.0 * r);
        if (use_int) msgpack_pack_int(pk, 10 * r + 2); else msgpack_pack_double(pk, 10.0 * r + 2);
        msgpack_pack_double(pk, 10.0 * r + 2);
        msgpack_pack_double(pk, 75);
        if (use_int) msgpack_pack_int(pk, 75); else msgpack_pack_double(pk, 75.0);
        msgpack_pack_double(pk, 75);
        msgpack_pack_double(pk, 75);
        msgpack_pack_int(pk, 1);
    }
}

START_TEST(test_tmio_msgpack_built)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    pack_mode(&pk, "write_sync", 1, 1);
    msgpack_pack_array(&pk, 19);
    msgpack_pack_str_with_body(&pk, "io_time", 7);
    for (int i = 0; i < 18; i++)
        msgpack_pack_double(&pk, 0.5);
    pack_mode(&pk, "read_async", 0, 0);
    pack_mode(&pk, "write_async", 1, 0);

    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    ck_assert_int_eq(read_buf(&set, sb.data, sb.size, "built.bin", &o), 0);
    const struct ftio_trace *t = &set.job[0];
    ck_assert_uint_eq(t->write.req.n, 4);
    ck_assert_uint_eq(t->read.req.n, 2);
    ck_assert_double_eq_tol(t->write.bytes, 600, 1e-9);
    ck_assert_double_eq_tol(t->write.req.rec[1].t_start, 10, 1e-12);
    ck_assert_double_eq_tol(t->write.req.rec[1].t_end, 12, 1e-12);
    ck_assert_double_eq_tol(t->write.req.rec[1].rate, 75, 1e-12);
    ftio_trace_set_finish(&set, &o);
    ck_assert_int_eq(t->ranks, 3);
    ftio_trace_set_free(&set);
    /* all proper prefixes fail except the 3 that end between items */
    ck_assert_uint_eq(feed_prefixes(sb.data, sb.size, "built.bin", "offset "), sb.size - 1 - 3);
    msgpack_sbuffer_destroy(&sb);

    /* A mode array with 13 elements and an unknown mode name. */
    msgpack_sbuffer_init(&sb);
    msgpack_pack_array(&pk, 13);
    msgpack_pack_str_with_body(&pk, "write_sync", 10);
    for (int i = 0; i < 12; i++)
        msgpack_pack_int(&pk, 0);
    ck_assert_int_eq(read_buf(&set, sb.data, sb.size, "short.bin", &o), -1);
    ck_assert_ptr_nonnull(strstr(err, "short.bin: offset 0: mode item has 13 elements"));
    ftio_trace_set_free(&set);
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_array(&pk, 1);
    msgpack_pack_str_with_body(&pk, "bogus", 5);
    ck_assert_int_eq(read_buf(&set, sb.data, sb.size, "bogus.bin", &o), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown TMIO mode"));
    ftio_trace_set_free(&set);
    msgpack_sbuffer_destroy(&sb);
}
END_TEST

/* ---- custom JSON variants ---------------------------------------------- */

START_TEST(test_custom_json_variants)
{
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    /* bare bandwidth object, integer timestamps, taken as the selected mode */
    const char *bare = "{\"bandwidth\": {\"b_rank_avr\": [10, 20], \"t_rank_s\": [0, 2], "
                       "\"t_rank_e\": [1, 4]}}";
    o.bare_mode = FTIO_MODE_READ;
    ck_assert_int_eq(read_str(&set, bare, "bare.json", &o), 0);
    ck_assert_uint_eq(set.job[0].read.req.n, 2);
    ck_assert_uint_eq(set.job[0].write.req.n, 0);
    ck_assert_double_eq_tol(set.job[0].read.bytes, 50, 1e-12);   /* no total_bytes: from rates */
    ftio_trace_set_free(&set);

    /* top-level b/ts/te */
    o.bare_mode = FTIO_MODE_WRITE;
    ck_assert_int_eq(read_str(&set, "{\"b\":[3,0,3],\"ts\":[1,2,3],\"te\":[5,6,7]}", "b.json", &o), 0);
    ck_assert_uint_eq(set.job[0].write.req.n, 3);
    ck_assert_double_eq(set.job[0].write.req.rec[2].t_end, 7);
    ftio_trace_set_free(&set);

    /* JSONL: arrays concatenate, total_bytes sums, number_of_ranks max,
     * async _t series count for their direction, _b and io_time ignored. */
    const char *jsonl =
        "{\"write_sync\": {\"total_bytes\": 100, \"number_of_ranks\": 2, \"bandwidth\": "
        "{\"b_rank_avr\": [50], \"t_rank_s\": [0], \"t_rank_e\": [2]}}}\n"
        "{\"write_async_t\": {\"total_bytes\": 10, \"number_of_ranks\": 5, \"bandwidth\": "
        "{\"b_rank_avr\": [5], \"t_rank_s\": [3], \"t_rank_e\": [5]}}}\n"
        "{\"write_async_b\": {\"total_bytes\": 999, \"bandwidth\": {\"b_rank_avr\": [1], "
        "\"t_rank_s\": [0], \"t_rank_e\": [1]}}}\n"
        "{\"io_time\": {\"delta_t_agg\": 1.0}}\n";
    ck_assert_int_eq(read_str(&set, jsonl, "m.jsonl", &o), 0);
    ftio_trace_set_finish(&set, &o);
    ck_assert_uint_eq(set.job[0].write.req.n, 2);
    ck_assert_double_eq_tol(set.job[0].write.bytes, 110, 1e-12);
    ck_assert_int_eq(set.job[0].ranks, 5);
    ftio_trace_set_free(&set);

    /* pre-merged overlap signal kept as is */
    const char *ov = "{\"write_sync\": {\"bandwidth\": {\"b_rank_avr\": [1, 1], \"t_rank_s\": [0, 1],"
                     " \"t_rank_e\": [2, 3], \"b_overlap_avr\": [1, 2, 1, 0],"
                     " \"t_overlap\": [0, 1, 2, 3]}}}";
    ck_assert_int_eq(read_str(&set, ov, "ov.json", &o), 0);
    ck_assert(set.job[0].write.has_overlap);
    ck_assert(!set.job[0].write.overlap_missing);
    ck_assert_uint_eq(set.job[0].write.overlap.n, 4);
    ck_assert_double_eq(set.job[0].write.overlap.b[1], 2);
    ftio_trace_set_free(&set);
}
END_TEST

START_TEST(test_custom_json_malformed)
{
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    static const struct { const char *doc, *expect; } bad[] = {
        { "{\"write_sync\": {\"bandwidth\": {\"b_rank_avr\": [1, 2], \"t_rank_s\": [0],"
          " \"t_rank_e\": [1, 2]}}}", "line 1: write_sync: arrays differ in length" },
        { "{\"write_sync\": {\"bandwidth\": {\"b_rank_avr\": [\"x\"], \"t_rank_s\": [0],"
          " \"t_rank_e\": [1]}}}", "\"b_rank_avr\"[0] is not a number" },
        { "{\"write_sync\": {\"bandwidth\": {\"b_rank_avr\": [1], \"t_rank_s\": [0]}}}",
          "must all be present" },
        { "{\"write_sync\": 3}", "\"write_sync\" is not an object" },
        { "{\"foo\": 1}", "no I/O data" },
        { "\n\n{\"b\": [1], \"ts\": [0], \"te\": [1]}\n[1, 2]\n", "line 4: expected a JSON object" },
        { "{\"b\": [1], \"ts\": [0], \"te\": [1]}\n{\"b\": [1,\n", "line 3:" },
        { "{\"write_sync\": {\"total_bytes\": \"many\"}}", "total_bytes is not a number" },
        { "{\"b\": [1], \"ts\": [2], \"te\": [1]}", "b/ts/te[0]: negative rate or end before start" },
        { "{\"b\": [-1], \"ts\": [0], \"te\": [1]}", "negative rate" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(read_str(&set, bad[i].doc, "bad.json", &o), -1);
        ck_assert_msg(strstr(err, bad[i].expect) && strncmp(err, "bad.json: line ", 15) == 0,
                      "doc %zu: got \"%s\", want \"%s\"", i, err, bad[i].expect);
        ftio_trace_set_free(&set);
    }
    /* Every prefix of a custom JSON document that stops before its closing
     * brace is an error with a line number. */
    size_t len;
    char *doc = slurp(data_path("zmq-example.json"), &len);
    size_t close = (size_t)(strrchr(doc, '}') - doc);
    ck_assert_uint_eq(feed_prefixes(doc, close + 1, "zmq.json", "line "), close);
    free(doc);
}
END_TEST

/* readers/numscan.c gives strtod()'s value: midpoints between doubles
 * (ties to even), 19-digit mantissas, and random decimals of 1-19 digits. */
START_TEST(test_numscan_matches_strtod)
{
    static const char *const hard[] = {
        "9007199254740993", "9007199254740995", "18446744073709551615", "18014398509481985",
        "0.9007199254740993e-5", "123456789012345678.9e-3", "4503599627370497.5",
        "1.00000000000000011102230246251565404236316680908203125", "2.2250738585072011e-308",
        "1e22", "1e23", "8.589973e9", "0.1", "5e-324", "1.7976931348623157e308",
    };
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
        double v, w = strtod(hard[i], NULL);
        const char *e = ftio_scan_number(hard[i], hard[i] + strlen(hard[i]), true, &v);
        ck_assert_ptr_eq(e, hard[i] + strlen(hard[i]));
        ck_assert_msg(memcmp(&v, &w, sizeof v) == 0, "%s: %.17g, strtod %.17g", hard[i], v, w);
    }
    uint64_t x = 88172645463325252ull;
    char b[64];
    for (int i = 0; i < 200000; i++) {
        ftio_xorshift64(&x);
        int digits = 1 + (int)(x % 19), point = (int)((x >> 8) % (uint64_t)digits);
        uint64_t y = x * 0x9E3779B97F4A7C15ull;
        int k = 0;
        b[k++] = (char)('1' + y % 9);
        for (int d = 1; d < digits; d++) {
            if (d == point)
                b[k++] = '.';
            y = y / 10 ? y / 10 : x;
            b[k++] = (char)('0' + y % 10);
        }
        if (((x >> 30) & 7) == 0)
            k += sprintf(b + k, "e%d", (int)((x >> 40) % 60) - 30);
        b[k] = 0;
        double v, w = strtod(b, NULL);
        FTIO_CHECK(ftio_scan_number(b, b + k, true, &v) == b + k);
        FTIO_CHECK_MSG(memcmp(&v, &w, sizeof v) == 0, "%s: %.17g, strtod %.17g", b, v, w);
    }
}
END_TEST

/* The streaming JSON parser (readers/tmio_json.c): what Jansson rejected
 * stays rejected, errors carry the byte offset, an object is all or nothing,
 * numbers are read as strtod() reads them. */
/* Arrays longer than a heap block: each array fills one field of records
 * not yet counted, and the store moves to a mapping while it does (then
 * the first arrays' values must move with it: they were lost before). */
START_TEST(test_json_long_arrays)
{
    enum { N = 200000 };
    size_t cap = 64 + 3 * N * 12;
    char *doc = malloc(cap);
    ck_assert_ptr_nonnull(doc);
    const char *name[3] = { "b_rank_avr", "t_rank_s", "t_rank_e" };
    size_t len = (size_t)snprintf(doc, cap, "{\"bandwidth\": {");
    for (int c = 0; c < 3; c++) {
        len += (size_t)snprintf(doc + len, cap - len, "%s\"%s\": [", c ? ", " : "", name[c]);
        for (int i = 0; i < N; i++)
            len += (size_t)snprintf(doc + len, cap - len, "%s%d", i ? "," : "",
                                    c == 0 ? 1 + i % 7 : c == 1 ? 2 * i : 2 * i + 1);
        len += (size_t)snprintf(doc + len, cap - len, "]");
    }
    len += (size_t)snprintf(doc + len, cap - len, "}}");
    ck_assert_uint_lt(len, cap);
    struct ftio_read_options o;
    ftio_read_options_default(&o);
    struct ftio_trace_set set = { 0 };
    ck_assert_int_eq(read_buf(&set, doc, len, "long.json", &o), 0);
    const struct ftio_requests *q = &set.job[0].write.req;
    ck_assert_uint_eq(q->n, N);
    for (size_t i = 0; i < N; i++)
        FTIO_CHECK_MSG(q->rec[i].rate == 1 + i % 7 && q->rec[i].t_start == 2.0 * i &&
                       q->rec[i].t_end == 2.0 * i + 1 && q->rec[i].proc == 0 && q->rec[i].fid == 0,
                       "request %zu: %g %g %g", i, q->rec[i].rate, q->rec[i].t_start, q->rec[i].t_end);
    ftio_trace_set_free(&set);
    free(doc);
}
END_TEST

START_TEST(test_json_streaming_strict)
{
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    static const struct { const char *doc, *expect; } bad[] = {
        { "{\"b\": [01], \"ts\": [0], \"te\": [1]}", "line 1: " },
        { "{\"b\": [1.], \"ts\": [0], \"te\": [1]}", "invalid number" },
        { "{\"b\": [1e999], \"ts\": [0], \"te\": [1]}", "number out of range (byte 7)" },
        { "{\"b\": [-], \"ts\": [0], \"te\": [1]}", "invalid number" },
        { "{\"b\": [+1], \"ts\": [0], \"te\": [1]}", "a number expected near '+'" },
        { "{\"b\": [\"1\"], \"ts\": [0], \"te\": [1]}", "\"b\"[0] is not a number" },
        { "{\"b\": [1], \"ts\": [0], \"te\": [1], }", "a string (key) expected near '}'" },
        { "{\"b\": [1], \"ts\": [0], \"te\": [1]", "end of file" },
        { "{\"x\": \"\xc3\x28\", \"b\": [1], \"ts\": [0], \"te\": [1]}", "invalid UTF-8" },
        { "{\"x\": \"\xed\xa0\x80\", \"b\": [1], \"ts\": [0], \"te\": [1]}", "invalid UTF-8" },
        { "{\"x\": \"\\q\", \"b\": [1], \"ts\": [0], \"te\": [1]}", "invalid escape" },
        { "{\"x\": \"\\udc00\", \"b\": [1], \"ts\": [0], \"te\": [1]}", "invalid Unicode" },
        { "{\"x\": \"\\u0000\", \"b\": [1], \"ts\": [0], \"te\": [1]}", "\\u0000" },
        { "{\"x\": \"a\nb\", \"b\": [1], \"ts\": [0], \"te\": [1]}", "control character" },
        { "{\"x\": tru, \"b\": [1], \"ts\": [0], \"te\": [1]}", "a value expected" },
        { "{\"b\": [1], \"b\": [2], \"ts\": [0], \"te\": [1]}", "\"b\" twice" },
        { "{\"b\": [1], \"ts\": [0], \"te\": [1], \"write_sync\": {}}", "mixes TMIO mode keys" },
        { "{\"write_sync\": {\"bandwidth\": {\"b_rank_avr\": [1], \"t_rank_s\": [0],"
          " \"t_rank_e\": [1], \"t_rank_e\": [2]}}}", "\"t_rank_e\" twice" },
        { "{\"write_sync\": {\"number_of_ranks\": -3}}", "write_sync.number_of_ranks is not a count" },
        { "{\"write_sync\": {\"bandwidth\": [1]}}", "write_sync.bandwidth is not an object" },
        { "5", "line 1: expected a JSON object (byte 0)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(read_str(&set, bad[i].doc, "bad.json", &o), -1);
        ck_assert_msg(strstr(err, bad[i].expect) && strncmp(err, "bad.json: line ", 15) == 0 &&
                      strstr(err, "(byte "), "doc %zu: got \"%s\", want \"%s\"", i, err,
                      bad[i].expect);
        ftio_trace_set_free(&set);
    }
    /* Nesting deeper than 2048 levels in an ignored value: an error, no
     * stack overflow. */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 64);
    size_t k = (size_t)sprintf(deep, "{\"x\": ");
    memset(deep + k, '[', depth);
    memset(deep + k + depth, ']', depth);
    strcpy(deep + k + 2 * depth, "}");
    ck_assert_int_eq(read_str(&set, deep, "deep.json", &o), -1);
    ck_assert_ptr_nonnull(strstr(err, "maximum parsing depth"));
    ftio_trace_set_free(&set);
    free(deep);

    /* Accepted: escapes and UTF-8 in keys and strings, ignored values of every
     * kind, numbers in every JSON spelling read as strtod() reads them. */
    const char *ok = " {\"w\\u0072ite_sync\": {\"note\": \"caf\xc3\xa9 \\ud83d\\ude00 \\n\","
                     " \"x\": [true, false, null, {\"a\": []}], \"bandwidth\": {"
                     "\"b_rank_avr\": [ 1E2 , 2.5e-1,0.1, 12345678901234567890],"
                     "\"t_rank_s\":[-0,0.000001,1e-30,3],"
                     "\"t_rank_e\":[1,2,3,4.000000000000000000001]}}}\r\n\t";
    ck_assert_int_eq(read_str(&set, ok, "ok.json", &o), 0);
    const struct ftio_requests *q = &set.job[0].write.req;
    ck_assert_uint_eq(q->n, 4);
    ck_assert(q->rec[0].rate == 100 && q->rec[1].rate == 0.25 && q->rec[2].rate == 0.1 &&
              q->rec[3].rate == strtod("12345678901234567890", NULL));
    ck_assert(q->rec[0].t_start == 0 && !signbit(q->rec[0].t_start) && q->rec[1].t_start == 1e-6 &&
              q->rec[2].t_start == 1e-30);
    ck_assert(q->rec[3].t_end == strtod("4.000000000000000000001", NULL));
    ftio_trace_set_free(&set);

    /* All or nothing per object: the second object fails half-way (its
     * write_sync is complete, its read_sync is not); lenient keeps object 1. */
    const char *two = "{\"write_sync\": {\"bandwidth\": {\"b_rank_avr\": [1], \"t_rank_s\": [0],"
                      " \"t_rank_e\": [1]}}}\n"
                      "{\"write_sync\": {\"total_bytes\": 7, \"bandwidth\": {\"b_rank_avr\": [1],"
                      " \"t_rank_s\": [2], \"t_rank_e\": [3]}}, \"read_sync\": {\"bandwidth\": "
                      "{\"b_rank_avr\": [1]}}}\n";
    o.lenient = true;
    ck_assert_int_eq(read_str(&set, two, "two.jsonl", &o), 0);
    ck_assert_ptr_nonnull(strstr(warn, "line 2: read_sync: rate, start and end arrays"));
    ck_assert_uint_eq(set.job[0].write.req.n, 1);
    ck_assert_double_eq(set.job[0].write.bytes, 1);
    ck_assert_uint_eq(set.job[0].records, 1);
    ftio_trace_set_free(&set);
    o.lenient = false;

    /* The reference trace, mutated: never a crash, always "line L: ... (byte O)". */
    size_t len;
    char *doc = slurp(data_path("tmio-8ranks.jsonl"), &len);
    char *m = malloc(len);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int round = 0; round < 200; round++) {
        memcpy(m, doc, len);
        for (int j = 0; j < 2; j++) {
            ftio_xorshift64(&x);
            m[x % len] = (char)(x >> 32);
        }
        if (read_buf(&set, m, len, "m.jsonl", &o) != 0)
            ck_assert_msg(strncmp(err, "m.jsonl: line ", 14) == 0 && strstr(err, "(byte "),
                          "mutation %d: %s", round, err);
        ftio_trace_set_free(&set);
    }
    free(m);
    free(doc);
}
END_TEST

/* ---- spool files ------------------------------------------------------- */

static struct ftio_record rec(uint64_t ts, uint64_t te, int64_t bytes, int op, int layer, int flags)
{
    struct ftio_record r;
    memset(&r, 0, sizeof r);
    r.t_start = ts;
    r.t_end = te;
    r.bytes = bytes;
    r.op = (uint8_t)op;
    r.layer = (uint8_t)layer;
    r.flags = (uint16_t)flags;
    r.offset = -1;
    return r;
}

#define SEC 1000000000ull
#define EPOCH 1763741234000000000ll   /* wall anchor of rank 0 */

/* Two ranks of job "j1" with different monotonic clocks, one batch of job
 * "j2".  Rank 0's monotonic clock reads 100 s at EPOCH, rank 1's 5000 s at
 * EPOCH + 0.5 s; both write at wall EPOCH + 1 s. */
static void make_spool(struct ftio_wbuf *w)
{
    memset(w, 0, sizeof *w);
    struct ftio_batch_header h = { .version = 1, .job = "j1", .host = "n0", .pid = 10, .rank = 0,
                                   .nranks = 2, .seq = 0, .clock_mono = 100 * (int64_t)SEC,
                                   .clock_real = EPOCH, .lost = 3 };
    struct ftio_record r0[] = {
        rec(101 * SEC, 102 * SEC, 1000, FTIO_OP_WRITE, FTIO_LAYER_MPIIO, FTIO_FLAG_COLLECTIVE),
        rec(101 * SEC, 101 * SEC + SEC / 2, 600, FTIO_OP_WRITE, FTIO_LAYER_POSIX, FTIO_FLAG_NESTED),
        rec(101 * SEC + SEC / 2, 102 * SEC, 400, FTIO_OP_WRITE, FTIO_LAYER_POSIX, FTIO_FLAG_NESTED),
        rec(100 * SEC, 100 * SEC, 0, FTIO_OP_OPEN, FTIO_LAYER_POSIX, 0),
        rec(103 * SEC, 104 * SEC, 50, FTIO_OP_READ, FTIO_LAYER_STDIO, 0),
    };
    ck_assert_int_eq(ftio_wire_encode(w, &h, r0, 5), 0);
    h.host = "n1"; h.pid = 11; h.rank = 1; h.clock_mono = 5000 * (int64_t)SEC;
    h.clock_real = EPOCH + (int64_t)SEC / 2; h.lost = 0; h.final = true;
    struct ftio_record r1[] = {
        rec(5000 * SEC + SEC / 2, 5001 * SEC + SEC / 2, 2000, FTIO_OP_WRITE, FTIO_LAYER_MPIIO, 0),
    };
    ck_assert_int_eq(ftio_wire_encode(w, &h, r1, 1), 0);
    h.job = "j2"; h.rank = -1; h.nranks = 0;
    ck_assert_int_eq(ftio_wire_encode(w, &h, r1, 1), 0);
}

START_TEST(test_spool_merge_nested_and_times)
{
    struct ftio_wbuf w;
    make_spool(&w);
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    ck_assert_int_eq(read_buf(&set, w.data, w.len, "ftio-j1.msgpack", &o), 0);
    ftio_trace_set_finish(&set, &o);
    ck_assert_uint_eq(set.n, 2);
    const struct ftio_trace *t = &set.job[0];
    ck_assert_str_eq(t->job, "j1");
    ck_assert_str_eq(set.job[1].job, "j2");
    /* nested POSIX dropped: 1000 + 2000 written, counted once */
    ck_assert_uint_eq(t->write.req.n, 2);
    ck_assert_double_eq(t->write.bytes, 3000);
    ck_assert_uint_eq(t->dropped_nested, 2);
    ck_assert_uint_eq(t->read.req.n, 1);
    ck_assert_double_eq(t->read.bytes, 50);
    ck_assert_uint_eq(t->records, 3);
    ck_assert_uint_eq(t->lost, 3);
    ck_assert_int_eq(t->ranks, 2);
    /* both writes start at wall EPOCH + 1 s = relative 0 */
    ck_assert_double_eq_tol(t->write.req.rec[0].t_start, 0, 1e-9);
    ck_assert_double_eq_tol(t->write.req.rec[1].t_start, 0, 1e-9);
    ck_assert_double_eq_tol(t->write.req.rec[1].t_end, 1, 1e-9);
    ck_assert_double_eq_tol(t->read.req.rec[0].t_start, 2, 1e-9);
    ck_assert_double_eq_tol(t->write.req.rec[1].rate, 2000, 1e-6);
    ck_assert_double_eq_tol(t->origin, (double)EPOCH / 1e9 + 1, 1e-6);
    ck_assert_int_eq(set.job[1].ranks, 1);   /* non-MPI: one process seen */
    ftio_trace_set_free(&set);

    /* keep_nested: count at POSIX, drop MPI-IO */
    o.keep_nested = true;
    ck_assert_int_eq(read_buf(&set, w.data, w.len, "s", &o), 0);
    ck_assert_uint_eq(set.job[0].write.req.n, 2);
    ck_assert_double_eq(set.job[0].write.bytes, 1000);
    ftio_trace_set_free(&set);

    /* absolute time: epoch seconds */
    o.keep_nested = false;
    o.absolute_time = true;
    ck_assert_int_eq(read_buf(&set, w.data, w.len, "s", &o), 0);
    ftio_trace_set_finish(&set, &o);
    ck_assert_double_eq_tol(set.job[0].write.req.rec[0].t_start, (double)EPOCH / 1e9 + 1, 1e-6);
    ftio_trace_set_free(&set);

    /* two files of the same job merge into one trace */
    o.absolute_time = false;
    ck_assert_int_eq(read_buf(&set, w.data, w.len, "a", &o), 0);
    ck_assert_int_eq(read_buf(&set, w.data, w.len, "b", &o), 0);
    ck_assert_uint_eq(set.n, 2);
    ck_assert_uint_eq(set.job[0].write.req.n, 4);
    ftio_trace_set_free(&set);
    ftio_wbuf_free(&w);
}
END_TEST

START_TEST(test_spool_truncated_and_corrupt)
{
    struct ftio_wbuf w;
    make_spool(&w);
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    /* Every proper prefix that does not end on a batch boundary fails. */
    size_t failed = feed_prefixes(w.data, w.len, "sp.msgpack", "offset ");
    ck_assert_uint_eq(failed, w.len - 1 - 2);   /* two inner batch boundaries parse */

    /* Cut in the second batch: error at its offset; lenient keeps batch 1. */
    struct ftio_batch b;
    memset(&b, 0, sizeof b);
    size_t used;
    ck_assert_int_eq(ftio_wire_decode(w.data, w.len, &b, &used, err, sizeof err), 0);
    ftio_batch_free(&b);
    ck_assert_int_eq(read_buf(&set, w.data, used + 10, "sp.msgpack", &o), -1);
    char want[64];
    snprintf(want, sizeof want, "sp.msgpack: offset %zu: truncated", used);
    ck_assert_msg(strstr(err, want) != NULL, "got %s, want %s", err, want);
    ftio_trace_set_free(&set);
    o.lenient = true;
    ck_assert_int_eq(read_buf(&set, w.data, used + 10, "sp.msgpack", &o), 0);
    ck_assert_ptr_nonnull(strstr(warn, "truncated"));
    ck_assert_uint_eq(set.job[0].records, 2);   /* batch 1: one write, one read */
    ftio_trace_set_free(&set);
    o.lenient = false;

    /* Flip every byte in turn: decode must reject or accept, never crash. */
    char *copy = malloc(w.len);
    for (size_t i = 0; i < w.len; i++) {
        memcpy(copy, w.data, w.len);
        copy[i] ^= (char)0x5a;
        if (read_buf(&set, copy, w.len, "fuzz", &o) != 0)
            ck_assert_msg(strncmp(err, "fuzz: offset ", 13) == 0, "byte %zu: %s", i, err);
        ftio_trace_set_free(&set);
    }
    free(copy);
    ftio_wbuf_free(&w);
}
END_TEST

/* ---- Darshan DXT ------------------------------------------------------- */

START_TEST(test_dxt)
{
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    /* default: MPI-IO present, so 2 ranks x 10 MPI-IO writes of 1 MiB */
    read_sample(&set, "sample-dxt.txt", &o, 20, 2);
    ftio_trace_set_free(&set);
    o.dxt = FTIO_DXT_POSIX;
    ck_assert_int_eq(ftio_trace_read_file(&set, data_path("sample-dxt.txt"), &o, err, sizeof err,
                                          warn, sizeof warn), 0);
    ck_assert_uint_eq(set.job[0].write.req.n, 40);
    ck_assert_double_eq(set.job[0].write.bytes, 20 * 1048576.0);
    ftio_trace_set_free(&set);

    /* old MPI-IO lines without offset, Lustre OST columns, reads */
    o.dxt = FTIO_DXT_AUTO;
    const char *txt = "# DXT, file_id: 1, file_name: /x\n"
                      " X_MPIIO 3 read 0 4096 1.5 2.5\n"
                      " X_POSIX 3 write 0 0 100 0.1 0.2 [ 7] [ 9]\n";
    ck_assert_int_eq(read_str(&set, txt, "d.txt", &o), 0);
    ck_assert_uint_eq(set.job[0].read.req.n, 1);
    ck_assert_uint_eq(set.job[0].write.req.n, 0);   /* POSIX layer not selected */
    ck_assert_double_eq_tol(set.job[0].read.req.rec[0].rate, 4096, 1e-9);
    ftio_trace_set_free(&set);

    static const struct { const char *doc, *expect; } bad[] = {
        { "# DXT, x\n X_POSIX 0 write 0 0 100 0.3 0.2\n", "d.txt: line 2: negative length or end" },
        { "# DXT, x\n X_POSIX 0 fsync 0 0 100 0.1 0.2\n", "d.txt: line 2: operation is not" },
        { "# DXT, x\n X_POSIX 0 write 0 0 1e\n", "d.txt: line 2: non-numeric" },
        { "# DXT, x\n X_POSIX 0 write 0 0 100\n", "d.txt: line 2: too few fields" },
        { "# DXT, x\nhello\n", "d.txt: line 2: not a DXT record" },
        { "# DXT, x\n", "d.txt: line 1: no X_POSIX" },
        { "# DXT, x\n X_POSIX 0 write 0 0 100 nan 0.2\n", "d.txt: line 2: non-numeric" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(read_str(&set, bad[i].doc, "d.txt", &o), -1);
        ck_assert_msg(strstr(err, bad[i].expect) != NULL, "doc %zu: got \"%s\"", i, err);
        ftio_trace_set_free(&set);
    }
    /* lenient keeps lines before the damage */
    o.lenient = true;
    ck_assert_int_eq(read_str(&set, "# DXT\n X_POSIX 0 write 0 0 8 0 1\n X_POSIX 0 wr", "d.txt", &o), 0);
    ck_assert_uint_eq(set.job[0].write.req.n, 1);
    ck_assert_ptr_nonnull(strstr(warn, "line 3"));
    ftio_trace_set_free(&set);
}
END_TEST

/* ---- CSV --------------------------------------------------------------- */

START_TEST(test_csv)
{
    struct ftio_read_options o = defaults();
    struct ftio_trace_set set = { 0 };
    read_sample(&set, "sample.csv", &o, 48, 4);
    ck_assert_uint_eq(set.job[0].read.req.n, 24);
    ftio_trace_set_free(&set);

    /* any column order, extra columns, zero-length request keeps its bytes */
    const char *csv = "bytes, t_end ,host,op,t_start,rank\n100,2,x,write,1,0\n8,5,y,read,5,1\n";
    ck_assert_int_eq(read_str(&set, csv, "c.csv", &o), 0);
    ck_assert_uint_eq(set.job[0].write.req.n, 1);
    ck_assert_double_eq_tol(set.job[0].write.req.rec[0].rate, 100, 1e-9);
    ck_assert_uint_eq(set.job[0].read.req.n, 1);
    ck_assert_double_eq(set.job[0].read.bytes, 8);
    ck_assert(set.job[0].read.req.rec[0].rate > 0);
    ftio_trace_set_free(&set);

    /* numbers as strtod() reads them, including what the fast path leaves
     * to it (hex, '+', ".5", "5.", many digits) */
    csv = "rank,op,t_start,t_end,bytes\n0,write,+.5,0x1p1,5.\n"
          "0,write,2,3.00000000000000000000000001,12345678901234567890123\n";
    ck_assert_int_eq(read_str(&set, csv, "n.csv", &o), 0);
    ck_assert(set.job[0].write.req.rec[0].t_start == 0.5 && set.job[0].write.req.rec[0].t_end == 2);
    ck_assert(set.job[0].write.req.rec[1].t_end == strtod("3.00000000000000000000000001", NULL));
    ck_assert(set.job[0].write.bytes == 5 + strtod("12345678901234567890123", NULL));
    ftio_trace_set_free(&set);
    /* a NUL byte inside a field is not part of a number */
    static const char nul[] = "rank,op,t_start,t_end,bytes\n0,write,0,1\0,5\n";
    ck_assert_int_eq(read_buf(&set, nul, sizeof nul - 1, "z.csv", &o), -1);
    ck_assert_ptr_nonnull(strstr(err, "z.csv: line 2: t_start, t_end and bytes must be numbers"));
    ftio_trace_set_free(&set);

    static const struct { const char *doc, *expect; } bad[] = {
        { "rank,op,t_start,bytes\n", "c.csv: line 1: header lacks column \"t_end\"" },
        { "rank,op,t_start,t_end,bytes\n0,write,0,1,5\n0,sync,0,1,5\n", "c.csv: line 3: op \"sync\"" },
        { "rank,op,t_start,t_end,bytes\n0,write,0,1\n", "c.csv: line 2: 4 fields" },
        { "rank,op,t_start,t_end,bytes\n0,write,0,x,5\n", "c.csv: line 2: t_start, t_end and bytes" },
        { "rank,op,t_start,t_end,bytes\n0,write,0,inf,5\n", "c.csv: line 2: t_start" },
        { "rank,op,t_start,t_end,bytes\n-1,write,0,1,5\n", "c.csv: line 2: bad rank" },
        { "rank,op,t_start,t_end,bytes\n0,write,3,1,5\n", "c.csv: line 2: negative bytes or end" },
        { "rank,op,t_start,t_end,bytes\n", "c.csv: line 1: no data rows" },
        { "rank,op,t_start,t_end,bytes\n0,write,0,1,5\n0,write,0, 1x ,5\n",
          "c.csv: line 3: t_start, t_end and bytes must be numbers, not \"1x\" (byte 53)" },
        { "rank,op,t_start,t_end,bytes\n0,write,0,1,5\n0,write,0,1e400,5\n", "line 3: t_start" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(read_str(&set, bad[i].doc, "c.csv", &o), -1);
        ck_assert_msg(strstr(err, bad[i].expect) != NULL, "doc %zu: got \"%s\"", i, err);
        ftio_trace_set_free(&set);
    }
}
END_TEST

/* ---- robustness: every prefix and byte mutations of every text format ---- */

/* Text prefixes may be complete documents (a cut at a line end), so only
 * "no crash, and an error names the file" is asserted; ASan watches reads. */
START_TEST(test_text_prefixes_and_mutations_never_crash)
{
    static const char *const files[] = { "sample.csv", "sample-dxt.txt", "zmq-example.json",
                                         "synthetic-14.json" };
    struct ftio_read_options o = defaults();
    uint64_t x = 88172645463325252ull;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        char *doc = slurp(data_path(files[f]), &len);
        for (size_t n = 1; n < len; n += 7) {
            struct ftio_trace_set set = { 0 };
            if (read_buf(&set, doc, n, "p", &o) != 0)
                ck_assert_msg(strncmp(err, "p: ", 3) == 0, "%s prefix %zu: %s", files[f], n, err);
            ftio_trace_set_free(&set);
        }
        char *m = malloc(len);
        for (int round = 0; round < 300; round++) {
            memcpy(m, doc, len);
            for (int k = 0; k < 3; k++) {
                ftio_xorshift64(&x);
                m[x % len] = (char)(x >> 32);
            }
            struct ftio_trace_set set = { 0 };
            if (read_buf(&set, m, len, "m", &o) != 0)
                ck_assert_msg(strncmp(err, "m: ", 3) == 0, "%s mutation: %s", files[f], err);
            ftio_trace_set_free(&set);
        }
        free(m);
        free(doc);
    }
}
END_TEST

/* ---- report JSON ------------------------------------------------------- */

START_TEST(test_report_json)
{
    struct ftio_result r;
    memset(&r, 0, sizeof r);
    r.t0 = 1; r.t1 = 9; r.fs = 10; r.samples = 80;
    r.abstraction_error = NAN;
    r.cls = FTIO_CLASS_NONE;
    r.ncand = 3;
    json_t *j = ftio_report_json(&r, "read");
    ck_assert_ptr_nonnull(j);
    ck_assert(json_is_null(json_object_get(j, "period")));
    ck_assert(json_is_null(json_object_get(j, "frequency")));
    ck_assert_str_eq(json_string_value(json_object_get(j, "class")), "none");
    ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "read");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "v")), FTIO_PREDICTION_VERSION);
    ck_assert(json_is_null(json_object_get(json_object_get(j, "metrics"), "abstraction_error")));
    ck_assert(json_is_null(json_object_get(json_object_get(j, "next"), "start")));
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "window"), "samples")), 80);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "candidates")), 3);
    struct ftio_report_totals tot = { -1, NAN, 5, 0 };
    ftio_report_json_totals(j, &tot);
    ck_assert(json_is_null(json_object_get(j, "ranks")));
    ck_assert(json_is_null(json_object_get(j, "bytes")));
    char *s = json_dumps(j, JSON_COMPACT);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_null(strstr(s, "nan"));
    free(s);
    json_decref(j);

    r.has_period = true;
    r.cls = FTIO_CLASS_PERIODIC;
    r.ncand = 1;
    r.cand[0] = (struct ftio_candidate){ 10, 0.125, 8, 1.0, 76.355, 0.5 };
    r.dominant = r.cand[0];
    r.metrics.valid = true;
    r.metrics.phase_bytes = 36;
    r.next = (struct ftio_next_phase){ true, 10, 11, 36 };
    j = ftio_report_json(&r, "write");
    ck_assert_double_eq(json_real_value(json_object_get(j, "frequency")), 0.125);
    ck_assert_double_eq(json_real_value(json_object_get(j, "period")), 8);
    ck_assert_double_eq(json_real_value(json_object_get(json_object_get(j, "next"), "end")), 11);
    ck_assert(json_is_null(json_object_get(json_object_get(j, "metrics"), "sigma_vol")));
    json_t *c0 = json_array_get(json_object_get(j, "candidates"), 0);
    ck_assert_double_eq(json_real_value(json_object_get(c0, "amplitude")), 76.355);
    json_decref(j);
}
END_TEST

/* The file ids of a direction: each request's own, 0 for a request not
 * tagged (before a tag, between, after), whatever came before it. */
static void tag_run(const uint32_t *id, size_t n)
{
    struct ftio_trace_dir d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(ftio_requests_push_rate(&d.req, (double)i, i + 0.5, 1), 0);
        if (id[i] != UINT32_MAX)                 /* UINT32_MAX: this one untagged */
            ck_assert_int_eq(ftio_trace_dir_tag(&d, id[i]), 0);
    }
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(ftio_trace_dir_fid(&d, i), id[i] == UINT32_MAX ? 0 : id[i]);
    ftio_requests_free(&d.req);
}

START_TEST(test_file_id_column)
{
    const uint32_t u = UINT32_MAX;
    tag_run((uint32_t[]){ 5, 5, 5 }, 3);
    tag_run((uint32_t[]){ 5, 5, 7, 5 }, 4);
    tag_run((uint32_t[]){ u, u, 0, 0 }, 4);
    tag_run((uint32_t[]){ u, 9, 9 }, 3);
    tag_run((uint32_t[]){ 4, u, 4 }, 3);
    tag_run((uint32_t[]){ 0, u, 0, 3 }, 4);
    tag_run((uint32_t[]){ 2, 2, u }, 3);     /* the last one untagged: 0 */
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("readers", "core", &tc,
                          test_detect, test_tmio_reference_jsonl_and_msgpack_agree,
                          test_tmio_truncated_and_corrupt, test_tmio_msgpack_built,
                          test_custom_json_variants, test_custom_json_malformed,
                          test_json_streaming_strict, test_json_long_arrays,
                          test_numscan_matches_strtod,
                          test_spool_merge_nested_and_times, test_spool_truncated_and_corrupt,
                          test_dxt, test_csv, test_text_prefixes_and_mutations_never_crash,
                          test_report_json, test_file_id_column);
    tcase_set_timeout(tc, 120);
    return s;
}
