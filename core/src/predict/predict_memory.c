/* A predictor's memory configuration and its memory predictions (memory.h): the network's
 * memory (network/memory.c) with what the predictor's description says of the device. */
#include "predict/predictor.h"
#include "scalemeter/memory.h"
#include "util/util.h"

int sm_predictor_memory_config(const sm_predictor *p, sm_memory_config *out)
{
    if (!p || !out)
        return -1;
    *out = p->memory;
    return 0;
}

void sm_predictor_set_optimizer(sm_predictor *p, sm_optimizer o)
{
    if (!p)
        return;
    if (o < 0 || o >= SM_N_OPTIMIZERS)
        return;
    p->memory.optimizer = o;
    p->memory.optimizer_is_default = 0;
    if (p->ops->set_optimizer)
        p->ops->set_optimizer(p->impl, o);
}

int sm_predict_memory(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      int training, sm_memory *out, sm_status *st)
{
    if (!p || !net || !layout || !out)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : !layout ? "layout" : "out");
    if (sm_layout_check(layout, st))
        return -1;
    return sm_network_memory(net, layout->batch, sm_layout_devices(layout), training, &p->memory,
                             out, st);
}
