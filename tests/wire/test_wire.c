/* SPDX-License-Identifier: BSD-3-Clause */
/* test_wire.c -- Check tests of the batch codec (common/wire.h), the path hash
 * (common/hash.h) and the op/layer names.
 *
 * Valid batches come from ftio_wire_encode(); malformed ones are built with
 * msgpack-c's packer (build_custom: the standard batch with one key omitted,
 * replaced, duplicated or a column shortened) or by mutating valid bytes.
 * Every decode reads from a heap copy of exactly `len` bytes so that
 * AddressSanitizer catches any read past the end.
 */
#include <check.h>
#include "../check_main.h"
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>
#include "grow.h"
#include "hash.h"
#include "timeutil.h"
#include "wire.h"

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)                 /* xorshift64*: reproducible */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* Records with varied magnitudes: small, > 2^32 and int64 extremes. */
static struct ftio_record *make_records(size_t n)
{
    struct ftio_record *rec = calloc(n ? n : 1, sizeof *rec);
    ck_assert_ptr_nonnull(rec);
    for (size_t i = 0; i < n; i++) {
        uint64_t t = (i % 7 == 0) ? (uint64_t)i : 5000000000ull + i * 1000003ull;
        rec[i].t_start = t;
        rec[i].t_end = t + (rnd() % 3 == 0 ? 0 : rnd() % 100000000000ull);
        rec[i].op = (uint8_t)(rnd() % FTIO_OP_COUNT);
        rec[i].layer = (uint8_t)(rnd() % FTIO_LAYER_COUNT);
        rec[i].bytes = (int64_t)(rnd() % (1ull << (rnd() % 63)));
        if (!ftio_op_is_data(rec[i].op) && i % 5 == 0)
            rec[i].bytes = -1;
        rec[i].offset = (i % 11 == 0) ? -1 : (int64_t)(rnd() >> 1);
        rec[i].file_id = (uint32_t)rnd();
        rec[i].flags = (uint16_t)rnd();
    }
    if (n > 2) {
        rec[0].t_start = 0; rec[0].t_end = UINT64_MAX;
        rec[1].t_start = UINT64_MAX; rec[1].t_end = UINT64_MAX;
        rec[1].bytes = INT64_MAX; rec[1].offset = INT64_MIN; rec[1].op = FTIO_OP_WRITE;
        rec[2].offset = INT64_MAX; rec[2].file_id = UINT32_MAX; rec[2].flags = UINT16_MAX;
        rec[2].bytes = INT64_MIN; rec[2].op = FTIO_OP_META;
    }
    return rec;
}

static const struct ftio_file_entry std_files[] = {
    { 0x12345678u, "/scratch/out.dat", NULL },
    { 0xffffffffu, "/home/user/a file with spaces/é.txt", NULL },
    { 1u, "x", NULL },
};

static struct ftio_batch_header std_header(void)
{
    struct ftio_batch_header h = {
        .version = 1, .job = "job-4711", .host = "node017", .pid = 123456, .born = 5123456789012ll,
        .rank = 3, .nranks = 384, .seq = 42, .clock_mono = 987654321012345ll,
        .clock_real = 1763741234520000000ll, .skew_ns = -1234, .lost = 7,
        .mark = "checkpoint 3", .final = true, .mpi = FTIO_MPI_FINALIZED, .nfiles = 3,
        .files = std_files,
    };
    return h;
}

/* Decodes from an exact-size heap copy (so ASan sees overreads). */
static int decode_copy(const void *buf, size_t len, struct ftio_batch *b, size_t *used,
                       char *err, size_t errlen)
{
    void *copy = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, buf, len);
    int rc = ftio_wire_decode(copy, len, b, used, err, errlen);
    free(copy);                 /* the batch must not point into the input */
    return rc;
}

static void assert_header_eq(const struct ftio_batch_header *a, const struct ftio_batch_header *e)
{
    ck_assert_int_eq(a->version, 1);
    ck_assert_str_eq(a->job, e->job);
    ck_assert_str_eq(a->host, e->host ? e->host : "");
    ck_assert_int_eq(a->pid, e->pid);
    ck_assert_int_eq(a->born, e->born);
    ck_assert_int_eq(a->rank, e->rank);
    ck_assert_int_eq(a->nranks, e->nranks);
    ck_assert_uint_eq(a->seq, e->seq);
    ck_assert_int_eq(a->clock_mono, e->clock_mono);
    ck_assert_int_eq(a->clock_real, e->clock_real);
    ck_assert_int_eq(a->skew_ns, e->skew_ns);
    ck_assert_uint_eq(a->lost, e->lost);
    if (e->mark)
        ck_assert_str_eq(a->mark, e->mark);
    else
        ck_assert_ptr_null(a->mark);
    ck_assert_int_eq(a->final, e->final);
    ck_assert_int_eq(a->mpi, e->mpi);
    ck_assert_uint_eq(a->nfiles, e->nfiles);
    for (size_t i = 0; i < e->nfiles; i++) {
        ck_assert_uint_eq(a->files[i].id, e->files[i].id);
        ck_assert_str_eq(a->files[i].path, e->files[i].path);
    }
}

/* Per-element checks use plain comparisons and fail once: every ck_assert
 * is a message to the Check parent, too slow for 10^5 records. */
static void assert_records_eq(const struct ftio_record *a, const struct ftio_record *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct ftio_record *x = &a[i], *y = &e[i];
        if (x->t_start != y->t_start || x->t_end != y->t_end || x->bytes != y->bytes ||
            x->offset != y->offset || x->file_id != y->file_id || x->op != y->op ||
            x->layer != y->layer || x->flags != y->flags || x->tid != 0 || x->reserved != 0)
            ck_abort_msg("record %zu differs: ts %" PRIu64 "/%" PRIu64 " te %" PRIu64 "/%" PRIu64
                         " bytes %" PRId64 "/%" PRId64 " off %" PRId64 "/%" PRId64
                         " fid %u/%u op %u/%u layer %u/%u flags %u/%u tid %u",
                         i, x->t_start, y->t_start, x->t_end, y->t_end, x->bytes, y->bytes,
                         x->offset, y->offset, x->file_id, y->file_id, x->op, y->op,
                         x->layer, y->layer, x->flags, y->flags, x->tid);
    }
}

/* What any successfully decoded batch must satisfy, whatever the input. */
static void assert_consistent(const struct ftio_batch *b, size_t used, size_t len)
{
    ck_assert_uint_le(used, len);
    ck_assert_uint_gt(used, 0);
    ck_assert_int_eq(b->h.version, FTIO_WIRE_VERSION);
    ck_assert_ptr_nonnull(b->h.job);
    ck_assert_ptr_nonnull(b->h.host);
    ck_assert_uint_gt(strlen(b->h.job), 0);
    ck_assert_uint_le(strlen(b->h.job), FTIO_WIRE_MAX_STR);
    ck_assert_uint_le(strlen(b->h.host), FTIO_WIRE_MAX_STR);
    if (b->h.mark)
        ck_assert_uint_le(strlen(b->h.mark), FTIO_WIRE_MAX_STR);
    ck_assert_int_ge(b->h.rank, -1);
    ck_assert_int_ge(b->h.nranks, 0);
    if (b->h.nranks > 0)
        ck_assert_int_lt(b->h.rank, b->h.nranks);
    ck_assert_uint_le(b->h.nfiles, FTIO_WIRE_MAX_FILES);
    for (size_t i = 0; i < b->h.nfiles; i++) {
        ck_assert_ptr_nonnull(b->h.files[i].path);
        size_t l = strlen(b->h.files[i].path);
        ck_assert(l > 0 && l <= FTIO_WIRE_MAX_STR);
    }
    ck_assert_uint_le(b->n, FTIO_WIRE_MAX_RECORDS);
    ck_assert_uint_le(b->n, used);              /* >= 1 byte per value */
    for (size_t i = 0; i < b->n; i++) {
        const struct ftio_record *r = &b->rec[i];
        if (r->t_end < r->t_start || r->op >= FTIO_OP_COUNT || r->layer >= FTIO_LAYER_COUNT ||
            (ftio_op_is_data(r->op) && r->bytes < 0) || r->tid != 0 || r->reserved != 0)
            ck_abort_msg("decoded record %zu is inconsistent", i);
    }
}

