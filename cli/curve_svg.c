/* Draws scaling curves as a self-contained SVG a person reads at a glance: two panels sharing a
 * log-2 node axis (throughput on a log axis, efficiency in percent), a legend, the ideal
 * scaling dashed and each turning point ringed and labelled. */
#include "curve_svg.h"
#include "json_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Canvas and plot areas, in SVG user units (pixels). */
#define WIDTH 960
#define HEIGHT 640
#define PLOT_X0 96.0
#define PLOT_X1 700.0
#define TOP_Y0 84.0 /* throughput panel */
#define TOP_Y1 384.0
#define BOT_Y0 420.0 /* efficiency panel */
#define BOT_Y1 570.0
#define LEGEND_X 728.0

/* Okabe-Ito colours: told apart by people with colour-blindness, dark enough on white. */
static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#999933"};
#define N_COLOURS ((int)(sizeof palette / sizeof palette[0]))

/* Beyond the palette, the marker and the line's dash tell curves apart: both step with each
 * round of colours (5 markers and 4 dashes, coprime, so (colour, marker, dash) repeats only
 * after 8 x 20 = 160 curves), so the ninth curve differs from the first along its whole line,
 * not at its points alone. */
enum { MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND, MARK_DOWN, N_MARKERS };
static const char *const dashes[] = {NULL, "10 4", "10 3 2 3", "2 3"};
#define N_DASHES ((int)(sizeof dashes / sizeof dashes[0]))

typedef struct line_style {
    const char *colour;
    int marker;
    const char *dash; /* NULL: solid */
} line_style;

static line_style style_of(int s)
{
    int round = s / N_COLOURS;
    return (line_style){palette[s % N_COLOURS], round % N_MARKERS, dashes[round % N_DASHES]};
}

/* stroke-dasharray="..." with a leading space, or nothing for a solid line */
static const char *dash_attr(const line_style *st, char *buf, size_t len)
{
    if (!st->dash)
        return "";
    snprintf(buf, len, " stroke-dasharray=\"%s\"", st->dash);
    return buf;
}

/* One marker centred at (x, y), filled by the enclosing group; the circle stays first, written
 * as it always was. The others have about the circle's area. */
static void marker(FILE *out, int m, double x, double y)
{
    switch (m) {
    case MARK_SQUARE:
        fprintf(out, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\"/>\n", x - 3.2,
                y - 3.2, x + 3.2, y - 3.2, x + 3.2, y + 3.2, x - 3.2, y + 3.2);
        break;
    case MARK_TRIANGLE:
        fprintf(out, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\"/>\n", x, y - 4.6, x + 4.2,
                y + 2.6, x - 4.2, y + 2.6);
        break;
    case MARK_DIAMOND:
        fprintf(out, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\"/>\n", x, y - 4.4,
                x + 4.4, y, x, y + 4.4, x - 4.4, y);
        break;
    case MARK_DOWN:
        fprintf(out, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\"/>\n", x, y + 4.6, x + 4.2,
                y - 2.6, x - 4.2, y - 2.6);
        break;
    default:
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n", x, y);
    }
}

/* XML 1.0's text, as the header declares it UTF-8: a byte that begins no well-formed UTF-8
 * sequence (a description or a path written in Latin-1) and a character XML forbids (the
 * control characters but tab, line feed and carriage return; U+FFFE, U+FFFF) are written as
 * U+FFFD. Written as they were, they made the whole chart not well-formed, which a browser
 * shows as an error in place of the chart. */
static void xml_text(FILE *out, const char *s)
{
    while (*s) {
        const unsigned char *u = (const unsigned char *)s;
        int n = 1;
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default: {
            n = u[0] >= 0x80 ? utf8_length(u) : 1;
            int noncharacter = n == 3 && u[0] == 0xef && u[1] == 0xbf && u[2] >= 0xbe;
            if (n == 0 || noncharacter || (u[0] < 0x20 && !strchr("\t\n\r", u[0]))) {
                fputs("\xef\xbf\xbd", out); /* U+FFFD */
                n = n ? n : 1;
            } else {
                fwrite(s, 1, (size_t)n, out);
            }
        }
        }
        s += n;
    }
}

