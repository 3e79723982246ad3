/* What a planner can change when training does not fit: the part of one device's memory that
 * is most of it, and what shrinks that part, cheapest in time first. The states (weights,
 * gradients, optimizer) shrink only by sharding them across devices; the activations by a
 * 16-bit precision (half the bytes, and faster), checkpointing (a recomputed forward pass), a
 * smaller batch or a shorter sequence. */
#include "memory_hint.h"

#include <stdio.h>
#include <string.h>

#include "output.h"
#include "scalemeter/device.h"
#include "scalemeter/memory.h"
#include "scalemeter/predict.h"

static int is(const char *s, const char *want) { return s && strcmp(s, want) == 0; }

/* Appends ", item" (or "item" first) to buf. */
static void add(char *buf, size_t len, int *n, const char *item)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s", (*n)++ ? ", " : "", item);
}

/* The 16-bit precision the description has a peak for, bf16 before fp16; NULL: none, or no
 * description (a calibration fixes its precision). */
static const char *half_precision(const memory_hint_context *c)
{
    if (!c->choice->device || c->choice->coeffs)
        return NULL;
    sm_device_info info;
    sm_status st;
    if (sm_device_describe(c->choice->device, &info, &st))
        return NULL;
    return info.peak_tflops[3] > 0 ? "bf16" : info.peak_tflops[2] > 0 ? "fp16" : NULL;
}

/* Whether checkpointing the units as ck lowers the peak of m by a tenth or more: a network the
 * policy refuses (an in-place layer PyTorch's checkpoint refuses), or whose units hold little
 * (AlexNet's one block of features, recomputed whole beside its gradients), is not sent
 * after it. */
static int checkpoint_helps(const memory_hint_context *c, const sm_memory *m, sm_checkpoint ck)
{
    sm_memory_config mc;
    sm_memory with;
    sm_status st;
    if (sm_predictor_memory_config(c->pred, &mc))
        return 0;
    mc.checkpoint = ck;
    if (sm_network_memory(c->net, c->batch, c->devices, 1, &mc, &with, &st))
        return 0;
    return with.peak <= 0.9 * m->peak;
}

void memory_hint(char *buf, size_t len, const sm_memory *m, const memory_hint_context *c)
{
    if (len)
        buf[0] = '\0';
    if (m->fits != 0 || len == 0)
        return;
    double states = m->weights + m->gradients + m->optimizer;
    double acts = m->activations + m->backward;
    double fixed = m->workspace + m->context;
    char part[32], whole[32], tries[256] = "";
    int n = 0;
    /* a device whose memory the libraries' workspace and the context alone nearly fill: no
     * option shrinks them, and "--shard full" sent the planner after the smaller part */
    fmt_gib(m->peak + m->context, whole, sizeof whole);
    if (fixed > states && fixed > acts) {
        fmt_gib(fixed, part, sizeof part);
        snprintf(buf, len,
                 "the libraries' workspace and the CUDA context are most of it (%s of %s), "
                 "which no option shrinks: try a device with more memory",
                 part, whole);
        return;
    }
    fmt_gib(states >= acts ? states : acts, part, sizeof part);
    if (states >= acts) {
        /* sharding divides the states by the devices; one device cannot shard */
        if (c->devices < 2)
            add(tries, sizeof tries, &n, "more devices with --shard full");
        else if (!is(c->choice->shard, "full"))
            add(tries, sizeof tries, &n, "--shard full");
        else
            add(tries, sizeof tries, &n, "more devices");
        snprintf(buf, len,
                 "weights, gradients and optimizer state are most of it (%s of %s): try %s", part,
                 whole, tries);
        return;
    }
    const char *precision = sm_predictor_precision(c->pred), *half = half_precision(c);
    char item[64];
    if (half && (is(precision, "fp32") || is(precision, "tf32"))) {
        snprintf(item, sizeof item, "--precision %s", half);
        add(tries, sizeof tries, &n, item);
    }
    if (c->choice->device && !c->choice->coeffs && !is(c->choice->checkpoint, "full") &&
        checkpoint_helps(c, m, SM_CHECKPOINT_FULL))
        add(tries, sizeof tries, &n,
            is_sequence(c->net) && !is(c->choice->checkpoint, "selective") &&
                    checkpoint_helps(c, m, SM_CHECKPOINT_SELECTIVE)
                ? "--checkpoint selective or full"
                : "--checkpoint full");
    if (c->batch > 1)
        add(tries, sizeof tries, &n,
            c->strong          ? "more --nodes or a smaller --global-batch"
            : c->has_max_batch ? "a smaller --batch (--max-batch finds the largest)"
                               : "a smaller --batch");
    if (is_sequence(c->net))
        add(tries, sizeof tries, &n, "a shorter --seq");
    if (!n)
        add(tries, sizeof tries, &n, "a smaller network or a device with more memory");
    snprintf(buf, len, "activations are most of it (%s of %s): try %s", part, whole, tries);
}