/* Re-encoding a decoded batch and decoding it again gives the same batch. */
static void assert_reencodes(const struct ftio_batch *b)
{
    struct ftio_wbuf w = { 0 };
    ck_assert_int_eq(ftio_wire_encode(&w, &b->h, b->rec, b->n), 0);
    struct ftio_batch b2 = { 0 };
    size_t used;
    char err[256];
    ck_assert_msg(decode_copy(w.data, w.len, &b2, &used, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(used, w.len);
    assert_header_eq(&b2.h, &b->h);
    ck_assert_uint_eq(b2.n, b->n);
    assert_records_eq(b2.rec, b->rec, b->n);
    ftio_batch_free(&b2);
    ftio_wbuf_free(&w);
}

/* ---- custom (malformed) batches ----------------------------------------- */

static const char *const all_keys[] = {
    "v", "job", "host", "pid", "rank", "nranks", "seq", "clock", "lost", "files",
    "mark", "final", "skew_ns", "mpi", "born", "ts", "te", "bytes", "off", "op", "layer", "fid",
    "flags",
};
#define NKEYS (sizeof all_keys / sizeof all_keys[0])

struct custom {
    const char *omit;                       /* key left out */
    const char *replace;                    /* key whose value value_fn packs */
    void (*value_fn)(msgpack_packer *pk);
    const char *dup;                        /* key written twice */
    const char *short_col;                  /* column written with n - 1 values */
    int unknown_keys;                       /* add a few unknown keys */
    size_t n;
};

static int is_column(const char *k)
{
    static const char *const cols[] = { "ts", "te", "bytes", "off", "op", "layer", "fid", "flags" };
    for (size_t i = 0; i < 8; i++)
        if (!strcmp(k, cols[i]))
            return 1;
    return 0;
}

static void pack_key(msgpack_packer *pk, const char *k)
{
    msgpack_pack_str_with_body(pk, k, strlen(k));
}

/* The standard value of key k (records: rec[i] = simple increasing values). */
static void pack_std_value(msgpack_packer *pk, const char *k, size_t n)
{
    if (!strcmp(k, "v")) msgpack_pack_int(pk, 1);
    else if (!strcmp(k, "job")) pack_key(pk, "j1");
    else if (!strcmp(k, "host")) pack_key(pk, "h1");
    else if (!strcmp(k, "pid")) msgpack_pack_int(pk, 99);
    else if (!strcmp(k, "rank")) msgpack_pack_int(pk, 1);
    else if (!strcmp(k, "nranks")) msgpack_pack_int(pk, 4);
    else if (!strcmp(k, "seq")) msgpack_pack_int(pk, 5);
    else if (!strcmp(k, "clock")) {
        msgpack_pack_array(pk, 2); msgpack_pack_int64(pk, 100); msgpack_pack_int64(pk, 200);
    } else if (!strcmp(k, "lost")) msgpack_pack_int(pk, 0);
    else if (!strcmp(k, "files")) {
        msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 2);
        msgpack_pack_uint32(pk, 77); pack_key(pk, "/f");
    } else if (!strcmp(k, "mark")) pack_key(pk, "m");
    else if (!strcmp(k, "final")) msgpack_pack_false(pk);
    else if (!strcmp(k, "skew_ns")) msgpack_pack_int(pk, -3);
    else if (!strcmp(k, "mpi")) msgpack_pack_int(pk, 1);
    else if (!strcmp(k, "born")) msgpack_pack_int64(pk, 123456789012ll);
    else {
        msgpack_pack_array(pk, n);
        for (size_t i = 0; i < n; i++) {
            if (!strcmp(k, "ts")) msgpack_pack_uint64(pk, 1000 * i);
            else if (!strcmp(k, "te")) msgpack_pack_uint64(pk, 1000 * i + 500);
            else if (!strcmp(k, "bytes")) msgpack_pack_int64(pk, 4096);
            else if (!strcmp(k, "off")) msgpack_pack_int64(pk, 4096 * (int64_t)i);
            else if (!strcmp(k, "op")) msgpack_pack_int(pk, FTIO_OP_WRITE);
            else if (!strcmp(k, "layer")) msgpack_pack_int(pk, FTIO_LAYER_MPIIO);
            else if (!strcmp(k, "fid")) msgpack_pack_uint32(pk, 77);
            else msgpack_pack_int(pk, FTIO_FLAG_COLLECTIVE);
        }
    }
}

static void build_custom(msgpack_sbuffer *sb, const struct custom *c)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    size_t nkeys = NKEYS - (c->omit != NULL) + (c->dup != NULL) + (c->unknown_keys ? 3 : 0);
    msgpack_pack_map(&pk, nkeys);
    if (c->unknown_keys) {
        /* An unknown key with a deeply nested value, one with an ext, and a
         * non-string key: all must be skipped. */
        pack_key(&pk, "future_key");
        msgpack_pack_map(&pk, 2);
        pack_key(&pk, "a");
        msgpack_pack_array(&pk, 3);
        msgpack_pack_double(&pk, 1.5); msgpack_pack_nil(&pk);
        msgpack_pack_bin_with_body(&pk, "\x00\x01", 2);
        msgpack_pack_int(&pk, 7);
        msgpack_pack_map(&pk, 1); pack_key(&pk, "x"); msgpack_pack_array(&pk, 0);
        pack_key(&pk, "ext");
        msgpack_pack_ext_with_body(&pk, "abcd", 4, 5);
        msgpack_pack_int(&pk, 12);                      /* key 12 */
        pack_key(&pk, "twelve");
    }
    for (size_t i = 0; i < NKEYS; i++) {
        const char *k = all_keys[i];
        if (c->omit && !strcmp(k, c->omit))
            continue;
        for (int rep = 0; rep < 1 + (c->dup && !strcmp(k, c->dup)); rep++) {
            pack_key(&pk, k);
            if (c->replace && !strcmp(k, c->replace))
                c->value_fn(&pk);
            else if (c->short_col && !strcmp(k, c->short_col))
                pack_std_value(&pk, k, c->n - 1);
            else
                pack_std_value(&pk, k, c->n);
        }
    }
}

/* Decodes a custom batch; returns the decoder's result. */
static int decode_custom(const struct custom *c, char *err, size_t errlen, struct ftio_batch *b)
{
    msgpack_sbuffer sb;
    build_custom(&sb, c);
    size_t used;
    int rc = decode_copy(sb.data, sb.size, b, &used, err, errlen);
    if (rc == 0) {
        ck_assert_uint_eq(used, sb.size);
        assert_consistent(b, used, sb.size);
    }
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

static int custom_rc(const struct custom *c, char *err, size_t errlen)
{
    struct ftio_batch b = { 0 };
    int rc = decode_custom(c, err, errlen, &b);
    if (rc != 0) {
        ck_assert_uint_eq(b.n, 0);                /* no partial data on failure */
        ck_assert_ptr_null(b.h.job);
    }
    ftio_batch_free(&b);
    return rc;
}

/* Wrong-type values. */
static void v_str(msgpack_packer *pk)   { pack_key(pk, "1"); }
static void v_nil(msgpack_packer *pk)   { msgpack_pack_nil(pk); }
static void v_true(msgpack_packer *pk)  { msgpack_pack_true(pk); }
static void v_int(msgpack_packer *pk)   { msgpack_pack_int(pk, 1); }
static void v_map(msgpack_packer *pk)   { msgpack_pack_map(pk, 1); v_int(pk); v_int(pk); }
static void v_bin(msgpack_packer *pk)   { msgpack_pack_bin_with_body(pk, "1", 1); }
static void v_arr_of_str(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 3);
    for (int i = 0; i < 3; i++)
        pack_key(pk, "7");
}

/* ---- tests: round trips ------------------------------------------------- */

/* Encodes h and rec[0..n) after what *w holds, decodes the buffer into *b
 * and checks that the header and the records come back; returns the bytes
 * the decoder used. */
static size_t roundtrip(struct ftio_wbuf *w, struct ftio_batch *b, const struct ftio_batch_header *h,
                        const struct ftio_record *rec, size_t n)
{
    ck_assert_int_eq(ftio_wire_encode(w, h, rec, n), 0);
    size_t used;
    char err[256];
    ck_assert_msg(decode_copy(w->data, w->len, b, &used, err, sizeof err) == 0, "%s", err);
    assert_header_eq(&b->h, h);
    ck_assert_uint_eq(b->n, n);
    assert_records_eq(b->rec, rec, n);
    return used;
}

START_TEST(roundtrip_full_header)
{
    struct ftio_batch_header h = std_header();
    struct ftio_record *rec = make_records(100);
    struct ftio_wbuf w = { 0 };
    struct ftio_batch b = { 0 };
    size_t used = roundtrip(&w, &b, &h, rec, 100);
    ck_assert_uint_eq(used, w.len);
    assert_consistent(&b, used, w.len);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
    free(rec);
}
END_TEST

START_TEST(roundtrip_extremes)
{
    struct ftio_batch_header h = std_header();
    h.pid = INT64_MIN; h.seq = UINT64_MAX; h.lost = UINT64_MAX;
    h.clock_mono = INT64_MAX; h.clock_real = INT64_MIN; h.skew_ns = INT64_MIN;
    h.rank = INT32_MAX; h.nranks = 0; h.final = false;
    char longstr[FTIO_WIRE_MAX_STR + 1];
    memset(longstr, 'q', FTIO_WIRE_MAX_STR);
    longstr[FTIO_WIRE_MAX_STR] = '\0';
    h.job = longstr; h.host = longstr; h.mark = "";          /* empty mark is kept */
    struct ftio_record rec[4] = {
        { .t_start = UINT64_MAX, .t_end = UINT64_MAX, .bytes = INT64_MAX, .offset = INT64_MIN,
          .file_id = UINT32_MAX, .op = FTIO_OP_READ, .layer = FTIO_LAYER_API, .flags = UINT16_MAX },
        { .t_start = 0, .t_end = (1ull << 32) + 1, .bytes = (1ll << 32) + 5, .offset = -1,
          .file_id = 0, .op = FTIO_OP_META, .layer = FTIO_LAYER_STDIO },
        { .t_start = 1ull << 63, .t_end = (1ull << 63) + 1, .bytes = INT64_MIN, .offset = INT64_MAX,
          .op = FTIO_OP_CLOSE },
        { .t_start = 127, .t_end = 128, .bytes = 255, .offset = -32, .op = FTIO_OP_WRITE,
          .file_id = 65536, .flags = 256 },
    };
    struct ftio_wbuf w = { 0 };
    struct ftio_batch b = { 0 };
    roundtrip(&w, &b, &h, rec, 4);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
}
END_TEST

