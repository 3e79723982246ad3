/* The columns of a predicted point, as one table {name, unit, JSON key, getter, format}: curve
 * writes a row per point, predict its one point, with the same header for the same options. */
#ifndef SCALEMETER_CLI_POINT_COLUMNS_H
#define SCALEMETER_CLI_POINT_COLUMNS_H

#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"
#include "scalemeter/comm.h"
#include "scalemeter/curve.h"
#include "scalemeter/predict.h"

/* One point as its columns read it. */
typedef struct point_view {
    const char *model; /* as the user named it */
    const sm_network *net;
    const sm_predictor *pred;
    const sm_curve_point *p;
    int turning_nodes;               /* the curve's turning point; 0: none */
    int64_t dataset;                 /* samples of an epoch of this network; 0: none known */
    int64_t tokens, epochs;          /* --tokens, --epochs; 0: not given */
    int tells_allreduce;             /* a description's all-reduce is behind the predictor */
    sm_allreduce_estimate allreduce; /* one bucket's; algorithm "none": nothing sent */
    int64_t max_batch;               /* predict --max-batch's answer; -1: not asked */
    double sample_flops;             /* of one sample's step (model_sample_flops): mfu's */
} point_view;

/* The optional groups of columns an output has, decided once over all its points, so that
 * every row has the header's columns. */
enum {
    COLS_EPOCHS = 1,    /* --epochs: epochs, t_train */
    COLS_ENERGY = 2,    /* a calibration with energy: e_*_j, power_w */
    COLS_ALLREDUCE = 4, /* a description's all-reduce: allreduce_algorithm, _protocol */
    COLS_SEQUENCE = 8,  /* a sequence network: tokens, tokens_per_s */
    COLS_MAX_BATCH = 16 /* predict --max-batch: max_batch */
};

typedef enum { CELL_EMPTY, CELL_INT, CELL_REAL, CELL_TEXT } cell_kind;
typedef struct cell {
    cell_kind kind;
    int64_t i;
    double x; /* a non-finite real is empty (CSV) or null (JSON) */
    const char *s;
} cell;

typedef struct point_column {
    const char *name;     /* the CSV header's */
    const char *unit;     /* of the value: s, 1/s, J, W, B; "" for counts and names */
    const char *json_key; /* in a point's JSON object; NULL: said otherwise there */
    unsigned when;        /* 0: always; else the COLS_ bits it needs, all of them */
    cell (*get)(const point_view *v);
    int whole; /* a real written whole (bytes), not in 6 significant digits */
} point_column;

extern const point_column point_columns[];
extern const int n_point_columns;

/* The groups whose columns a point set needs, from one point (OR them over the points):
 * energy where it is modelled, the all-reduce where the predictor says it, tokens for a
 * sequence network, epochs where given. */
unsigned point_column_set(const point_view *v);
/* The header line and a row, each ending in a newline. */
void point_csv_header(FILE *out, unsigned set);
void point_csv_row(FILE *out, unsigned set, const point_view *v);
/* The point's members with a JSON key, into the open object of w; a non-finite number is
 * null, an empty cell (tokens_per_s of an image network) is left out. */
void point_json_fields(json_writer *w, unsigned set, const point_view *v);
/* The number in the column named name (NAN where it is empty or not a number), for the
 * writers that say a value their own way (predict's table and its JSON's order). */
double point_value(const point_view *v, const char *name);
/* "NAME": its value, the column's name as the key. */
void point_json_named(json_writer *w, const point_view *v, const char *name);
/* "CSV columns: model,...[,epochs,t_train]...", wrapped, for the commands' --help. */
void point_columns_usage(FILE *out);

#endif
