/* Leave-one-model-out validation, as ConvMeter reports its tables (section 4): a network's
 * errors come from a fit that never saw it, so they tell how well an unseen network is
 * predicted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalemeter/fit.h"
#include "util/util.h"

void sm_loo_free(sm_loo *loo)
{
    if (!loo)
        return;
    for (int k = 0; k < loo->n_models; k++)
        free(loo->models[k]);
    free(loo->models);
    free(loo->per_model);
    free(loo->not_validated);
    memset(loo, 0, sizeof *loo);
}

static int model_index(const sm_loo *loo, const char *name)
{
    for (int k = 0; k < loo->n_models; k++)
        if (strcmp(loo->models[k], name) == 0)
            return k;
    return -1;
}

static int list_models(const sm_runs *runs, sm_loo *loo, int *model_of, sm_status *st)
{
    loo->models = calloc((size_t)runs->n, sizeof *loo->models);
    if (!loo->models)
        return sm_fail(st, "out of memory");
    for (int i = 0; i < runs->n; i++) {
        int k = model_index(loo, runs->rows[i].model);
        if (k < 0) {
            k = loo->n_models;
            if (!(loo->models[k] = strdup(runs->rows[i].model)))
                return sm_fail(st, "out of memory");
            loo->n_models++;
        }
        model_of[i] = k;
    }
    if (loo->n_models < 2)
        return sm_fail(st, "%s: leave-one-model-out needs rows of at least two models", runs->path);
    loo->per_model = calloc((size_t)loo->n_models, sizeof *loo->per_model);
    loo->not_validated = calloc((size_t)loo->n_models, sizeof *loo->not_validated);
    return loo->per_model && loo->not_validated ? 0 : sm_fail(st, "out of memory");
}

/* Per model and pooled statistics of phase ph from the held-out predictions pred[row], the rows
 * of model k being by_model[first[k] .. first[k + 1] - 1]. Each model's rows are taken in file
 * order, as a filter of all rows per model took them (so the same statistics), but the targets
 * t[row] are computed once, not once per model. */
static void collect(const sm_runs *runs, const int *by_model, const int *first, const double *pred,
                    sm_phase ph, sm_loo *loo, double *t, double *y, double *p)
{
    int n = 0;
    for (int i = 0; i < runs->n; i++) {
        t[i] = sm_run_target(&runs->rows[i], ph);
        if (!isfinite(t[i]) || !isfinite(pred[i]))
            continue;
        y[n] = t[i];
        p[n++] = pred[i];
    }
    sm_fit_stats_of(y, p, n, &loo->overall[ph]);
    for (int k = 0; k < loo->n_models; k++) {
        n = 0;
        for (int g = first[k]; g < first[k + 1]; g++) {
            int i = by_model[g];
            if (!isfinite(t[i]) || !isfinite(pred[i]))
                continue;
            y[n] = t[i];
            p[n++] = pred[i];
        }
        sm_fit_stats_of(y, p, n, &loo->per_model[k][ph]);
    }
}

/* The rows grouped by model (a counting sort: file order within a model); first[k] where model
 * k's rows begin, first[n_models] = rows. */
static int group_by_model(const sm_runs *runs, const int *model_of, int n_models, int **by_model,
                          int **first)
{
    *by_model = malloc((size_t)(runs->n > 0 ? runs->n : 1) * sizeof **by_model);
    *first = calloc((size_t)n_models + 1, sizeof **first);
    if (!*by_model || !*first)
        return -1;
    for (int i = 0; i < runs->n; i++)
        (*first)[model_of[i] + 1]++;
    for (int k = 0; k < n_models; k++)
        (*first)[k + 1] += (*first)[k];
    int *next = malloc((size_t)n_models * sizeof *next);
    if (!next)
        return -1;
    memcpy(next, *first, (size_t)n_models * sizeof *next);
    for (int i = 0; i < runs->n; i++)
        (*by_model)[next[model_of[i]]++] = i;
    free(next);
    return 0;
}

int sm_fit_loo(const sm_runs *runs, const sm_fit_options *opt, sm_loo *out, sm_status *st)
{
    if (!runs || !opt || !out)
        return sm_null_arg(st, __func__, !runs ? "runs" : !opt ? "opt" : "out");
    memset(out, 0, sizeof *out);
    size_t n = (size_t)runs->n;
    int *model_of = malloc(n * sizeof *model_of);
    int *use = malloc(n * sizeof *use);
    double *pred = malloc(n * SM_N_PHASES * sizeof *pred); /* [phase][row] */
    double *y = malloc(n * sizeof *y), *p = malloc(n * sizeof *p), *t = malloc(n * sizeof *t);
    int *by_model = NULL, *first = NULL;
    int rc = -1;
    if (!model_of || !use || !pred || !y || !p || !t) {
        sm_fail(st, "out of memory");
        goto done;
    }
    if (list_models(runs, out, model_of, st))
        goto done;
    for (int k = 0; k < out->n_models; k++) {
        for (size_t i = 0; i < n; i++)
            use[i] = model_of[i] != k;
        sm_fit fit;
        sm_status inner;
        int failed = sm_fit_runs(runs, use, opt, &fit, &inner) != 0;
        if (failed) {
            /* a calibration that measured and fitted must not fail for want of a network */
            if (!out->n_not_validated++)
                snprintf(out->why, sizeof out->why, "leaving out %.200s: %s", out->models[k],
                         inner.msg);
            out->not_validated[k] = 1;
        }
        for (size_t i = 0; i < n; i++) {
            if (use[i])
                continue;
            if (failed) {
                for (int ph = 0; ph < SM_N_PHASES; ph++)
                    pred[(size_t)ph * n + i] = NAN;
                continue;
            }
            const sm_run *r = &runs->rows[i];
            const sm_layout l = {r->batch, r->nodes, r->gpus_per_node, 1};
            for (int ph = 0; ph < SM_N_PHASES; ph++)
                pred[(size_t)ph * n + i] = sm_fit_eval(&fit, (sm_phase)ph, &r->m, &l);
        }
    }
    if (out->n_not_validated == out->n_models) {
        sm_fail(st, "%s", out->why);
        goto done;
    }
    if (group_by_model(runs, model_of, out->n_models, &by_model, &first)) {
        sm_fail(st, "out of memory");
        goto done;
    }
    for (int ph = 0; ph < SM_N_PHASES; ph++)
        collect(runs, by_model, first, pred + (size_t)ph * n, (sm_phase)ph, out, t, y, p);
    rc = 0;
done:
    if (rc)
        sm_loo_free(out);
    free(model_of), free(use), free(pred), free(y), free(p), free(t), free(by_model), free(first);
    return rc;
}