/* The same batch packed with msgpack-c's packer, key for key, every
 * optional key included: the encoder's hand-written writers must produce
 * exactly these bytes (the encoder of ecc9d56 and before packed the header
 * with these very calls, and its columns were checked against them). */
static void reference_encode(msgpack_sbuffer *sb, const struct ftio_batch_header *h,
                             const struct ftio_record *rec, size_t n)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 19 + (h->born != 0) + (h->mark != NULL) + (h->skew_ns != 0) + (h->mpi != 0) +
                          h->has_app + h->has_unseen);
    pack_key(&pk, "v");      msgpack_pack_int(&pk, 1);
    pack_key(&pk, "job");    pack_key(&pk, h->job);
    pack_key(&pk, "host");   pack_key(&pk, h->host ? h->host : "");
    pack_key(&pk, "pid");    msgpack_pack_int64(&pk, h->pid);
    if (h->born) { pack_key(&pk, "born"); msgpack_pack_int64(&pk, h->born); }
    pack_key(&pk, "rank");   msgpack_pack_int32(&pk, h->rank);
    pack_key(&pk, "nranks"); msgpack_pack_int32(&pk, h->nranks);
    pack_key(&pk, "seq");    msgpack_pack_uint64(&pk, h->seq);
    pack_key(&pk, "clock");  msgpack_pack_array(&pk, 2);
    msgpack_pack_int64(&pk, h->clock_mono); msgpack_pack_int64(&pk, h->clock_real);
    pack_key(&pk, "lost");   msgpack_pack_uint64(&pk, h->lost);
    if (h->skew_ns) { pack_key(&pk, "skew_ns"); msgpack_pack_int64(&pk, h->skew_ns); }
    if (h->mark) { pack_key(&pk, "mark"); pack_key(&pk, h->mark); }
    if (h->mpi) { pack_key(&pk, "mpi"); msgpack_pack_int32(&pk, h->mpi); }
    pack_key(&pk, "final");  h->final ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    if (h->has_app) {
        const char *key[] = { "exe", "exe_id", "args", "args_norm", "name" };
        const char *val[] = { h->app.exe, h->app.exe_id, h->app.args, h->app.args_norm, h->app.name };
        size_t m = h->app.uid >= 0;
        for (size_t i = 0; i < 5; i++)
            m += val[i] != NULL;
        pack_key(&pk, "app");
        msgpack_pack_map(&pk, m);
        for (size_t i = 0; i < 5; i++)
            if (val[i]) { pack_key(&pk, key[i]); pack_key(&pk, val[i]); }
        if (h->app.uid >= 0) { pack_key(&pk, "uid"); msgpack_pack_int64(&pk, h->app.uid); }
    }
    if (h->has_unseen) {
        pack_key(&pk, "unseen"); msgpack_pack_array(&pk, 2);
        msgpack_pack_uint64(&pk, h->unseen_read); msgpack_pack_uint64(&pk, h->unseen_write);
    }
    pack_key(&pk, "files");  msgpack_pack_array(&pk, h->nfiles);
    for (size_t i = 0; i < h->nfiles; i++) {
        msgpack_pack_array(&pk, h->files[i].fs ? 3 : 2);
        msgpack_pack_uint32(&pk, h->files[i].id);
        pack_key(&pk, h->files[i].path);
        if (h->files[i].fs)
            pack_key(&pk, h->files[i].fs);
    }
#define REF_COLUMN(key, expr) \
    pack_key(&pk, key); msgpack_pack_array(&pk, n); for (size_t i = 0; i < n; i++) expr;
    REF_COLUMN("ts", msgpack_pack_uint64(&pk, rec[i].t_start))
    REF_COLUMN("te", msgpack_pack_uint64(&pk, rec[i].t_end))
    REF_COLUMN("bytes", msgpack_pack_int64(&pk, rec[i].bytes))
    REF_COLUMN("off", msgpack_pack_int64(&pk, rec[i].offset))
    REF_COLUMN("op", msgpack_pack_uint8(&pk, rec[i].op))
    REF_COLUMN("layer", msgpack_pack_uint8(&pk, rec[i].layer))
    REF_COLUMN("fid", msgpack_pack_uint32(&pk, rec[i].file_id))
    REF_COLUMN("flags", msgpack_pack_uint16(&pk, rec[i].flags))
#undef REF_COLUMN
}

/* The staged way of the shim's flusher (ftio_wire_columns_add in pieces of
 * `piece` records, their stamps mapped along `line` when given,
 * ftio_wire_encode_columns), its pieces joined. */
static void staged_encode(struct ftio_wbuf *out, const struct ftio_batch_header *h,
                          const struct ftio_record *rec, size_t n, size_t piece,
                          const struct ftio_wire_timeline *line)
{
    struct ftio_wire_columns c = { 0 };
    struct ftio_wbuf head = { 0 };
    struct iovec iov[FTIO_WIRE_IOV];
    for (size_t i = 0; i < n; i += piece)
        ck_assert_int_eq(ftio_wire_columns_add(&c, rec + i, n - i < piece ? n - i : piece, line), 0);
    ck_assert_uint_eq(c.n, n);
    int niov = ftio_wire_encode_columns(&head, h, &c, iov);
    ck_assert_int_ge(niov, 1);
    ck_assert_int_le(niov, FTIO_WIRE_IOV);
    out->len = 0;
    for (int k = 0; k < niov; k++) {
        ck_assert_int_eq(ftio_grow((void **)&out->data, &out->cap, out->len + iov[k].iov_len, 1), 0);
        memcpy(out->data + out->len, iov[k].iov_base, iov[k].iov_len);
        out->len += iov[k].iov_len;
    }
    ftio_wire_columns_free(&c);
    ftio_wbuf_free(&head);
}

/* What the shim's flusher did to a drained record before it encoded it
 * (libtrace/clock.c, until the mapping moved into the encoder): each
 * stamp along the line, 0 left alone.  The reference for the mapped
 * columns. */
static void reference_map(struct ftio_record *r, const struct ftio_wire_timeline *l)
{
    __int128 mult = l->mult;
    uint64_t *t[2] = { &r->t_start, &r->t_end };
    for (int k = 0; k < 2; k++) {
        if (!*t[k])
            continue;
        int64_t back = (int64_t)(l->tick - *t[k]);
        *t[k] = (uint64_t)(l->ns - (int64_t)(((__int128)back * mult) >> 32));
    }
}

/* A value of a random width (1..64 significant bits), negative or not. */
static int64_t rnd_width(int may_be_negative)
{
    unsigned bits = 1 + (unsigned)(rnd() % 64);
    uint64_t v = rnd() & (bits == 64 ? UINT64_MAX : (1ull << bits) - 1);
    if (may_be_negative && rnd() % 2)
        return (int64_t)~v;        /* -1 .. INT64_MIN: every negative width */
    return (int64_t)v;
}

/* Random headers (every optional key on or off) and records of random
 * widths: ftio_wire_encode and the flusher's staged pieces are the bytes of
 * msgpack-c's packer, whatever the values and however the records come. */
