/* SPDX-License-Identifier: BSD-3-Clause */
/* svg.c -- the tiny SVG writer of predictor/plot/ (svg.h): data-to-pixel
 * mapping, axes with ticks on round numbers of a human unit, primitives and
 * escaping.  Coordinates are printed with one decimal: a tenth of a pixel is
 * finer than any screen, and keeps pages of 10^5 points small.
 */
#include <math.h>
#include <string.h>
#include "plot/svg.h"
#include "units.h"

void svg_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':  fputs("&amp;", f); break;
        case '<':  fputs("&lt;", f); break;
        case '>':  fputs("&gt;", f); break;
        case '"':  fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* Control characters have no place in XML 1.0 text. */
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputc('?', f);
            else
                fputc(*s, f);
        }
    }
}

/* The scale of a unit for values up to some magnitude: the divisor and the
 * symbol printed after the numbers ("MiB/s"). */
struct scale {
    double div;
    char   sym[16];
};

/* The scale for values up to `mag` (the largest magnitude on the axis);
 * bytes on the one binary ladder of common/units.h. */
static void unit_scale(enum svg_unit u, double mag, struct scale *s)
{
    const char *sym = "";
    s->div = 1;
    if (!isfinite(mag))
        mag = 0;
    switch (u) {
    case SVG_BYTES:
    case SVG_BYTES_PER_S:
        snprintf(s->sym, sizeof s->sym, "%s%s", ftio_byte_unit(mag, &s->div),
                 u == SVG_BYTES_PER_S ? "/s" : "");
        return;
    case SVG_SECONDS:
        if (mag > 0 && mag < 1)          { s->div = 1e-3;  sym = "ms"; }
        else if (mag < 600)              { s->div = 1;     sym = "s"; }
        else if (mag < 3 * 3600)         { s->div = 60;    sym = "min"; }
        else                             { s->div = 3600;  sym = "h"; }
        break;
    case SVG_HERTZ:
        sym = "Hz";
        break;
    case SVG_PLAIN:
        break;
    }
    snprintf(s->sym, sizeof s->sym, "%s", sym);
}

void svg_human(char *buf, size_t len, double v, enum svg_unit u)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "n/a");
        return;
    }
    struct scale sc;
    if ((u == SVG_BYTES || u == SVG_BYTES_PER_S) && fabs(v) < 0.5)
        v = 0;                   /* rounding residue of a volume, not a byte */
    unit_scale(u, fabs(v), &sc);
    double s = v / sc.div;
    snprintf(buf, len, fabs(s) >= 1000 ? "%.4g%s%s" : "%.3g%s%s", s, sc.sym[0] ? " " : "", sc.sym);
}

void svg_range(double *lo, double *hi)
{
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    }
    if (*hi < *lo) {
        double t = *lo;
        *lo = *hi;
        *hi = t;
    }
    if (*hi - *lo <= 1e-12 * fmax(1, fabs(*hi))) {
        double pad = fabs(*hi) > 0 ? 0.1 * fabs(*hi) : 1;
        *lo -= pad;
        *hi += pad;
    }
}

void svg_begin(struct svg_chart *c, FILE *f, const char *cls, const char *title,
               double width, double height, double x0, double x1, double y0, double y1)
{
    svg_range(&x0, &x1);
    svg_range(&y0, &y1);
    *c = (struct svg_chart){ .f = f, .width = width, .height = height, .left = 78, .right = 16,
                             .top = 12, .bottom = 46, .x0 = x0, .x1 = x1, .y0 = y0, .y1 = y1 };
    fprintf(f, "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>",
            cls, width, height, width, height);
    svg_escape(f, title);
    fputs("</title>\n", f);
}

void svg_end(struct svg_chart *c)
{
    fprintf(c->f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            c->left, c->top, c->width - c->left - c->right, c->height - c->top - c->bottom);
    fputs("</svg>\n", c->f);
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

double svg_x(const struct svg_chart *c, double x)
{
    double w = c->width - c->left - c->right;
    double px = c->left + (x - c->x0) / (c->x1 - c->x0) * w;
    return clampd(isfinite(px) ? px : c->left, c->left - 2, c->width - c->right + 2);
}

double svg_y(const struct svg_chart *c, double y)
{
    double h = c->height - c->top - c->bottom;
    double py = c->top + h - (y - c->y0) / (c->y1 - c->y0) * h;
    return clampd(isfinite(py) ? py : c->top + h, c->top - 2, c->height - c->bottom + 2);
}

/* A round step (1, 2 or 5 x 10^k) giving about `want` intervals over r. */
static double nice_step(double r, int want)
{
    double raw = r / (want > 0 ? want : 1);
    double mag = pow(10, floor(log10(raw)));
    double n = raw / mag;
    return (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10) * mag;
}

/* Decimals needed to print multiples of step distinctly. */
static int decimals(double step)
{
    int d = 0;
    while (d < 9 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d))
        d++;
    return d;
}

/* Ticks of one axis: [lo, hi] shown, `off` subtracted for printing, `want`
 * intervals; calls back with the data value and its label. */
