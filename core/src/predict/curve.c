/* Scaling curves: predictions over node counts, efficiency against the smallest count and the
 * turning point where one more doubling stops paying. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scalemeter/curve.h"
#include "util/util.h"

int sm_curve_turning_point(const int *nodes, const double *images_per_s, int n, double threshold)
{
    for (int i = 0; i + 1 < n; i++) {
        double doublings = log2((double)nodes[i + 1] / nodes[i]);
        double gain = pow(images_per_s[i + 1] / images_per_s[i], 1 / doublings) - 1;
        if (gain < threshold)
            return i;
    }
    return -1;
}

static int check_spec(const sm_curve_spec *s, sm_status *st)
{
    if ((s->batch > 0) == (s->global_batch > 0))
        return sm_fail(st, "a curve takes either a per-device batch or a global batch");
    if (s->gpus_per_node < 1)
        return sm_fail(st, "devices per node %d: expected at least 1", s->gpus_per_node);
    if (s->n_nodes < 1)
        return sm_fail(st, "a curve needs at least one node count");
    if (s->accumulate < 0)
        return sm_fail(st, "accumulate %d: the micro-batches per step must be at least 1",
                       s->accumulate);
    /* a micro-batch that rounds down would change the step's samples K times over */
    if (s->global_batch > 0 && s->global_batch % (s->accumulate > 1 ? s->accumulate : 1))
        return sm_fail(st,
                       "global batch %lld is not a whole number of %d micro-batches: give a "
                       "multiple of %d",
                       (long long)s->global_batch, s->accumulate, s->accumulate);
    if (!(s->threshold > 0 && s->threshold <= 1))
        return sm_fail(st, "threshold %g: expected a gain above 0 and at most 1 (100%%)",
                       s->threshold);
    for (int i = 0; i < s->n_nodes; i++) {
        if (s->nodes[i] < 1)
            return sm_fail(st, "node count %d: expected at least 1", s->nodes[i]);
        if (i && s->nodes[i] <= s->nodes[i - 1])
            return sm_fail(st, "node counts %d, %d: expected ascending counts without repeats",
                           s->nodes[i - 1], s->nodes[i]);
    }
    return 0;
}

int sm_curve_compute(const sm_predictor *p, const sm_network *net, const sm_curve_spec *spec,
                     sm_curve *out, sm_status *st)
{
    if (!out)
        return sm_null_arg(st, __func__, "out");
    out->n_points = 0;
    out->points = NULL;
    out->turning = -1;
    out->fits_from = -1;
    if (!p || !net || !spec)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : "spec");
    if (!spec->nodes && spec->n_nodes > 0)
        return sm_null_arg(st, __func__, "spec->nodes");
    if (check_spec(spec, st))
        return -1;
    sm_curve_point *pts = calloc((size_t)spec->n_nodes, sizeof *pts);
    double *ips = calloc((size_t)spec->n_nodes, sizeof *ips);
    if (!pts || !ips) {
        free(pts);
        free(ips);
        return sm_fail(st, "out of memory");
    }
    int rc = 0, conv = sm_network_has_trait(net, SM_TRAIT_CONVOLUTION);
    for (int i = 0; i < spec->n_nodes && rc == 0; i++) {
        sm_curve_point *c = &pts[i];
        c->layout = (sm_layout){spec->batch, spec->nodes[i], spec->gpus_per_node,
                                spec->accumulate > 1 ? spec->accumulate : 1};
        int64_t devices = sm_layout_devices(&c->layout);
        if (spec->global_batch > 0) {
            /* the samples of one micro-batch of all devices */
            int64_t micro = spec->global_batch / c->layout.accumulate;
            if (micro < devices) {
                char per[48] = "";
                if (c->layout.accumulate > 1)
                    snprintf(per, sizeof per, " (%lld per micro-batch)", (long long)micro);
                rc = sm_fail(st,
                             "global batch %lld%s is smaller than the %lld devices of %d "
                             "node%s x %d per node: every device needs a sample",
                             (long long)spec->global_batch, per, (long long)devices, spec->nodes[i],
                             spec->nodes[i] == 1 ? "" : "s", spec->gpus_per_node);
                break;
            }
            c->layout.batch = micro / devices;
        }
        rc = sm_predict(p, net, &c->layout, &c->pred, st); /* checks the layout first */
        c->global_batch = rc == 0 ? sm_layout_global_batch(&c->layout) : 0;
        if (rc == 0)
            rc = sm_predict_memory(p, net, &c->layout, 1, &c->memory, st);
        if (rc) /* which point: one device of --shard, a layout the calibration refuses */
            sm_fail(st, "%d node%s x %d device%s: %s", spec->nodes[i],
                    spec->nodes[i] == 1 ? "" : "s", spec->gpus_per_node,
                    spec->gpus_per_node == 1 ? "" : "s", st->msg);
        if (rc == 0 && isnan(c->pred.t_step))
            rc = sm_fail(st,
                         "%s: the predictor gives no training step time (%s): a curve "
                         "needs forward, backward and gradient times",
                         net->name, sm_predictor_describe_for(p, conv));
        /* sm_predict has refused a step that is not positive and finite */
        if (rc == 0) {
            c->images_per_s = sm_images_per_s(&c->layout, c->pred.t_step);
            ips[i] = c->images_per_s;
        }
    }
    if (rc == 0) {
        out->n_points = spec->n_nodes;
        out->points = pts;
        /* the turning point among the points that run: from the first that fits, as far as
         * every next one does (a strong-scaling curve starts fitting, a weak one stops) */
        int lo = 0, hi;
        while (lo < spec->n_nodes && pts[lo].memory.fits == 0)
            lo++;
        for (hi = lo; hi + 1 < spec->n_nodes && pts[hi + 1].memory.fits != 0; hi++)
            ;
        out->fits_from = lo < spec->n_nodes ? lo : -1;
        /* efficiency against the first point that fits: a node count that cannot run is no
         * baseline, and the points before it have none (NAN); where none fits, the first */
        const sm_curve_point *base = &pts[lo < spec->n_nodes ? lo : 0];
        for (int i = 0; i < spec->n_nodes; i++)
            pts[i].efficiency =
                i < lo && lo < spec->n_nodes
                    ? NAN
                    : pts[i].images_per_s /
                          ((double)pts[i].layout.nodes / base->layout.nodes * base->images_per_s);
        int turn = lo < spec->n_nodes ? sm_curve_turning_point(spec->nodes + lo, ips + lo,
                                                               hi - lo + 1, spec->threshold)
                                      : -1;
        out->turning = turn >= 0 ? lo + turn : -1;
    } else {
        free(pts);
    }
    free(ips);
    return rc;
}

int sm_curve_fits_to(const sm_curve *c)
{
    if (!c || c->fits_from < 0 || c->fits_from >= c->n_points)
        return -1;
    int hi = c->fits_from;
    while (hi + 1 < c->n_points && c->points[hi + 1].memory.fits != 0)
        hi++;
    return hi;
}

void sm_curve_free(sm_curve *c)
{
    if (!c)
        return;
    free(c->points);
    c->points = NULL;
    c->n_points = 0;
}