START_TEST(encoding_matches_msgpack_c_random)
{
    static const char *const strs[] = { "", "a", "/scratch/job/out.dat", "é-ü",
                                        "0123456789abcdef0123456789abcdef0123456789" };
    enum { NS = sizeof strs / sizeof *strs };
    struct ftio_file_entry files[40];
    struct ftio_wbuf w = { 0 }, staged = { 0 };
    for (int iter = 0; iter < 300; iter++) {
        size_t n = iter % 10 == 0 ? rnd() % 17 : rnd() % 3000;
        struct ftio_record *rec = calloc(n ? n : 1, sizeof *rec);
        ck_assert_ptr_nonnull(rec);
        for (size_t i = 0; i < n; i++) {
            rec[i].t_start = (uint64_t)rnd_width(0);
            rec[i].t_end = (uint64_t)rnd_width(0);
            rec[i].bytes = rnd_width(1);
            rec[i].offset = rnd_width(1);
            rec[i].op = (uint8_t)rnd_width(0);
            rec[i].layer = (uint8_t)rnd_width(0);
            rec[i].file_id = (uint32_t)rnd_width(0);
            rec[i].flags = (uint16_t)rnd_width(0);
            rec[i].tid = (uint32_t)rnd();          /* not sent */
        }
        struct ftio_batch_header h = {
            .job = strs[1 + rnd() % (NS - 1)], .host = rnd() % 5 ? strs[rnd() % NS] : NULL,
            .pid = rnd_width(1), .born = rnd() % 2 ? rnd_width(0) & INT64_MAX : 0,
            .rank = (int32_t)rnd_width(1), .nranks = (int32_t)rnd_width(1),
            .seq = (uint64_t)rnd_width(0), .clock_mono = rnd_width(1), .clock_real = rnd_width(1),
            .skew_ns = rnd() % 2 ? rnd_width(1) : 0, .lost = (uint64_t)rnd_width(0),
            .mark = rnd() % 2 ? strs[rnd() % NS] : NULL, .final = rnd() % 2,
            .mpi = rnd() % 2 ? (int32_t)rnd_width(1) : 0, .nfiles = rnd() % 40, .files = files,
            .has_app = rnd() % 2, .has_unseen = rnd() % 2,
            .unseen_read = (uint64_t)rnd_width(0), .unseen_write = (uint64_t)rnd_width(0),
        };
        for (size_t i = 0; i < h.nfiles; i++)
            files[i] = (struct ftio_file_entry){ (uint32_t)rnd_width(0), strs[1 + rnd() % (NS - 1)],
                                                 rnd() % 2 ? strs[rnd() % NS] : NULL };
        const char *app[5];
        for (size_t i = 0; i < 5; i++)
            app[i] = rnd() % 3 ? strs[rnd() % NS] : NULL;
        h.app = (struct ftio_app_identity){ app[0], app[1], app[2], app[3], app[4],
                                            rnd() % 2 ? rnd_width(0) : -1 };
        msgpack_sbuffer sb;
        reference_encode(&sb, &h, rec, n);
        w.len = 0;
        ck_assert_int_eq(ftio_wire_encode(&w, &h, rec, n), 0);
        ck_assert_uint_eq(w.len, sb.size);
        ck_assert_msg(memcmp(w.data, sb.data, sb.size) == 0, "iteration %d: bytes differ", iter);
        staged_encode(&staged, &h, rec, n, 1 + rnd() % 700, NULL);
        ck_assert_uint_eq(staged.len, sb.size);
        ck_assert_msg(memcmp(staged.data, sb.data, sb.size) == 0, "iteration %d: staged bytes differ", iter);
        msgpack_sbuffer_destroy(&sb);
        /* The flusher's way: stamps of a time-stamp counter (some 0, "no
         * time"), mapped along a line of a counter at 0.25-4 ticks per ns,
         * in the encoder; the bytes of the records mapped first. */
        struct ftio_wire_timeline line = {
            .tick = (uint64_t)rnd_width(0) | 1ull << 40, .ns = rnd_width(0) & (INT64_MAX >> 1),
            .mult = (int64_t)((1ull << 30) + rnd() % (15ull << 30)),
        };
        for (size_t i = 0; i < n; i++) {
            rec[i].t_start = rnd() % 50 ? line.tick - (uint64_t)(rnd() % (1ull << 36)) : 0;
            rec[i].t_end = rnd() % 50 ? rec[i].t_start + (uint64_t)(rnd() % (1ull << 34)) : 0;
        }
        staged_encode(&staged, &h, rec, n, 1 + rnd() % 700, &line);
        for (size_t i = 0; i < n; i++)
            reference_map(&rec[i], &line);
        reference_encode(&sb, &h, rec, n);
        ck_assert_uint_eq(staged.len, sb.size);
        ck_assert_msg(memcmp(staged.data, sb.data, sb.size) == 0, "iteration %d: mapped bytes differ", iter);
        msgpack_sbuffer_destroy(&sb);
        free(rec);
    }
    ftio_wbuf_free(&w);
    ftio_wbuf_free(&staged);
}
END_TEST

START_TEST(encoding_matches_msgpack_c)
{
    /* Every integer-width boundary, positive and negative. */
    static const int64_t sv[] = { 0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295ll,
                                  4294967296ll, INT64_MAX, -1, -32, -33, -128, -129, -32768,
                                  -32769, INT32_MIN, (int64_t)INT32_MIN - 1, INT64_MIN };
    enum { NV = sizeof sv / sizeof sv[0] };
    struct ftio_record rec[NV];
    memset(rec, 0, sizeof rec);
    for (size_t i = 0; i < NV; i++) {
        uint64_t u = (uint64_t)sv[i];
        rec[i].t_start = sv[i] >= 0 ? (uint64_t)sv[i] : u >> 1;
        rec[i].t_end = sv[i] >= 0 ? UINT64_MAX - (uint64_t)sv[i] / 2 : u;
        if (rec[i].t_end < rec[i].t_start) rec[i].t_end = rec[i].t_start;
        rec[i].bytes = sv[i];
        rec[i].offset = sv[NV - 1 - i];
        rec[i].op = (uint8_t)(sv[i] < 0 ? FTIO_OP_META : FTIO_OP_READ);
        rec[i].layer = (uint8_t)(i % FTIO_LAYER_COUNT);
        rec[i].file_id = (uint32_t)u;
        rec[i].flags = (uint16_t)u;
    }
    struct ftio_batch_header h = std_header();
    struct ftio_wbuf w = { 0 };
    ck_assert_int_eq(ftio_wire_encode(&w, &h, rec, NV), 0);
    msgpack_sbuffer sb;
    reference_encode(&sb, &h, rec, NV);
    ck_assert_uint_eq(w.len, sb.size);
    ck_assert_int_eq(memcmp(w.data, sb.data, sb.size), 0);
    struct ftio_batch b = { 0 };
    size_t used;
    ck_assert_int_eq(decode_copy(w.data, w.len, &b, &used, NULL, 0), 0);
    assert_records_eq(b.rec, rec, NV);
    msgpack_sbuffer_destroy(&sb);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
}
END_TEST

START_TEST(roundtrip_minimal_header)
{
    /* host NULL, no mark, no files, no records, skew 0: defaults come back. */
    struct ftio_batch_header h = { .job = "j", .rank = -1 };
    struct ftio_wbuf w = { 0 };
    struct ftio_batch b = { 0 };
    roundtrip(&w, &b, &h, NULL, 0);
    ck_assert_str_eq(b.h.host, "");
    ck_assert_ptr_null(b.h.mark);
    ck_assert_uint_eq(b.n, 0);
    ck_assert_uint_eq(b.h.nfiles, 0);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
}
END_TEST

START_TEST(roundtrip_large_and_reuse)
{
    /* One batch object reused over growing and shrinking batches. */
    static const size_t sizes[] = { 200000, 3, 0, 70000, 1 };
    struct ftio_batch b = { 0 };
    struct ftio_wbuf w = { 0 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        struct ftio_record *rec = make_records(n);
        struct ftio_batch_header h = std_header();
        h.seq = s;
        h.mark = s % 2 ? NULL : "m";
        h.nfiles = s % 3;
        w.len = 0;
        ck_assert_uint_eq(roundtrip(&w, &b, &h, rec, n), w.len);
        free(rec);
    }
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
}
END_TEST

START_TEST(back_to_back_batches)
{
    struct ftio_wbuf w = { 0 };
    struct ftio_record *rec = make_records(50);
    for (int i = 0; i < 5; i++) {
        struct ftio_batch_header h = std_header();
        h.seq = (uint64_t)i;
        h.final = i == 4;
        ck_assert_int_eq(ftio_wire_encode(&w, &h, rec + i, (size_t)(10 * i)), 0);
    }
    struct ftio_batch b = { 0 };
    size_t off = 0;
    for (int i = 0; i < 5; i++) {
        size_t used;
        char err[256];
        ck_assert_msg(decode_copy(w.data + off, w.len - off, &b, &used, err, sizeof err) == 0,
                      "batch %d: %s", i, err);
        ck_assert_uint_eq(b.h.seq, (uint64_t)i);
        ck_assert_int_eq(b.h.final, i == 4);
        ck_assert_uint_eq(b.n, (size_t)(10 * i));
        assert_records_eq(b.rec, rec + i, b.n);
        off += used;
    }
    ck_assert_uint_eq(off, w.len);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
    free(rec);
}
END_TEST

START_TEST(every_truncation_is_truncation)
{
    struct ftio_batch_header h = std_header();
    struct ftio_record *rec = make_records(40);
    struct ftio_wbuf w = { 0 };
    ck_assert_int_eq(ftio_wire_encode(&w, &h, rec, 40), 0);
    struct ftio_batch b = { 0 };
    for (size_t len = 0; len < w.len; len++) {
        size_t used = 12345;
        char err[256];
        int rc = decode_copy(w.data, len, &b, &used, err, sizeof err);
        ck_assert_msg(rc == 1, "prefix of %zu/%zu bytes: rc %d (%s)", len, w.len, rc, err);
        ck_assert_uint_eq(used, len);
        ck_assert_uint_eq(b.n, 0);
        ck_assert_ptr_null(b.h.job);
    }
    size_t used;
    ck_assert_int_eq(decode_copy(w.data, w.len, &b, &used, NULL, 0), 0);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
    free(rec);
}
END_TEST

/* ---- tests: rejection ---------------------------------------------------- */

START_TEST(custom_baseline_and_unknown_keys)
{
    char err[256];
    struct ftio_batch b = { 0 };
    struct custom c = { .n = 5 };
    ck_assert_msg(decode_custom(&c, err, sizeof err, &b) == 0, "%s", err);
    ck_assert_uint_eq(b.n, 5);
    ck_assert_str_eq(b.h.job, "j1");
    ck_assert_uint_eq(b.rec[4].t_end, 4500);
    ck_assert_int_eq(b.rec[4].offset, 4 * 4096);
    ck_assert_uint_eq(b.h.files[0].id, 77);
    ck_assert_int_eq(b.h.born, 123456789012ll);
    /* Without `born` (an older sender): 0, the pid alone tells the process. */
    struct custom o = { .n = 5, .omit = "born" };
    ck_assert_msg(decode_custom(&o, err, sizeof err, &b) == 0, "%s", err);
    ck_assert_int_eq(b.h.born, 0);
    struct custom u = { .n = 5, .unknown_keys = 1 };
    ck_assert_msg(decode_custom(&u, err, sizeof err, &b) == 0, "%s", err);
    ck_assert_uint_eq(b.n, 5);
    ck_assert_str_eq(b.h.mark, "m");
    ck_assert_uint_eq(b.rec[3].layer, FTIO_LAYER_MPIIO);
    ftio_batch_free(&b);
}
END_TEST

