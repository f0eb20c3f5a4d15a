/* SPDX-License-Identifier: BSD-3-Clause */
/* svg.h -- the tiny SVG writer behind ftio's pictures (predictor/plot/,
 * internal to it): a chart is a rectangle of data coordinates mapped onto
 * pixels, with axes whose ticks fall on round numbers of a human unit
 * (KiB/s, MiB, ms, min ...), and a few primitives (path, rect, line, text)
 * that escape what they print.  plot_page.c lays charts out into a page.
 */
#ifndef FTIO_PLOT_SVG_H
#define FTIO_PLOT_SVG_H

#include <stddef.h>
#include <stdio.h>

/* What an axis counts; the unit prefix is picked from the axis' range. */
enum svg_unit {
    SVG_PLAIN,        /* a number */
    SVG_SECONDS,      /* s, or ms / min / h when the range calls for it */
    SVG_BYTES,        /* B, KiB, MiB, GiB, TiB */
    SVG_BYTES_PER_S,  /* B/s, KiB/s ... */
    SVG_HERTZ,        /* Hz, mHz */
};

struct svg_chart {
    FILE  *f;
    double width, height;                  /* px, the whole SVG */
    double left, right, top, bottom;       /* px, the plot area's margins */
    double x0, x1, y0, y1;                 /* data range shown */
};

/* Human form of v in unit u ("1.50 MiB/s", "250 ms", "0.25 Hz"). */
void svg_human(char *buf, size_t len, double v, enum svg_unit u);

/* Writes <svg ...> with class cls and an accessible title; the data range
 * must be non-empty (callers widen degenerate ranges, svg_range()). */
void svg_begin(struct svg_chart *c, FILE *f, const char *cls, const char *title,
               double width, double height, double x0, double x1, double y0, double y1);
void svg_end(struct svg_chart *c);
/* Widen [*lo, *hi] when empty or not finite so that a chart can be drawn. */
void svg_range(double *lo, double *hi);

/* Pixel coordinates of data coordinates (clamped a little outside the plot
 * area so that nothing is drawn far off). */
double svg_x(const struct svg_chart *c, double x);
double svg_y(const struct svg_chart *c, double y);

/* Grid, ticks and tick labels of both axes in their units, and the axis
 * titles (the unit's symbol is appended: "time (s)"; xtitle NULL: none,
 * for charts stacked on one time axis).  x_offset is
 * subtracted from x tick values before printing (times after an origin). */
void svg_axes(struct svg_chart *c, enum svg_unit xu, const char *xtitle, double x_offset,
              enum svg_unit yu, const char *ytitle);

/* Primitives in data coordinates; cls names the element for CSS and tests. */
void svg_rect(const struct svg_chart *c, const char *cls, double x0, double x1, double y0,
              double y1, const char *tooltip);
void svg_hline(const struct svg_chart *c, const char *cls, double y, const char *tooltip);
void svg_vline(const struct svg_chart *c, const char *cls, double x, const char *tooltip);
void svg_circle(const struct svg_chart *c, const char *cls, double x, double y, double r_px,
                const char *tooltip);
/* Text at data coordinates, moved by (dx, dy) px; anchor start|middle|end. */
void svg_text(const struct svg_chart *c, const char *cls, double x, double y, double dx,
              double dy, const char *anchor, const char *text);

/* A path built point by point (M for the first, L after), in data
 * coordinates; points closer than a tenth of a pixel to the previous are
 * skipped.  svg_path_break() starts a new subpath (a gap). */
struct svg_path {
    const struct svg_chart *c;
    int    started;
    double px, py;
};
void svg_path_begin(struct svg_path *p, const struct svg_chart *c, const char *cls);
void svg_path_to(struct svg_path *p, double x, double y);
void svg_path_break(struct svg_path *p);
void svg_path_end(struct svg_path *p);

/* Text escaped for HTML / XML content and attribute values. */
void svg_escape(FILE *f, const char *s);

#endif
