/* SPDX-License-Identifier: BSD-3-Clause */
/* test_plot.c -- Check tests of predictor/plot/'s pieces that the browser
 * test cannot see one by one: human units, escaping of hostile text (job ids
 * come from the traced environment), ticks on round numbers, the output file
 * that is whole or absent, CSV quoting, and a page of a hostile job id.
 */
#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "plot/plot.h"
#include "plot/svg.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    ck_assert(fread(s, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    return s;
}

/* Files in dir whose name contains `part`. */
static int count_files(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    ck_assert(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

/* What a test writes to a FILE *, kept in memory: mem_open, write to m.f,
 * then mem_text closes the stream and gives the text (freed by mem_free). */
struct mem {
    char *text;
    size_t len;
    FILE *f;
};

static FILE *mem_open(struct mem *m)
{
    m->text = NULL;
    m->len = 0;
    m->f = open_memstream(&m->text, &m->len);
    ck_assert_ptr_nonnull(m->f);
    return m->f;
}

static const char *mem_text(struct mem *m)
{
    fclose(m->f);
    return m->text;
}

/* A private directory /tmp/ftio-plot-test.XXXXXX for a test's files, and
 * path = dir/name; dir_remove takes it away with all it holds. */
static void dir_make(char dir[static 32], char path[static 128], const char *name)
{
    strcpy(dir, "/tmp/ftio-plot-test.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, 128, "%s/%s", dir, name);
}

static void dir_remove(const char *dir)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* text holds every string of `has` and none of `lacks` (NULL-terminated). */
static void assert_text(const char *text, const char *const has[], const char *const lacks[])
{
    for (size_t i = 0; has[i]; i++)
        ck_assert_msg(strstr(text, has[i]) != NULL, "no %s", has[i]);
    for (size_t i = 0; lacks[i]; i++)
        ck_assert_msg(strstr(text, lacks[i]) == NULL, "found %s", lacks[i]);
}

START_TEST(human_units)
{
    static const struct { double v; enum svg_unit u; const char *want; } cases[] = {
        { 268435456, SVG_BYTES, "256 MiB" },
        { 1536, SVG_BYTES, "1.5 KiB" },
        { 1000, SVG_BYTES, "1000 B" },
        { 1.5 * 1073741824.0, SVG_BYTES_PER_S, "1.5 GiB/s" },
        { -3.87e-7, SVG_BYTES_PER_S, "0 B/s" },
        { 0.192, SVG_SECONDS, "192 ms" },
        { 2.211, SVG_SECONDS, "2.21 s" },
        { 900, SVG_SECONDS, "15 min" },
        { 7200 * 3, SVG_SECONDS, "6 h" },
        { 0.25, SVG_HERTZ, "0.25 Hz" },
        { NAN, SVG_BYTES, "n/a" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        svg_human(buf, sizeof buf, cases[i].v, cases[i].u);
        ck_assert_str_eq(buf, cases[i].want);
    }
}
END_TEST

START_TEST(escaping)
{
    struct mem m;
    svg_escape(mem_open(&m), "<script>a&\"b'\x01");
    ck_assert_str_eq(mem_text(&m), "&lt;script&gt;a&amp;&quot;b&#39;?");
    free(m.text);
}
END_TEST

/* Tick labels of a 0 .. 1.8 GiB/s axis: GiB/s, 0.0 0.5 1.0 1.5 */
START_TEST(ticks)
{
    struct mem m;
    struct svg_chart c;
    svg_begin(&c, mem_open(&m), "t", "t", 960, 300, 0, 22.5, 0, 1.8 * 1073741824.0);
    svg_axes(&c, SVG_SECONDS, "time", 0, SVG_BYTES_PER_S, "bandwidth");
    svg_end(&c);
    assert_text(mem_text(&m),
                (const char *const[]){ ">bandwidth (GiB/s)<", ">time (s)<", "text-anchor=\"end\">0.0<",
                                       "text-anchor=\"end\">1.5<", "text-anchor=\"middle\">20<", NULL },
                (const char *const[]){ "text-anchor=\"end\">2.0<", NULL });
    free(m.text);
}
END_TEST

START_TEST(output_whole_or_absent)
{
    char dir[32], path[128], err[256];
    dir_make(dir, path, "out.csv");
    struct ftio_plot_output o;
    ck_assert_int_eq(ftio_plot_output_open(&o, path, err, sizeof err), 0);
    fputs("half", o.f);
    ftio_plot_output_discard(&o);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(count_files(dir, ".tmp."), 0);
    ck_assert_int_eq(ftio_plot_output_open(&o, path, err, sizeof err), 0);
    fputs("whole\n", o.f);
    ck_assert_int_eq(access(path, F_OK), -1);            /* not before the commit */
    ck_assert_int_eq(ftio_plot_output_commit(&o, err, sizeof err), 0);
    char *s = slurp(path);
    ck_assert_str_eq(s, "whole\n");
    free(s);
    ck_assert_int_eq(ftio_plot_output_open(&o, dir, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is a directory"));
    snprintf(path, sizeof path, "%s/no/such/x.html", dir);
    ck_assert_int_eq(ftio_plot_output_open(&o, path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot write"));
    dir_remove(dir);
}
END_TEST

START_TEST(csv_quoting)
{
    double v[] = { 1.5, 2.5 };
    struct ftio_samples x = { .n = 2, .fs = 2, .t0 = 10, .x = v };
    struct mem m;
    ftio_plot_csv_signal_header(mem_open(&m));
    ck_assert_int_eq(ftio_plot_csv_signal(m.f, "a,\"b\"\n", "write", &x), 0);
    ck_assert_str_eq(mem_text(&m), "job,mode,time_s,bandwidth_B_per_s\n"
                           "\"a,\"\"b\"\"\n\",write,10,1.5\n"
                           "\"a,\"\"b\"\"\n\",write,10.5,2.5\n");
    free(m.text);
}
END_TEST

/* A page for a job id made of markup: escaped everywhere, nothing injected. */
START_TEST(hostile_job_page)
{
    char dir[32], path[128], err[256];
    dir_make(dir, path, "p.html");
    struct ftio_plot_page *p = ftio_plot_page_open(path, "<b>t</b>", "s&s", err, sizeof err);
    ck_assert_ptr_nonnull(p);
    double v[40];
    for (int k = 0; k < 40; k++)
        v[k] = k % 10 < 2 ? 1e6 : 0;
    struct ftio_samples x = { .n = 40, .fs = 10, .t0 = 0, .t1 = 4, .x = v };
    struct ftio_plot_history h = { 0 };
    struct ftio_plot_step st = { .t = 1, .period = 1, .confidence = 0.9, .cls = FTIO_CLASS_PERIODIC,
                                 .last_error = -0.1, .phase_bytes = 2e5, .bytes_total = NAN };
    ck_assert_int_eq(ftio_plot_history_add(&h, &st), 0);
    st.t = 2;
    st.period = NAN;
    st.cls = FTIO_CLASS_NONE;
    ck_assert_int_eq(ftio_plot_history_add(&h, &st), 0);
    struct ftio_plot_section s = { .job = "<script>alert(1)</script>", .mode = "write\"",
                                   .samples = &x, .history = &h, .p_periodic = NAN };
    ck_assert_int_eq(ftio_plot_page_add(p, &s), 0);
    ck_assert_int_eq(ftio_plot_page_close(p, err, sizeof err), 0);
    char *html = slurp(path);
    assert_text(html,
                (const char *const[]){ "job &lt;script&gt;alert(1)&lt;/script&gt;",
                                       "data-mode=\"write&quot;\"", "class=\"signal\"",
                                       "history-point none", NULL },
                (const char *const[]){ "<script", "<b>", NULL });
    free(html);
    ftio_plot_history_free(&h);
    dir_remove(dir);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("plot", "plot", NULL,
                      human_units, escaping, ticks, output_whole_or_absent, csv_quoting,
                      hostile_job_page);
}