START_TEST(wrong_type_for_each_key)
{
    char err[256];
    for (size_t i = 0; i < NKEYS; i++) {
        const char *k = all_keys[i];
        /* A string where a number is expected, a number where a string is. */
        int is_str = !strcmp(k, "job") || !strcmp(k, "host") || !strcmp(k, "mark");
        void (*fns[])(msgpack_packer *) = { is_str ? v_int : v_str, v_true, v_map, v_bin,
                                            is_column(k) ? v_arr_of_str : v_map };
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            if (!strcmp(k, "final") && fns[f] == v_true)
                continue;                       /* a bool is right for final */
            struct custom c = { .n = 3, .replace = k, .value_fn = fns[f] };
            ck_assert_msg(custom_rc(&c, err, sizeof err) == -1, "key %s, value %zu accepted", k, f);
            ck_assert(err[0] != '\0');
        }
        /* nil is only accepted for mark (= absent). */
        struct custom c = { .n = 3, .replace = k, .value_fn = v_nil };
        ck_assert_int_eq(custom_rc(&c, err, sizeof err), !strcmp(k, "mark") ? 0 : -1);
    }
}
END_TEST

START_TEST(missing_keys)
{
    static const char *const required[] = { "v", "job", "seq", "ts", "te", "bytes", "op" };
    char err[256];
    for (size_t i = 0; i < NKEYS; i++) {
        int req = 0;
        for (size_t j = 0; j < sizeof required / sizeof required[0]; j++)
            req |= !strcmp(all_keys[i], required[j]);
        struct custom c = { .n = 3, .omit = all_keys[i] };
        struct ftio_batch b = { 0 };
        int rc = decode_custom(&c, err, sizeof err, &b);
        if (req) {
            ck_assert_msg(rc == -1, "missing %s accepted", all_keys[i]);
            ck_assert_msg(strstr(err, all_keys[i]) != NULL, "error '%s' does not name %s", err, all_keys[i]);
        } else {
            ck_assert_msg(rc == 0, "missing optional %s rejected: %s", all_keys[i], err);
            if (!strcmp(all_keys[i], "off")) ck_assert_int_eq(b.rec[1].offset, -1);
            if (!strcmp(all_keys[i], "layer")) ck_assert_uint_eq(b.rec[1].layer, FTIO_LAYER_POSIX);
            if (!strcmp(all_keys[i], "fid")) ck_assert_uint_eq(b.rec[1].file_id, 0);
            if (!strcmp(all_keys[i], "flags")) ck_assert_uint_eq(b.rec[1].flags, 0);
            if (!strcmp(all_keys[i], "rank")) ck_assert_int_eq(b.h.rank, -1);
            if (!strcmp(all_keys[i], "host")) ck_assert_str_eq(b.h.host, "");
            if (!strcmp(all_keys[i], "mark")) ck_assert_ptr_null(b.h.mark);
            if (!strcmp(all_keys[i], "files")) ck_assert_uint_eq(b.h.nfiles, 0);
        }
        ftio_batch_free(&b);
    }
}
END_TEST

START_TEST(duplicate_keys_and_column_mismatch)
{
    char err[256];
    for (size_t i = 0; i < NKEYS; i++) {
        struct custom c = { .n = 3, .dup = all_keys[i] };
        ck_assert_msg(custom_rc(&c, err, sizeof err) == -1, "duplicate %s accepted", all_keys[i]);
        ck_assert(strstr(err, "duplicate") != NULL);
        if (is_column(all_keys[i])) {
            struct custom s = { .n = 3, .short_col = all_keys[i] };
            ck_assert_msg(custom_rc(&s, err, sizeof err) == -1, "short %s accepted", all_keys[i]);
        }
    }
}
END_TEST

static void v_two(msgpack_packer *pk)        { msgpack_pack_int(pk, 2); }
static void v_zero(msgpack_packer *pk)       { msgpack_pack_int(pk, 0); }
static void v_one_float(msgpack_packer *pk)  { msgpack_pack_double(pk, 1.0); }
static void v_one_int8(msgpack_packer *pk)   { msgpack_pack_fix_int8(pk, 1); }
static void v_one_u64(msgpack_packer *pk)    { msgpack_pack_fix_uint64(pk, 1); }
static void v_neg(msgpack_packer *pk)        { msgpack_pack_int(pk, -5); }
static void v_three(msgpack_packer *pk)      { msgpack_pack_int(pk, 3); }
static void v_nan(msgpack_packer *pk)        { msgpack_pack_double(pk, 0.0 / 0.0); }
static void v_huge_float(msgpack_packer *pk) { msgpack_pack_double(pk, 1e30); }
static void v_empty_str(msgpack_packer *pk)  { msgpack_pack_str_with_body(pk, "", 0); }
static void v_nul_str(msgpack_packer *pk)    { msgpack_pack_str_with_body(pk, "a\0b", 3); }
/* Not UTF-8: a lone continuation byte, an overlong '/', a surrogate. */
static void v_bad_utf8(msgpack_packer *pk)   { msgpack_pack_str_with_body(pk, "job\x80", 4); }
static void v_overlong(msgpack_packer *pk)   { msgpack_pack_str_with_body(pk, "\xc0\xaf", 2); }
static void v_surrogate(msgpack_packer *pk)  { msgpack_pack_str_with_body(pk, "\xed\xa0\x80", 3); }
static void v_utf8_ok(msgpack_packer *pk)    { msgpack_pack_str_with_body(pk, "j\xc3\xa9" "b-\xf0\x9f\x92\xbe", 9); }
static void v_long_str(msgpack_packer *pk)
{
    static char s[FTIO_WIRE_MAX_STR + 1];
    memset(s, 'z', sizeof s);
    msgpack_pack_str_with_body(pk, s, sizeof s);
}
static void v_rank_big(msgpack_packer *pk)   { msgpack_pack_int(pk, 4); }  /* nranks is 4 */
static void v_rank_m2(msgpack_packer *pk)    { msgpack_pack_int(pk, -2); }
static void v_clock3(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 3);
    for (int i = 0; i < 3; i++) msgpack_pack_int(pk, i);
}
static void v_files_bad_pair(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 3);
    msgpack_pack_int(pk, 1); pack_key(pk, "/a"); msgpack_pack_int(pk, 2);
}
static void v_files_big_id(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 2);
    msgpack_pack_uint64(pk, 1ull << 32); pack_key(pk, "/a");
}
static void v_files_empty_path(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 2);
    msgpack_pack_uint64(pk, 1); v_empty_str(pk);
}
/* Columns of 3 with one bad value in the middle. */
#define COL3(name, a, bad, c)                                                  \
    static void name(msgpack_packer *pk)                                       \
    { msgpack_pack_array(pk, 3); a; bad; c; }
COL3(v_ts_neg,    msgpack_pack_int(pk, 0), msgpack_pack_int(pk, -1), msgpack_pack_int(pk, 2000))
COL3(v_te_before, msgpack_pack_int(pk, 0), msgpack_pack_int(pk, 1501), msgpack_pack_int(pk, 2000))
COL3(v_op_8,      v_int(pk), msgpack_pack_int(pk, FTIO_OP_COUNT), v_int(pk))
COL3(v_layer_4,   v_int(pk), msgpack_pack_int(pk, FTIO_LAYER_COUNT), v_int(pk))
COL3(v_fid_big,   v_int(pk), msgpack_pack_uint64(pk, 1ull << 32), v_int(pk))
COL3(v_flags_big, v_int(pk), msgpack_pack_int(pk, 65536), v_int(pk))
COL3(v_bytes_neg, v_int(pk), msgpack_pack_int(pk, -1), v_int(pk))
COL3(v_bytes_u64, v_int(pk), msgpack_pack_uint64(pk, 1ull << 63), v_int(pk))
COL3(v_ts_float,  msgpack_pack_double(pk, 0.0), msgpack_pack_float(pk, 1000.0f), msgpack_pack_double(pk, 2000.9))
COL3(v_te_widths, msgpack_pack_fix_uint64(pk, 500), msgpack_pack_fix_int16(pk, 1500), msgpack_pack_fix_int32(pk, 2500))
COL3(v_op_close,  v_int(pk), msgpack_pack_int(pk, FTIO_OP_CLOSE), v_int(pk))