static void text(FILE *out, double x, double y, const char *anchor, const char *extra,
                 const char *s)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
            extra ? " " : "", extra ? extra : "");
    xml_text(out, s);
    fputs("</text>\n", out);
}

/* 1500 -> "1.5k", 2000000 -> "2M" */
static const char *tick_label(double v, char *buf, size_t len)
{
    if (v >= 1e6)
        snprintf(buf, len, "%gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, len, "%gk", v / 1e3);
    else
        snprintf(buf, len, "%g", v);
    return buf;
}

typedef struct axes {
    double lx0, lx1; /* log2 of the node range */
    double ly0, ly1; /* log10 of the throughput range */
} axes;

static double x_of(const axes *a, double nodes)
{
    return PLOT_X0 + (log2(nodes) - a->lx0) / (a->lx1 - a->lx0) * (PLOT_X1 - PLOT_X0);
}
static double y_top(const axes *a, double ips)
{
    return TOP_Y1 - (log10(ips) - a->ly0) / (a->ly1 - a->ly0) * (TOP_Y1 - TOP_Y0);
}
static double y_bottom(double efficiency, double top)
{
    return BOT_Y1 - efficiency / top * (BOT_Y1 - BOT_Y0);
}

/* linear scaling from the efficiency's baseline, the first point that fits */
static double ideal(const sm_curve *c, int i)
{
    const sm_curve_point *p0 = &c->points[c->fits_from > 0 ? c->fits_from : 0];
    return p0->images_per_s * c->points[i].layout.nodes / p0->layout.nodes;
}

static axes find_axes(const svg_chart *chart, double *eff_top)
{
    double nmin = INFINITY, nmax = 0, ymin = INFINITY, ymax = 0, emax = 1;
    for (int s = 0; s < chart->n_series; s++) {
        const sm_curve *c = chart->series[s].curve;
        for (int i = 0; i < c->n_points; i++) {
            const sm_curve_point *p = &c->points[i];
            nmin = fmin(nmin, p->layout.nodes);
            nmax = fmax(nmax, p->layout.nodes);
            ymin = fmin(ymin, p->images_per_s);
            ymax = fmax(ymax, fmax(p->images_per_s, ideal(c, i)));
            emax = fmax(emax, p->efficiency);
        }
    }
    axes a;
    /* A quarter doubling of room on each side keeps the markers off the frame. */
    a.lx0 = log2(nmin) - 0.25;
    a.lx1 = log2(nmax) + 0.25;
    a.ly0 = floor(log10(ymin * 0.9) * 4) / 4;
    a.ly1 = ceil(log10(ymax * 1.1) * 4) / 4;
    if (a.ly1 - a.ly0 < 0.5)
        a.ly1 = a.ly0 + 0.5;
    *eff_top = ceil(emax * 100 / 25) * 25; /* percent, a multiple of 25 */
    return a;
}

/* Throughput ticks: 1, 2, 5 x 10^k over up to three decades, else powers of ten. */
static int throughput_ticks(const axes *a, double *ticks, int max)
{
    int n = 0, dense = a->ly1 - a->ly0 <= 3;
    for (double d = floor(a->ly0); d <= a->ly1; d++)
        for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
            double v = (double)m * pow(10, d), ly = log10(v);
            if ((m == 1 || dense) && ly >= a->ly0 - 1e-9 && ly <= a->ly1 + 1e-9 && n < max)
                ticks[n++] = v;
        }
    return n;
}

