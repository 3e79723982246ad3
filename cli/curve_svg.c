/* Draws scaling curves as a self-contained SVG a person reads at a glance: two panels sharing a
 * log-2 node axis (throughput on a log axis, efficiency in percent), a legend, the ideal
 * scaling dashed and each turning point ringed and labelled. */
#include "curve_svg.h"

#include <math.h>
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

static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
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
        default:
            fputc(*s, out);
        }
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

static double ideal(const sm_curve *c, int i)
{
    const sm_curve_point *p0 = &c->points[0];
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
    text(out, 28, (TOP_Y0 + TOP_Y1) / 2, "middle", rot, "throughput (images/s, log scale)");
    snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.1f %.1f)\"", 28.0, (BOT_Y0 + BOT_Y1) / 2);
    text(out, 28, (BOT_Y0 + BOT_Y1) / 2, "middle", rot, "efficiency (%)");
    fputs("</g>\n", out);
}

/* A point that does not fit the device's memory is not drawn: it cannot run. */
static int runs(const sm_curve *c, int i) { return c->points[i].memory.fits != 0; }

static void draw_series(FILE *out, const axes *a, double eff_top, int s, const sm_curve *c)
{
    const char *colour = palette[s % N_COLOURS];
    fprintf(out, "<g class=\"curve\" stroke=\"%s\" fill=\"none\">\n", colour);
    /* ideal scaling from the first point */
    fprintf(out, "<polyline class=\"ideal\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" "
                 "opacity=\"0.6\" points=\"");
    for (int i = 0, n = 0; i < c->n_points; i++)
        if (runs(c, i))
            fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", x_of(a, c->points[i].layout.nodes),
                    y_top(a, ideal(c, i)));
    fputs("\"/>\n<polyline class=\"series\" stroke-width=\"2.5\" points=\"", out);
    for (int i = 0, n = 0; i < c->n_points; i++)
        if (runs(c, i))
            fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", x_of(a, c->points[i].layout.nodes),
                    y_top(a, c->points[i].images_per_s));
    fputs("\"/>\n<polyline class=\"efficiency\" stroke-width=\"2.5\" points=\"", out);
    for (int i = 0, n = 0; i < c->n_points; i++)
        if (runs(c, i))
            fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", x_of(a, c->points[i].layout.nodes),
                    y_bottom(c->points[i].efficiency * 100, eff_top));
    fprintf(out, "\"/>\n</g>\n<g fill=\"%s\">\n", colour);
    for (int i = 0; i < c->n_points; i++) {
        if (!runs(c, i))
            continue;
        double x = x_of(a, c->points[i].layout.nodes);
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n", x,
                y_top(a, c->points[i].images_per_s));
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n", x,
                y_bottom(c->points[i].efficiency * 100, eff_top));
    }
    fputs("</g>\n", out);
}

static void draw_turning_point(FILE *out, const axes *a, double eff_top, int s, const sm_curve *c)
{
    if (c->turning < 0)
        return;
    const char *colour = palette[s % N_COLOURS];
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
    snprintf(label, sizeof label, "turns at %d node%s", p->layout.nodes,
             p->layout.nodes == 1 ? "" : "s");
    /* beside the ring, on the side with more room, staggered so that the labels of several
     * curves do not overlap; a white halo keeps it legible over lines */
    char style[160];
    snprintf(style, sizeof style,
             "font-size=\"12\" fill=\"%s\" stroke=\"#ffffff\" "
             "stroke-width=\"4\" paint-order=\"stroke\"",
             colour);
    int right_half = x > (PLOT_X0 + PLOT_X1) / 2;
    double ly = fmin(y + 26 + 15.0 * s, TOP_Y1 - 6);
    text(out, right_half ? x - 12 : x + 12, ly, right_half ? "end" : "start", style, label);
}

static void draw_legend(FILE *out, const svg_chart *chart)
{
    char buf[96];
    double y = TOP_Y0 + 6;
    fputs("<g class=\"legend\" font-size=\"13\" fill=\"#111111\">\n", out);
    for (int s = 0; s < chart->n_series; s++, y += 22) {
        const char *colour = palette[s % N_COLOURS];
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2.5\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
                "fill=\"%s\"/>\n",
                LEGEND_X, y, LEGEND_X + 28, y, colour, LEGEND_X + 14, y, colour);
        text(out, LEGEND_X + 36, y + 4.5, "start", NULL, chart->series[s].label);
    }
    y += 8;
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555555\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
            LEGEND_X, y, LEGEND_X + 28, y);
    text(out, LEGEND_X + 36, y + 4.5, "start", NULL, "ideal (linear) scaling");
    y += 24;
    int turns = 0, last = 0;
    for (int s = 0; s < chart->n_series; s++) {
        const sm_curve *c = chart->series[s].curve;
        turns |= c->turning >= 0;
        if (c->n_points && c->points[c->n_points - 1].layout.nodes > last)
            last = c->points[c->n_points - 1].layout.nodes;
    }
    fprintf(out,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" stroke=\"#555555\" stroke-width=\"2.5\" "
            "fill=\"none\"/>\n",
            LEGEND_X + 14, y);
    text(out, LEGEND_X + 36, y + 4.5, "start", NULL, "turning point: one more");
    snprintf(buf, sizeof buf, "doubling gains < %g%%", chart->threshold * 100);
    text(out, LEGEND_X + 36, y + 20.5, "start", NULL, buf);
    if (!turns) {
        snprintf(buf, sizeof buf, "(none up to %d nodes)", last);
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
    for (int s = 0; s < chart->n_series; s++)
        draw_turning_point(out, &a, eff_top, s, chart->series[s].curve);
    draw_legend(out, chart);
    fputs("</svg>\n", out);
}