START_TEST(value_checks)
{
    struct { const char *key; void (*fn)(msgpack_packer *); int expect; } cases[] = {
        { "v", v_two, -1 }, { "v", v_zero, -1 }, { "v", v_one_float, 0 },
        { "v", v_one_int8, 0 }, { "v", v_one_u64, 0 },
        { "seq", v_neg, -1 }, { "lost", v_neg, -1 }, { "pid", v_neg, 0 }, { "born", v_neg, -1 },
        { "seq", v_nan, -1 }, { "seq", v_huge_float, -1 }, { "pid", v_huge_float, -1 },
        { "job", v_empty_str, -1 }, { "host", v_empty_str, 0 }, { "mark", v_empty_str, 0 },
        { "job", v_nul_str, -1 }, { "host", v_nul_str, -1 }, { "mark", v_nul_str, -1 },
        { "job", v_bad_utf8, -1 }, { "job", v_overlong, -1 }, { "job", v_surrogate, -1 },
        { "job", v_utf8_ok, 0 }, { "host", v_bad_utf8, 0 },
        { "job", v_long_str, -1 }, { "host", v_long_str, -1 }, { "mark", v_long_str, -1 },
        { "rank", v_rank_big, -1 }, { "rank", v_rank_m2, -1 }, { "nranks", v_neg, -1 },
        { "clock", v_clock3, -1 }, { "mpi", v_neg, -1 }, { "mpi", v_three, -1 },
        { "files", v_files_bad_pair, -1 }, { "files", v_files_big_id, -1 },
        { "files", v_files_empty_path, -1 },
        { "ts", v_ts_neg, -1 }, { "ts", v_te_before, -1 }, { "op", v_op_8, -1 },
        { "layer", v_layer_4, -1 }, { "fid", v_fid_big, -1 }, { "flags", v_flags_big, -1 },
        { "bytes", v_bytes_neg, -1 }, { "bytes", v_bytes_u64, -1 }, { "off", v_bytes_neg, 0 },
        { "ts", v_ts_float, 0 }, { "te", v_te_widths, 0 },
    };
    char err[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct custom c = { .n = 3, .replace = cases[i].key, .value_fn = cases[i].fn };
        int rc = custom_rc(&c, err, sizeof err);
        ck_assert_msg(rc == cases[i].expect, "case %zu (%s): rc %d, expected %d (%s)",
                      i, cases[i].key, rc, cases[i].expect, err);
    }
    /* Negative bytes: rejected on a write (above), accepted on a close. */
    struct custom ops = { .n = 3, .replace = "op", .value_fn = v_op_close };
    struct ftio_batch b = { 0 };
    ck_assert_int_eq(decode_custom(&ops, err, sizeof err, &b), 0);
    ftio_batch_free(&b);
    /* Floats and fixed-width ints decode to their integer values. */
    struct custom fl = { .n = 3, .replace = "ts", .value_fn = v_ts_float };
    ck_assert_int_eq(decode_custom(&fl, err, sizeof err, &b), 0);
    ck_assert_uint_eq(b.rec[1].t_start, 1000);
    ck_assert_uint_eq(b.rec[2].t_start, 2000);
    struct custom wd = { .n = 3, .replace = "te", .value_fn = v_te_widths };
    ck_assert_int_eq(decode_custom(&wd, err, sizeof err, &b), 0);
    ck_assert_uint_eq(b.rec[1].t_end, 1500);
    ftio_batch_free(&b);
}
END_TEST

/* Columns of 200 values, read by the decoder in runs of one encoding
 * (wire_decode.c read_uint_run): every width, the widths changing within a
 * run's reach, and an out-of-range value inside a run, reported at its own
 * index and offset. */
#define RUN_N 200
static void v_ts_runs(msgpack_packer *pk)
{
    msgpack_pack_array(pk, RUN_N);
    for (int i = 0; i < RUN_N; i++) {      /* 70 x uint 64, 70 x uint 32, then alternating */
        uint64_t v = 1000 * (uint64_t)i;
        if (i < 70) msgpack_pack_fix_uint64(pk, v);
        else if (i < 140) msgpack_pack_fix_uint32(pk, (uint32_t)v);
        else if (i % 3 == 0) msgpack_pack_fix_uint16(pk, (uint16_t)(i - 140));
        else if (i % 3 == 1) msgpack_pack_fix_uint8(pk, (uint8_t)(i - 140));
        else msgpack_pack_fix_uint64(pk, v);
    }
}
static uint64_t ts_runs_value(int i)
{
    return i < 140 || i % 3 == 2 ? 1000 * (uint64_t)i : (uint64_t)(i - 140);
}
static void v_te_runs(msgpack_packer *pk)   /* the standard 1000 i + 500, widths changing */
{
    msgpack_pack_array(pk, RUN_N);
    for (int i = 0; i < RUN_N; i++) {
        uint64_t v = 1000 * (uint64_t)i + 500;
        if (i < 100 || i % 2) msgpack_pack_fix_uint64(pk, v);
        else msgpack_pack_fix_uint32(pk, (uint32_t)v);
    }
}
static void v_op_run_bad(msgpack_packer *pk)
{
    msgpack_pack_array(pk, RUN_N);
    for (int i = 0; i < RUN_N; i++)         /* fixints; index 137 out of range */
        msgpack_pack_int(pk, i == 137 ? FTIO_OP_COUNT : FTIO_OP_WRITE);
}

START_TEST(column_runs)
{
    struct ftio_batch b = { 0 };
    char err[256];
    struct custom cs = { .n = RUN_N, .replace = "ts", .value_fn = v_ts_runs };
    ck_assert_msg(decode_custom(&cs, err, sizeof err, &b) == 0, "%s", err);
    ck_assert_uint_eq(b.n, RUN_N);
    for (int i = 0; i < RUN_N; i++)
        ck_assert_uint_eq(b.rec[i].t_start, ts_runs_value(i));
    ftio_batch_free(&b);
    struct custom ct = { .n = RUN_N, .replace = "te", .value_fn = v_te_runs };
    ck_assert_msg(decode_custom(&ct, err, sizeof err, &b) == 0, "%s", err);
    for (int i = 0; i < RUN_N; i++)
        ck_assert_uint_eq(b.rec[i].t_end, 1000 * (uint64_t)i + 500);
    ftio_batch_free(&b);

    /* an out-of-range op in the middle of a run of fixints */
    struct custom co = { .n = RUN_N, .replace = "op", .value_fn = v_op_run_bad };
    msgpack_sbuffer sb;
    build_custom(&sb, &co);
    size_t used;
    int rc = decode_copy(sb.data, sb.size, &b, &used, err, sizeof err);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, "'op'[137]: value out of range") != NULL, "%s", err);
    const char *key = memmem(sb.data, sb.size, "\xa2op\xdc", 4);   /* "op", array 16 */
    ck_assert_ptr_nonnull(key);
    ck_assert_uint_eq(used, (size_t)(key - sb.data) + 3 + 3 + 137);
    ck_assert_uint_eq(((const uint8_t *)sb.data)[used], FTIO_OP_COUNT);
    msgpack_sbuffer_destroy(&sb);
    ftio_batch_free(&b);
}
END_TEST

START_TEST(limits_and_garbage)
{
    struct ftio_batch b = { 0 };
    size_t used;
    char err[256];
    /* Not a map. */
    static const uint8_t not_map[] = { 0x93, 1, 2, 3 };
    ck_assert_int_eq(decode_copy(not_map, sizeof not_map, &b, &used, err, sizeof err), -1);
    ck_assert_uint_eq(used, 0);
    /* Reserved type byte 0xc1 as a value of an unknown key. */
    static const uint8_t c1[] = { 0x81, 0xa1, 'z', 0xc1 };
    ck_assert_int_eq(decode_copy(c1, sizeof c1, &b, &used, err, sizeof err), -1);
    ck_assert_uint_eq(used, 3);
    /* A column claiming more than FTIO_WIRE_MAX_RECORDS: an error, whatever follows. */
    uint8_t big[] = { 0x81, 0xa2, 't', 's', 0xdd, 0, 0, 0, 0 };
    uint32_t n = FTIO_WIRE_MAX_RECORDS + 1;
    big[5] = (uint8_t)(n >> 24); big[6] = (uint8_t)(n >> 16); big[7] = (uint8_t)(n >> 8); big[8] = (uint8_t)n;
    ck_assert_int_eq(decode_copy(big, sizeof big, &b, &used, err, sizeof err), -1);
    ck_assert(strstr(err, "limit") != NULL);
    /* Huge but allowed lengths with a tiny buffer: truncation, no huge allocation. */
    static const uint8_t huge_arr[] = { 0x81, 0xa2, 't', 's', 0xdd, 0x00, 0x3f, 0xff, 0xff, 1, 2 };
    ck_assert_int_eq(decode_copy(huge_arr, sizeof huge_arr, &b, &used, err, sizeof err), 1);
    static const uint8_t huge_map[] = { 0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'q', 0x01 };
    ck_assert_int_eq(decode_copy(huge_map, sizeof huge_map, &b, &used, err, sizeof err), 1);
    static const uint8_t huge_skip[] = { 0x81, 0xa1, 'q', 0xdf, 0xff, 0xff, 0xff, 0xff, 1, 2 };
    ck_assert_int_eq(decode_copy(huge_skip, sizeof huge_skip, &b, &used, err, sizeof err), 1);
    static const uint8_t huge_str[] = { 0x81, 0xa3, 'j', 'o', 'b', 0xdb, 0x7f, 0xff, 0xff, 0xff, 'a' };
    ck_assert_int_eq(decode_copy(huge_str, sizeof huge_str, &b, &used, err, sizeof err), -1);
    static const uint8_t huge_files[] = { 0x81, 0xa5, 'f', 'i', 'l', 'e', 's', 0xdd, 0x00, 0x01, 0x00, 0x01 };
    ck_assert_int_eq(decode_copy(huge_files, sizeof huge_files, &b, &used, err, sizeof err), -1);
    /* Deep nesting in an unknown key: no recursion, just truncation. */
    size_t deep = 100000;
    uint8_t *d = malloc(deep + 3);
    d[0] = 0x81; d[1] = 0xa1; d[2] = 'q';
    memset(d + 3, 0x91, deep);
    ck_assert_int_eq(decode_copy(d, deep + 3, &b, &used, err, sizeof err), 1);
    free(d);
    /* Empty input is a (zero-length) prefix. */
    ck_assert_int_eq(decode_copy("", 0, &b, &used, err, sizeof err), 1);
    ftio_batch_free(&b);
}
END_TEST