static void draw_grid(FILE *out, const axes *a, const svg_chart *chart, double eff_top)
{
    char buf[64];
    double ticks[64];
    int n_ticks = throughput_ticks(a, ticks, 64);
    /* node ticks: every power of two in range, and the first and last counts of the curves */
    fputs("<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n", out);
    for (double n = exp2(ceil(a->lx0)); log2(n) <= a->lx1; n *= 2) {
        double x = x_of(a, n);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, TOP_Y0, x,
                TOP_Y1);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, BOT_Y0, x,
                BOT_Y1);
    }
    for (int i = 0; i < n_ticks; i++)
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PLOT_X0,
                y_top(a, ticks[i]), PLOT_X1, y_top(a, ticks[i]));
    for (double e = 0; e <= eff_top; e += 25) {
        double y = y_bottom(e, eff_top);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PLOT_X0, y,
                PLOT_X1, y);
    }
    fputs("</g>\n", out);

    /* frames, tick labels and axis titles */
    fprintf(out,
            "<g fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\">\n"
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n"
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n</g>\n",
            PLOT_X0, TOP_Y0, PLOT_X1 - PLOT_X0, TOP_Y1 - TOP_Y0, PLOT_X0, BOT_Y0, PLOT_X1 - PLOT_X0,
            BOT_Y1 - BOT_Y0);
    fputs("<g class=\"ticks\" font-size=\"12\" fill=\"#333333\">\n", out);
    for (double n = exp2(ceil(a->lx0)); log2(n) <= a->lx1; n *= 2)
        text(out, x_of(a, n), BOT_Y1 + 16, "middle", NULL, tick_label(n, buf, sizeof buf));
    for (int i = 0; i < n_ticks; i++)
        text(out, PLOT_X0 - 6, y_top(a, ticks[i]) + 4, "end", NULL,
             tick_label(ticks[i], buf, sizeof buf));
    for (double e = 0; e <= eff_top; e += 25) {
        snprintf(buf, sizeof buf, "%g%%", e);
        text(out, PLOT_X0 - 6, y_bottom(e, eff_top) + 4, "end", NULL, buf);
    }
    fputs("</g>\n<g class=\"axis-labels\" font-size=\"14\" fill=\"#111111\">\n", out);
    text(out, (PLOT_X0 + PLOT_X1) / 2, BOT_Y1 + 40, "middle", NULL, chart->x_label);
    char rot[96];
    snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.1f %.1f)\"", 28.0, (TOP_Y0 + TOP_Y1) / 2);
    char y_label[128];
    snprintf(y_label, sizeof y_label, "throughput (%.80s, log scale)", chart->y_label);
    text(out, 28, (TOP_Y0 + TOP_Y1) / 2, "middle", rot, y_label);
    snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.1f %.1f)\"", 28.0, (BOT_Y0 + BOT_Y1) / 2);
    text(out, 28, (BOT_Y0 + BOT_Y1) / 2, "middle", rot, "efficiency (%)");
    fputs("</g>\n", out);
}

/* A point that does not fit the device's memory is not drawn: it cannot run. */
static int runs(const sm_curve *c, int i) { return c->points[i].memory.fits != 0; }

static void draw_series(FILE *out, const axes *a, double eff_top, int s, const sm_curve *c)
{
    line_style st = style_of(s);
    char dash[64];
    fprintf(out, "<g class=\"curve\" stroke=\"%s\" fill=\"none\">\n", st.colour);
    const char *dashed = dash_attr(&st, dash, sizeof dash);
    fprintf(out, "<polyline class=\"series\" stroke-width=\"2.5\"%s points=\"", dashed);
    for (int i = 0, n = 0; i < c->n_points; i++)
        if (runs(c, i))
            fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", x_of(a, c->points[i].layout.nodes),
                    y_top(a, c->points[i].images_per_s));
    fprintf(out, "\"/>\n<polyline class=\"efficiency\" stroke-width=\"2.5\"%s points=\"", dashed);
    for (int i = 0, n = 0; i < c->n_points; i++)
        if (runs(c, i))
            fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", x_of(a, c->points[i].layout.nodes),
                    y_bottom(c->points[i].efficiency * 100, eff_top));
    fprintf(out, "\"/>\n</g>\n<g class=\"markers\" fill=\"%s\">\n", st.colour);
    for (int i = 0; i < c->n_points; i++) {
        if (!runs(c, i))
            continue;
        double x = x_of(a, c->points[i].layout.nodes);
        marker(out, st.marker, x, y_top(a, c->points[i].images_per_s));
        marker(out, st.marker, x, y_bottom(c->points[i].efficiency * 100, eff_top));
    }
    fputs("</g>\n", out);
}

