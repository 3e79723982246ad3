/* Scaling curves as an SVG chart (curve_svg.c): throughput on a log axis above, scaling
 * efficiency below, nodes on a log-2 axis, one line per curve, ideal scaling dashed, the
 * turning points ringed. */
#ifndef SCALEMETER_CLI_CURVE_SVG_H
#define SCALEMETER_CLI_CURVE_SVG_H

#include <stdio.h>

#include "scalemeter/curve.h"

typedef struct svg_series {
    const char *label; /* legend text: "resnet50, batch 64" */
    const sm_curve *curve;
} svg_series;

typedef struct svg_chart {
    const char *title;
    const char *subtitle;
    const char *x_label; /* "nodes (8 devices each)" */
    const char *y_label; /* the throughput's unit: "images/s" */
    double threshold;    /* of the turning points, for the legend */
    const svg_series *series;
    int n_series;
} svg_chart;

void curve_svg_write(FILE *out, const svg_chart *chart);

#endif