START_TEST(encode_rejects_invalid_input)
{
    struct ftio_wbuf w = { 0 };
    struct ftio_batch_header h = std_header();
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, 0), 0);
    size_t len = w.len;
    char longstr[FTIO_WIRE_MAX_STR + 2];
    memset(longstr, 'a', sizeof longstr - 1);
    longstr[sizeof longstr - 1] = '\0';
    struct ftio_batch_header bad[5];
    for (int i = 0; i < 5; i++)
        bad[i] = h;
    bad[0].job = NULL;
    bad[1].job = "";
    bad[2].host = longstr;
    bad[3].mark = longstr;
    static const struct ftio_file_entry empty_path[] = { { 1, "", NULL } };
    bad[4].files = empty_path; bad[4].nfiles = 1;
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(ftio_wire_encode(&w, &bad[i], NULL, 0), -1);
        ck_assert_uint_eq(w.len, len);
    }
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, FTIO_WIRE_MAX_RECORDS + 1), -1);
    ftio_wbuf_free(&w);
}
END_TEST

/* ---- fuzz ------------------------------------------------------------------ */

/* Feeds one mutated input to the decoder: it must not crash, and whatever it
 * accepts must be consistent and survive a re-encode.  Returns rc. */
static int fuzz_one(const uint8_t *buf, size_t len, struct ftio_batch *b)
{
    size_t used = 0;
    char err[256];
    int rc = decode_copy(buf, len, b, &used, err, sizeof err);
    FTIO_CHECK(rc == 0 || rc == 1 || rc == -1);
    FTIO_CHECK(used <= len);
    if (rc == 0) {
        assert_consistent(b, used, len);
        assert_reencodes(b);
    } else {
        ck_assert_uint_eq(b->n, 0);
        ck_assert(err[0] != '\0');
    }
    return rc;
}

START_TEST(fuzz_mutations)
{
    rng_state = 0x1234567ull + (uint64_t)_i;
    /* Seeds: a realistic batch, a custom one with unknown keys. */
    struct ftio_wbuf w = { 0 };
    struct ftio_batch_header h = std_header();
    struct ftio_record *rec = make_records(12);
    ck_assert_int_eq(ftio_wire_encode(&w, &h, rec, 12), 0);
    msgpack_sbuffer sb;
    struct custom c = { .n = 4, .unknown_keys = 1 };
    build_custom(&sb, &c);

    struct ftio_batch b = { 0 };
    size_t cap = w.len + sb.size + 64;
    uint8_t *buf = malloc(cap);
    int counts[3] = { 0, 0, 0 };
    for (int iter = 0; iter < 4000; iter++) {
        const uint8_t *seed = (iter & 1) ? (const uint8_t *)sb.data : (const uint8_t *)w.data;
        size_t len = (iter & 1) ? sb.size : w.len;
        memcpy(buf, seed, len);
        switch (rnd() % 7) {
        case 0: case 1: {                       /* flip 1..4 random bytes */
            int k = 1 + (int)(rnd() % 4);
            for (int j = 0; j < k; j++)
                buf[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
            break;
        }
        case 2:                                 /* truncate + flip */
            len = rnd() % len;
            if (len)
                buf[rnd() % len] = (uint8_t)rnd();
            break;
        case 3:                                 /* set a byte to an interesting type byte */
        {
            static const uint8_t tb[] = { 0xc0, 0xc1, 0xc2, 0xc3, 0xca, 0xcb, 0xcf, 0xd3, 0xdb,
                                          0xdd, 0xdf, 0xc7, 0xd8, 0x9f, 0x8f, 0xbf, 0xff, 0x7f };
            buf[rnd() % len] = tb[rnd() % sizeof tb];
            break;
        }
        case 4:                                 /* random garbage, sometimes map-prefixed */
            len = rnd() % 64;
            for (size_t j = 0; j < len; j++)
                buf[j] = (uint8_t)rnd();
            if (len && rnd() % 2)
                buf[0] = 0x80 | (uint8_t)(rnd() % 16);
            break;
        case 5: {                               /* big-endian length fields set huge */
            size_t p = rnd() % len;
            for (size_t j = p; j < len && j < p + 4; j++)
                buf[j] = 0xff;
            break;
        }
        default: {                              /* splice: drop a random range */
            size_t a = rnd() % len, l = rnd() % (len - a + 1);
            memmove(buf + a, buf + a + l, len - a - l);
            len -= l;
            break;
        }
        }
        counts[fuzz_one(buf, len, &b) + 1]++;
    }
    /* The mix must exercise all three outcomes, or the fuzzer is not fuzzing. */
    ck_assert_int_gt(counts[0], 100);      /* -1 */
    ck_assert_int_gt(counts[1], 100);      /*  0 */
    ck_assert_int_gt(counts[2], 100);      /*  1 */
    free(buf);
    msgpack_sbuffer_destroy(&sb);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
    free(rec);
}
END_TEST

/* ---- hash, names ------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

START_TEST(path_hash)
{
    /* FNV-1a 64 of "" is the offset basis; folded: hi ^ lo. */
    ck_assert_uint_eq(ftio_hash_bytes("", 0), 0xcbf29ce4u ^ 0x84222325u);
    /* FNV-1a 64("a") = 0xaf63dc4c8601ec8c (published test vector). */
    ck_assert_uint_eq(ftio_path_hash("a"), 0xaf63dc4cu ^ 0x8601ec8cu);
    ck_assert_uint_eq(ftio_path_hash("/scratch/out.dat"), ftio_hash_bytes("/scratch/out.dat", 16));
    ck_assert_uint_ne(ftio_path_hash("/scratch/out.dat"), ftio_path_hash("/scratch/out.dau"));
    /* Few collisions among many similar paths, and never 0. */
    enum { N = 20000 };
    uint32_t *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; i++) {
        char p[64];
        snprintf(p, sizeof p, "/scratch/run/rank%05d.dat", i);
        h[i] = ftio_path_hash(p);
        FTIO_CHECK(h[i] != 0);
    }
    qsort(h, N, sizeof *h, cmp_u32);
    int collisions = 0;
    for (int i = 1; i < N; i++)
        collisions += h[i] == h[i - 1];
    ck_assert_int_le(collisions, 2);       /* ~0.05 expected for 32-bit ids */
    free(h);
}
END_TEST

START_TEST(names)
{
    ck_assert_str_eq(ftio_op_name(FTIO_OP_READ), "read");
    ck_assert_str_eq(ftio_op_name(FTIO_OP_WRITE), "write");
    ck_assert_str_eq(ftio_op_name(FTIO_OP_META), "meta");
    ck_assert_str_eq(ftio_op_name(FTIO_OP_COUNT), "unknown");
    ck_assert_str_eq(ftio_op_name(-1), "unknown");
    ck_assert_str_eq(ftio_layer_name(FTIO_LAYER_POSIX), "posix");
    ck_assert_str_eq(ftio_layer_name(FTIO_LAYER_MPIIO), "mpiio");
    ck_assert_str_eq(ftio_layer_name(FTIO_LAYER_API), "api");
    ck_assert_str_eq(ftio_layer_name(FTIO_LAYER_COUNT), "unknown");
    for (int i = 0; i < FTIO_OP_COUNT; i++)
        ck_assert_ptr_nonnull(ftio_op_name(i));
}
END_TEST

START_TEST(time_helpers)
{
    int64_t m0 = ftio_mono_ns(), mono, real;
    ftio_clock_anchor(&mono, &real);
    int64_t m1 = ftio_mono_ns();
    ck_assert_int_le(m0, mono);
    ck_assert_int_le(mono, m1);
    ck_assert_int_gt(real, 1600000000ll * FTIO_NS_PER_SEC);     /* after 2020 */
    /* One second after the anchor is one second after the anchor's wall time. */
    double wall = ftio_mono_to_epoch(mono + FTIO_NS_PER_SEC, mono, real);
    ck_assert(wall - (double)real / 1e9 > 0.999999 && wall - (double)real / 1e9 < 1.000001);
    struct timespec ts = { .tv_sec = 3, .tv_nsec = 5 };
    ck_assert_int_eq(ftio_timespec_ns(&ts), 3000000005ll);
}
END_TEST

/* Batch headers come from untrusted senders and files: the wall-clock base
 * and wall times must report overflow, not wrap (UBSan would flag a wrap). */
START_TEST(wall_clock_overflow)
{
    int64_t base, w;
    ck_assert(ftio_wall_base(5000, 1000, 7, &base));
    ck_assert_int_eq(base, 4007);
    ck_assert(ftio_wall_ns(10, base, &w));
    ck_assert_int_eq(w, 4017);
    ck_assert(!ftio_wall_base(INT64_MAX, -1, 0, &base));
    ck_assert(!ftio_wall_base(INT64_MIN, 1, 0, &base));
    ck_assert(!ftio_wall_base(INT64_MAX, 0, 1, &base));
    ck_assert(!ftio_wall_ns((uint64_t)INT64_MAX + 1, 0, &w));
    ck_assert(!ftio_wall_ns((uint64_t)INT64_MAX, 1, &w));
    ck_assert(ftio_wall_ns((uint64_t)INT64_MAX, 0, &w));
    ck_assert_int_eq(w, INT64_MAX);
}
END_TEST


/* ---- app, unseen, a file's fs (the optional keys of PROTOCOL.md §1) ----- */