/* Ideal scaling from each curve's first point, drawn over all the series in a thin dark dash on
 * a white underlay, so a near-linear curve beneath does not hide it. */
static void draw_ideal(FILE *out, const axes *a, const svg_chart *chart)
{
    fputs("<g class=\"ideal-lines\" fill=\"none\">\n", out);
    for (int s = 0; s < chart->n_series; s++) {
        const sm_curve *c = chart->series[s].curve;
        for (int pass = 0; pass < 2; pass++) {
            fputs(pass ? "<polyline class=\"ideal\" stroke=\"#333333\" stroke-width=\"1.2\" "
                         "stroke-dasharray=\"5 3\" points=\""
                       : "<polyline class=\"ideal-halo\" stroke=\"#ffffff\" "
                         "stroke-width=\"3.6\" stroke-linecap=\"round\" points=\"",
                  out);
            for (int i = 0, n = 0; i < c->n_points; i++)
                if (runs(c, i))
                    fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", x_of(a, c->points[i].layout.nodes),
                            y_top(a, ideal(c, i)));
            fputs("\"/>\n", out);
        }
    }
    fputs("</g>\n", out);
}

/* Label placement works on boxes and segments in the SVG's coordinates; a label's text is
 * taken as 7 px a character wide and 13 px tall at font-size 12 (DejaVu Sans runs about 6.5). */
typedef struct box {
    double x0, y0, x1, y1;
} box;
typedef struct seg {
    double x0, y0, x1, y1;
} seg;

static int boxes_meet(const box *a, const box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Liang-Barsky clipping: whether any part of the segment lies inside the box. */
static int seg_meets_box(const seg *g, const box *b)
{
    double dx = g->x1 - g->x0, dy = g->y1 - g->y0, t0 = 0, t1 = 1;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {g->x0 - b->x0, b->x1 - g->x0, g->y0 - b->y0, b->y1 - g->y0};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return 0;
            continue;
        }
        double t = q[k] / p[k];
        if (p[k] < 0)
            t0 = fmax(t0, t);
        else
            t1 = fmin(t1, t);
        if (t0 > t1)
            return 0;
    }
    return 1;
}

/* The label box of text whose baseline starts (anchor start) or ends (anchor end) at (x, y),
 * with 2 px to spare around it. */
static box label_box(double x, double y, int end_anchor, const char *label)
{
    double w = 7.0 * (double)strlen(label);
    double x0 = end_anchor ? x - w : x;
    return (box){x0 - 2, y - 12, x0 + w + 2, y + 5};
}

typedef struct obstacles {
    seg *segs; /* every series' throughput line */
    int n_segs;
    box *boxes; /* rings and labels already placed */
    int n_boxes;
} obstacles;

static int clear(const obstacles *o, const box *b)
{
    if (b->x0 < PLOT_X0 || b->x1 > PLOT_X1 || b->y0 < TOP_Y0 || b->y1 > TOP_Y1)
        return 0;
    for (int i = 0; i < o->n_segs; i++)
        if (seg_meets_box(&o->segs[i], b))
            return 0;
    for (int i = 0; i < o->n_boxes; i++)
        if (boxes_meet(&o->boxes[i], b))
            return 0;
    return 1;
}

static const char *turning_label(const sm_curve *c, char *buf, size_t len)
{
    int nodes = c->points[c->turning].layout.nodes;
    snprintf(buf, len, "turns at %d node%s", nodes, nodes == 1 ? "" : "s");
    return buf;
}

/* Rings the turning point and labels it at the first place, beside the ring and then stepping
 * further above and below it, where the label crosses no curve and no other label. Returns 0
 * where none is clear: the legend then says it. */