static void axis_ticks(const struct svg_chart *c, int vertical, double lo, double hi, double off,
                       enum svg_unit u, int want, struct scale *sc)
{
    double mag = fmax(fabs(lo - off), fabs(hi - off));
    /* Times: the unit follows the span (a zoom on the 83rd minute counts
     * seconds), milliseconds only for times below a second. */
    if (u == SVG_SECONDS && mag >= 1)
        mag = fmax(1, hi - lo);
    unit_scale(u, mag, sc);
    double div = sc->div, slo = (lo - off) / div, shi = (hi - off) / div;
    double step = nice_step(shi - slo, want);
    int dec = decimals(step);
    FILE *f = c->f;
    double first = ceil(slo / step - 1e-9) * step;
    for (int i = 0; i < 64; i++) {
        double s = first + i * step;
        if (s > shi + 1e-9 * step)
            break;
        double v = s * div + off;
        char label[48];
        snprintf(label, sizeof label, "%.*f", dec, fabs(s) < 1e-9 * step ? 0.0 : s);
        if (vertical) {
            double y = svg_y(c, v);
            fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    c->left, c->width - c->right, y, y, c->left - 6, y + 4, label);
        } else {
            double x = svg_x(c, v);
            fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    x, x, c->top, c->height - c->bottom, x, c->height - c->bottom + 16, label);
        }
    }
}

void svg_axes(struct svg_chart *c, enum svg_unit xu, const char *xtitle, double x_offset,
              enum svg_unit yu, const char *ytitle)
{
    FILE *f = c->f;
    struct scale xs, ys;
    double w = c->width - c->left - c->right, h = c->height - c->top - c->bottom;
    axis_ticks(c, 0, c->x0, c->x1, x_offset, xu, (int)fmax(2, w / 90), &xs);
    axis_ticks(c, 1, c->y0, c->y1, 0, yu, (int)fmax(3, h / 45), &ys);
    if (xtitle) {
        fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                c->left + w / 2, c->height - 8);
        svg_escape(f, xtitle);
        if (xs.sym[0])
            fprintf(f, " (%s)", xs.sym);
        fputs("</text>\n", f);
    }
    fprintf(f, "<text class=\"axis-title\" transform=\"translate(16 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">", c->top + h / 2);
    svg_escape(f, ytitle);
    if (ys.sym[0])
        fprintf(f, " (%s)", ys.sym);
    fputs("</text>\n", f);
}

static void tooltip_and_close(FILE *f, const char *tooltip, const char *tag)
{
    if (tooltip && *tooltip) {
        fputs("><title>", f);
        svg_escape(f, tooltip);
        fprintf(f, "</title></%s>\n", tag);
    } else {
        fputs("/>\n", f);
    }
}

void svg_rect(const struct svg_chart *c, const char *cls, double x0, double x1, double y0,
              double y1, const char *tooltip)
{
    double px0 = svg_x(c, x0), px1 = svg_x(c, x1), py0 = svg_y(c, y1), py1 = svg_y(c, y0);
    if (px1 - px0 < 1) {             /* keep even a short phase visible */
        double mid = (px0 + px1) / 2;
        px0 = mid - 0.5;
        px1 = mid + 0.5;
    }
    fprintf(c->f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
            cls, px0, py0, px1 - px0, fmax(0, py1 - py0));
    tooltip_and_close(c->f, tooltip, "rect");
}

void svg_hline(const struct svg_chart *c, const char *cls, double y, const char *tooltip)
{
    double py = svg_y(c, y);
    fprintf(c->f, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"", cls,
            c->left, c->width - c->right, py, py);
    tooltip_and_close(c->f, tooltip, "line");
}

void svg_vline(const struct svg_chart *c, const char *cls, double x, const char *tooltip)
{
    double px = svg_x(c, x);
    fprintf(c->f, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"", cls, px, px,
            c->top, c->height - c->bottom);
    tooltip_and_close(c->f, tooltip, "line");
}

void svg_circle(const struct svg_chart *c, const char *cls, double x, double y, double r_px,
                const char *tooltip)
{
    fprintf(c->f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", cls, svg_x(c, x),
            svg_y(c, y), r_px);
    tooltip_and_close(c->f, tooltip, "circle");
}

void svg_text(const struct svg_chart *c, const char *cls, double x, double y, double dx,
              double dy, const char *anchor, const char *text)
{
    fprintf(c->f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls,
            svg_x(c, x) + dx, svg_y(c, y) + dy, anchor);
    svg_escape(c->f, text);
    fputs("</text>\n", c->f);
}

void svg_path_begin(struct svg_path *p, const struct svg_chart *c, const char *cls)
{
    *p = (struct svg_path){ .c = c };
    fprintf(c->f, "<path class=\"%s\" d=\"", cls);
}

void svg_path_to(struct svg_path *p, double x, double y)
{
    double px = svg_x(p->c, x), py = svg_y(p->c, y);
    if (p->started && fabs(px - p->px) < 0.1 && fabs(py - p->py) < 0.1)
        return;
    fprintf(p->c->f, "%c%.1f %.1f", p->started ? 'L' : 'M', px, py);
    p->started = 1;
    p->px = px;
    p->py = py;
}

void svg_path_break(struct svg_path *p)
{
    p->started = 0;
}

void svg_path_end(struct svg_path *p)
{
    fputs("\"/>\n", p->c->f);
}
