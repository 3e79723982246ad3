/* One step's prediction as predict and compare make it (step_point.h). */
#include "step_point.h"

#include "memory_hint.h"
#include "scalemeter/device.h"

/* Memory at the layout's batch; with max_batch, the largest batch that fits first, which
 * becomes the layout's (batch 1 where not even that fits, to show what it needs). */
static int memory_of(const sm_network *net, const sm_predictor *p, int max_batch, sm_layout *l,
                     step_memory *mem, sm_status *st)
{
    mem->max_batch = -1;
    mem->max_of_inference = max_batch == STEP_MAX_INFER;
    if (max_batch) {
        sm_memory_config c;
        sm_predictor_memory_config(p, &c);
        int rc = sm_network_max_batch(net, sm_layout_devices(l), !mem->max_of_inference, &c,
                                      &mem->max_batch, st);
        if (rc && rc != SM_MAX_BATCH_UNBOUNDED)
            return -1;
        /* every batch the search tried fits, or a largest batch past --batch's limit: not one
         * predict can name (a tiny network on a large memory) */
        if (rc == SM_MAX_BATCH_UNBOUNDED || mem->max_batch > STEP_MAX_BATCH)
            return sm_fail(st,
                           "%s: every per-device batch up to %lld, --batch's limit, "
                           "fits in the device's %.1f GiB; give --batch",
                           mem->max_of_inference ? "--max-infer-batch" : "--max-batch",
                           (long long)STEP_MAX_BATCH, c.capacity_bytes / 1073741824.0);
        l->batch = mem->max_batch ? mem->max_batch : 1;
    }
    return sm_predict_memory(p, net, l, 1, &mem->train, st) ||
                   sm_predict_memory(p, net, l, 0, &mem->infer, st)
               ? -1
               : 0;
}

int step_predict(const predictor_options *o, int64_t batch, int64_t nodes, int max_batch,
                 const sm_network *net, const sm_predictor *p, sm_layout *l, step_memory *mem,
                 sm_prediction *t, sm_status *st)
{
    int per_node = sm_predictor_devices_per_node(p);
    *l = (sm_layout){batch, (int)nodes,
                     o->gpus_per_node ? (int)o->gpus_per_node
                     : per_node       ? per_node
                                      : 1,
                     (int)o->accumulate};
    return memory_of(net, p, max_batch, l, mem, st) || sm_predict(p, net, l, t, st) ||
                   sm_check_totals(NULL, l, t, o->dataset, o->epochs, st)
               ? -1
               : 0;
}

void step_fit_hint(char *buf, size_t len, const predictor_choice *c, const sm_network *net,
                   const sm_predictor *p, const sm_layout *l, const sm_memory *m)
{
    memory_hint_context hc = {.choice = c,
                              .pred = p,
                              .net = net,
                              .devices = sm_layout_devices(l),
                              .batch = l->batch,
                              .has_max_batch = 1};
    memory_hint(buf, len, m, &hc);
}

sm_curve_point step_curve_point(const sm_layout *l, const sm_prediction *t, const step_memory *mem)
{
    sm_curve_point pt = {*l,        sm_layout_global_batch(l), *t, sm_images_per_s(l, t->t_step), 0,
                         mem->train};
    pt.efficiency = pt.images_per_s / pt.images_per_s; /* as curve's first point */
    return pt;
}