static int draw_turning_point(FILE *out, const axes *a, double eff_top, int s, const sm_curve *c,
                              obstacles *o)
{
    if (c->turning < 0)
        return 1;
    const char *colour = style_of(s).colour;
    const sm_curve_point *p = &c->points[c->turning];
    double x = x_of(a, p->layout.nodes), y = y_top(a, p->images_per_s);
    fprintf(out, "<g class=\"turning-point\" stroke=\"%s\" fill=\"none\">\n", colour);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"1.2\" "
            "stroke-dasharray=\"2 3\"/>\n",
            x, TOP_Y0, x, BOT_Y1);
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" stroke-width=\"2.5\"/>\n", x, y);
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" stroke-width=\"2.5\"/>\n", x,
            y_bottom(p->efficiency * 100, eff_top));
    fputs("</g>\n", out);
    char label[64];
    turning_label(c, label, sizeof label);
    /* the side with more room first; steps of 16 px, below before above */
    int right_first = x <= (PLOT_X0 + PLOT_X1) / 2;
    for (int step = 0; step < 2 * 16 + 1; step++) {
        double dy = 16.0 * ((step + 1) / 2) * (step % 2 ? 1 : -1);
        for (int side = 0; side < 2; side++) {
            int right = side == 0 ? right_first : !right_first;
            double lx = right ? x + 12 : x - 12, ly = y + 4 + dy;
            box b = label_box(lx, ly, !right, label);
            if (!clear(o, &b))
                continue;
            o->boxes[o->n_boxes++] = b;
            /* a white halo keeps it legible over the grid and the ideal lines */
            char style[160];
            snprintf(style, sizeof style,
                     "class=\"turning-label\" font-size=\"12\" fill=\"%s\" stroke=\"#ffffff\" "
                     "stroke-width=\"4\" paint-order=\"stroke\"",
                     colour);
            text(out, lx, ly, right ? "start" : "end", style, label);
            return 1;
        }
    }
    return 0;
}

/* in_legend[s]: the turning point of series s found no clear place by its ring, so its label
 * goes under the legend entry. */
static void draw_legend(FILE *out, const svg_chart *chart, const int *in_legend)
{
    char buf[96], dash[64];
    double y = TOP_Y0 + 6;
    fputs("<g class=\"legend\" font-size=\"13\" fill=\"#111111\">\n", out);
    for (int s = 0; s < chart->n_series; s++, y += 22) {
        line_style st = style_of(s);
        fprintf(out,
                "<g class=\"legend-entry\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n<g fill=\"%s\">",
                LEGEND_X, y, LEGEND_X + 28, y, st.colour, dash_attr(&st, dash, sizeof dash),
                st.colour);
        marker(out, st.marker, LEGEND_X + 14, y);
        fputs("</g></g>\n", out);
        text(out, LEGEND_X + 36, y + 4.5, "start", NULL, chart->series[s].label);
        if (in_legend[s]) {
            char style[96];
            snprintf(style, sizeof style, "class=\"turning-label\" font-size=\"12\" fill=\"%s\"",
                     st.colour);
            text(out, LEGEND_X + 36, y + 20, "start", style,
                 turning_label(chart->series[s].curve, buf, sizeof buf));
            y += 15;
        }
    }
    y += 8;
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ffffff\" "
            "stroke-width=\"3.6\"/>\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#333333\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>\n",
            LEGEND_X, y, LEGEND_X + 28, y, LEGEND_X, y, LEGEND_X + 28, y);
    text(out, LEGEND_X + 36, y + 4.5, "start", NULL, "ideal (linear) scaling");
    y += 24;
    int turns = 0, last = 0;
    for (int s = 0; s < chart->n_series; s++) {
        const sm_curve *c = chart->series[s].curve;
        turns |= c->turning >= 0;
        /* judged up to the last node count that fits, not past it into points that do not run */
        int to = sm_curve_fits_to(c);
        if (to >= 0 && c->points[to].layout.nodes > last)
            last = c->points[to].layout.nodes;
    }
    fprintf(out,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" stroke=\"#555555\" stroke-width=\"2.5\" "
            "fill=\"none\"/>\n",
            LEGEND_X + 14, y);
    text(out, LEGEND_X + 36, y + 4.5, "start", NULL, "turning point: one more");
    snprintf(buf, sizeof buf, "doubling gains < %g%%", chart->threshold * 100);
    text(out, LEGEND_X + 36, y + 20.5, "start", NULL, buf);
    if (!turns) {
        snprintf(buf, sizeof buf, last ? "(none up to %d node%s)" : "(none: no point fits)", last,
                 last == 1 ? "" : "s");
        text(out, LEGEND_X + 36, y + 36.5, "start", NULL, buf);
        y += 16;
    }
    int oom = 0;
    for (int s = 0; s < chart->n_series; s++)
        for (int i = 0; i < chart->series[s].curve->n_points; i++)
            oom += !runs(chart->series[s].curve, i);
    if (oom) {
        snprintf(buf, sizeof buf, "%d point%s not drawn: more memory", oom, oom == 1 ? "" : "s");
        text(out, LEGEND_X, y + 44.5, "start", "fill=\"#b00020\"", buf);
        text(out, LEGEND_X, y + 60.5, "start", "fill=\"#b00020\"", "than the device has (oom)");
    }
    fputs("</g>\n", out);
}