START_TEST(roundtrip_app_unseen_fs)
{
    static const struct ftio_file_entry files[] = {
        { 7u, "/scratch/ckpt.0001", "lustre:/scratch" }, { 8u, "/tmp/x", NULL }, { 9u, "/y", "" },
    };
    struct ftio_batch_header h = std_header();
    h.files = files;
    h.nfiles = 3;
    h.has_app = true;
    h.app = (struct ftio_app_identity){ .exe = "/usr/bin/lmp", .exe_id = "803:1a2b:65f0c1d2",
                                        .args = "0123456789abcdef", .args_norm = "fedcba9876543210",
                                        .name = "lammps-melt", .uid = 1000 };
    h.has_unseen = true;
    h.unseen_read = 12345;
    h.unseen_write = UINT64_MAX;
    struct ftio_wbuf w = { 0 };
    struct ftio_batch b = { 0 };
    char err[256];
    size_t used;
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, 0), 0);
    ck_assert_int_eq(decode_copy(w.data, w.len, &b, &used, err, sizeof err), 0);
    assert_header_eq(&b.h, &h);
    ck_assert_str_eq(b.h.files[0].fs, "lustre:/scratch");
    ck_assert_ptr_null(b.h.files[1].fs);
    ck_assert_str_eq(b.h.files[2].fs, "");
    ck_assert(b.h.has_app);
    ck_assert_str_eq(b.h.app.exe, "/usr/bin/lmp");
    ck_assert_str_eq(b.h.app.exe_id, "803:1a2b:65f0c1d2");
    ck_assert_str_eq(b.h.app.args, "0123456789abcdef");
    ck_assert_str_eq(b.h.app.args_norm, "fedcba9876543210");
    ck_assert_str_eq(b.h.app.name, "lammps-melt");
    ck_assert_int_eq(b.h.app.uid, 1000);
    ck_assert(b.h.has_unseen);
    ck_assert_uint_eq(b.h.unseen_read, 12345);
    ck_assert_uint_eq(b.h.unseen_write, UINT64_MAX);
    /* Partial app: absent fields stay NULL / -1; absent keys leave has_* false. */
    h.app = (struct ftio_app_identity){ .exe = "/bin/cat", .uid = -1 };
    h.has_unseen = false;
    w.len = 0;
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, 0), 0);
    ck_assert_int_eq(decode_copy(w.data, w.len, &b, &used, err, sizeof err), 0);
    ck_assert(b.h.has_app);
    ck_assert_str_eq(b.h.app.exe, "/bin/cat");
    ck_assert_ptr_null(b.h.app.args);
    ck_assert_ptr_null(b.h.app.name);
    ck_assert_int_eq(b.h.app.uid, -1);
    ck_assert(!b.h.has_unseen);
    h.has_app = false;
    w.len = 0;
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, 0), 0);
    ck_assert_int_eq(decode_copy(w.data, w.len, &b, &used, err, sizeof err), 0);
    ck_assert(!b.h.has_app);
    ck_assert_ptr_null(b.h.app.exe);
    ck_assert_int_eq(b.h.app.uid, -1);
    /* The encoder refuses what the decoder would: an over-long app string. */
    char big[FTIO_WIRE_MAX_STR + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    h.has_app = true;
    h.app = (struct ftio_app_identity){ .exe = big, .uid = -1 };
    size_t len = w.len;
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, 0), -1);
    ck_assert_uint_eq(w.len, len);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
}
END_TEST

/* A batch of the required keys plus one extra key whose value fn packs. */
static int decode_with(const char *key, void (*fn)(msgpack_packer *), struct ftio_batch *b,
                       char *err, size_t errlen)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 8);
    const char *req[] = { "v", "job", "seq", "ts", "te", "bytes", "op" };
    for (size_t i = 0; i < 7; i++) {
        pack_key(&pk, req[i]);
        pack_std_value(&pk, req[i], 2);
    }
    pack_key(&pk, key);
    fn(&pk);
    size_t used;
    int rc = decode_copy(sb.data, sb.size, b, &used, err, errlen);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

static void app_ok(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    pack_key(pk, "exe"); pack_key(pk, "/a");
    pack_key(pk, "future"); msgpack_pack_array(pk, 2); msgpack_pack_int(pk, 1); msgpack_pack_nil(pk);
    pack_key(pk, "uid"); msgpack_pack_int(pk, 0);
}
static void app_empty(msgpack_packer *pk) { msgpack_pack_map(pk, 0); }
static void app_dup(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    pack_key(pk, "exe"); pack_key(pk, "/a");
    pack_key(pk, "exe"); pack_key(pk, "/b");
}
static void app_neg_uid(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 1);
    pack_key(pk, "uid"); msgpack_pack_int(pk, -5);
}
static void app_int_name(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 1);
    pack_key(pk, "name"); msgpack_pack_int(pk, 5);
}
static void app_bad_utf8(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 1);
    pack_key(pk, "exe"); msgpack_pack_str_with_body(pk, "\xff\xfe", 2);
}
static void app_array(msgpack_packer *pk) { msgpack_pack_array(pk, 0); }
static void app_int_key(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 1);
    msgpack_pack_int(pk, 1); msgpack_pack_int(pk, 2);
}
static void unseen_ok(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 2); msgpack_pack_int(pk, 0); msgpack_pack_uint64(pk, 99);
}
static void unseen_short(msgpack_packer *pk) { msgpack_pack_array(pk, 1); msgpack_pack_int(pk, 0); }
static void unseen_neg(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 2); msgpack_pack_int(pk, -1); msgpack_pack_int(pk, 0);
}
static void files_fs(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 3);
    msgpack_pack_uint32(pk, 5); pack_key(pk, "/f"); pack_key(pk, "xfs:/");
}
static void files_four(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 4);
    msgpack_pack_uint32(pk, 5); pack_key(pk, "/f"); pack_key(pk, "xfs:/"); pack_key(pk, "?");
}
static void files_fs_int(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1); msgpack_pack_array(pk, 3);
    msgpack_pack_uint32(pk, 5); pack_key(pk, "/f"); msgpack_pack_int(pk, 3);
}

START_TEST(app_unseen_fs_checks)
{
    struct { const char *key; void (*fn)(msgpack_packer *); int expect; } cases[] = {
        { "app", app_ok, 0 }, { "app", app_empty, 0 }, { "app", app_dup, -1 },
        { "app", app_neg_uid, -1 }, { "app", app_int_name, -1 }, { "app", app_bad_utf8, -1 },
        { "app", app_array, -1 }, { "app", app_int_key, -1 },
        { "unseen", unseen_ok, 0 }, { "unseen", unseen_short, -1 }, { "unseen", unseen_neg, -1 },
        { "files", files_fs, 0 }, { "files", files_four, -1 }, { "files", files_fs_int, -1 },
    };
    char err[256];
    struct ftio_batch b = { 0 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = decode_with(cases[i].key, cases[i].fn, &b, err, sizeof err);
        ck_assert_msg(rc == cases[i].expect, "case %zu (%s): rc %d, expected %d (%s)", i,
                      cases[i].key, rc, cases[i].expect, err);
        if (rc == 0 && i == 0) {
            ck_assert(b.h.has_app);
            ck_assert_str_eq(b.h.app.exe, "/a");
            ck_assert_int_eq(b.h.app.uid, 0);
        }
        if (rc == 0 && cases[i].fn == unseen_ok)
            ck_assert(b.h.has_unseen && b.h.unseen_read == 0 && b.h.unseen_write == 99);
        if (rc == 0 && cases[i].fn == files_fs)
            ck_assert_str_eq(b.h.files[0].fs, "xfs:/");
    }
    /* Every truncation of an app batch is a truncation, never an error. */
    struct ftio_batch_header h = std_header();
    h.has_app = true;
    h.app = (struct ftio_app_identity){ .exe = "/e", .args = "00", .name = "n", .uid = 3 };
    h.has_unseen = true;
    struct ftio_wbuf w = { 0 };
    ck_assert_int_eq(ftio_wire_encode(&w, &h, NULL, 0), 0);
    for (size_t len = 0; len < w.len; len++) {
        size_t used;
        ck_assert_int_eq(decode_copy(w.data, len, &b, &used, err, sizeof err), 1);
    }
    ftio_wbuf_free(&w);
    ftio_batch_free(&b);
}
END_TEST

Suite *ftio_test_suite(void)
{
    Suite *s = suite_create("wire");
    FTIO_TCASE(s, "roundtrip", roundtrip_full_header, roundtrip_extremes, encoding_matches_msgpack_c,
               encoding_matches_msgpack_c_random,
               roundtrip_minimal_header, roundtrip_large_and_reuse, back_to_back_batches,
               every_truncation_is_truncation);
    FTIO_TCASE(s, "reject", custom_baseline_and_unknown_keys, wrong_type_for_each_key, missing_keys,
               duplicate_keys_and_column_mismatch, value_checks, column_runs, limits_and_garbage,
               encode_rejects_invalid_input);
    TCase *fz = tcase_create("fuzz");
    tcase_set_timeout(fz, 120);
    tcase_add_loop_test(fz, fuzz_mutations, 0, 5);     /* 5 x 4000 = 20k mutations */
    suite_add_tcase(s, fz);
    FTIO_TCASE(s, "misc", path_hash, names, time_helpers, wall_clock_overflow);
    FTIO_TCASE(s, "optional", roundtrip_app_unseen_fs, app_unseen_fs_checks);
    return s;
}