void curve_svg_write(FILE *out, const svg_chart *chart)
{
    double eff_top;
    axes a = find_axes(chart, &eff_top);
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, "
            "sans-serif\">\n<title>",
            WIDTH, HEIGHT, WIDTH, HEIGHT);
    xml_text(out, chart->title);
    fprintf(out, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", WIDTH, HEIGHT);
    text(out, PLOT_X0, 30, "start", "font-size=\"18\" font-weight=\"bold\" fill=\"#111111\"",
         chart->title);
    text(out, PLOT_X0, 52, "start", "font-size=\"12\" fill=\"#555555\"", chart->subtitle);
    draw_grid(out, &a, chart, eff_top);
    for (int s = 0; s < chart->n_series; s++)
        draw_series(out, &a, eff_top, s, chart->series[s].curve);
    draw_ideal(out, &a, chart);

    /* what a turning point's label must keep off: every throughput line and every ring */
    int n_points = 0;
    for (int s = 0; s < chart->n_series; s++)
        n_points += chart->series[s].curve->n_points;
    obstacles o = {calloc((size_t)n_points + 1, sizeof(seg)), 0,
                   calloc(2 * (size_t)chart->n_series + 1, sizeof(box)), 0};
    int *in_legend = calloc((size_t)chart->n_series + 1, sizeof(int));
    if (!o.segs || !o.boxes || !in_legend) {
        fputs("</svg>\n", out); /* out of memory: a chart without its labels */
        free(o.segs);
        free(o.boxes);
        free(in_legend);
        return;
    }
    for (int s = 0; s < chart->n_series; s++) {
        const sm_curve *c = chart->series[s].curve;
        double px = 0, py = 0;
        for (int i = 0, n = 0; i < c->n_points; i++) {
            if (!runs(c, i))
                continue;
            double x = x_of(&a, c->points[i].layout.nodes),
                   y = y_top(&a, c->points[i].images_per_s);
            if (n++)
                o.segs[o.n_segs++] = (seg){px, py, x, y};
            px = x;
            py = y;
        }
        if (c->turning >= 0) {
            const sm_curve_point *p = &c->points[c->turning];
            double x = x_of(&a, p->layout.nodes), y = y_top(&a, p->images_per_s);
            o.boxes[o.n_boxes++] = (box){x - 9.5, y - 9.5, x + 9.5, y + 9.5};
        }
    }
    for (int s = 0; s < chart->n_series; s++)
        in_legend[s] = !draw_turning_point(out, &a, eff_top, s, chart->series[s].curve, &o);
    draw_legend(out, chart, in_legend);
    fputs("</svg>\n", out);
    free(o.segs);
    free(o.boxes);
    free(in_legend);
}
