/* Predictions from a device description alone (PALEO-style): every layer takes its roofline
 * time plus the framework's dispatch of its kernel, and gradients are all-reduced by the ring
 * model of allreduce_model.c. No calibration, so the numbers are as good as the description's
 * efficiencies and dispatch times (`fit --device-out` derives them from measurements);
 * docs/scaling.md says more. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_file.h"
#include "network/network_internal.h"
#include "predict/predictor.h"
#include "network/checkpoint.h"
#include "scalemeter/device.h"

typedef struct device_predictor {
    sm_device dev;
    sm_precision precision;
    /* the network's recipe's precision where it chose precision (no --precision), for the
     * header: precision itself where the part has it, else the fallback; -1: the option's or
     * the file's */
    int recipe;
    double bucket_bytes;
    int overlap;
    sm_collective collective;
    sm_shard shard;
    sm_checkpoint checkpoint;
    /* the update's: --optimizer, or the framework's, or (optimizer.optimizer_is_default) the
     * network's recipe, else momentum (sm_memory_optimizer) */
    sm_memory_config optimizer;
} device_predictor;

/* Bytes per weight the optimizer's step streams, fp32 (its master weights at 16-bit
 * activations): plain SGD reads weight and gradient and writes the weight (12); with momentum
 * it reads and writes the momentum too (20); Adam and AdamW read and write their two moments
 * (28). torch.optim's for-each and fused kernels each stream every tensor once. */
static double update_bytes_per_weight(sm_optimizer o)
{
    return o == SM_OPTIMIZER_SGD ? 12.0 : o == SM_OPTIMIZER_MOMENTUM ? 20.0 : 28.0;
}

/* Seconds of one pass of a layer on the device: bound by compute or by memory
 * (device_roofline.c). Its matrix products run at the precision's matrix peak (convolutions at
 * their own efficiency), the rest at the fp32 vector peak (at every precision: element-wise
 * work does not use tensor cores); the bytes of kernels between its matrix products
 * (sm_layer_work's serial_bytes) come after. */
static double roofline(const device_predictor *d, sm_layer_work w)
{
    return sm_layer_roofline_seconds(&d->dev, d->precision, w);
}

/* The seconds of a pass's arithmetic, of all the bytes its kernels move and of a library's
 * launches inside it, each alone: the roofline's bytes and those of the kernels beside it,
 * serial (a softmax, the casts, a dropout's input, output and mask: a dropout does no
 * arithmetic) and the score products', and `extra` more (cuDNN's transposes). */
typedef struct pass_load {
    double arithmetic, traffic, launches;
} pass_load;

static pass_load load_of(const device_predictor *d, sm_layer_work w, double extra, double launches)
{
    double stream = sm_device_dram_stream(&d->dev);
    return (pass_load){sm_layer_compute_seconds(&d->dev, d->precision, w) +
                           sm_layer_compute_seconds(&d->dev, d->precision,
                                                    (sm_layer_work){.matmul_flops = w.score_flops}),
                       w.bytes / sm_layer_stream(&d->dev, w) +
                           (w.serial_bytes + w.score_bytes) / stream +
                           sm_transpose_seconds(&d->dev, extra) + w.sm_seconds,
                       launches};
}

/* a += b: a pass and what it recomputes */
static void load_add(pass_load *a, pass_load b)
{
    a->arithmetic += b.arithmetic, a->traffic += b.traffic, a->launches += b.launches;
}

typedef struct pass_times {
    double infer, fwd, bwd; /* seconds */
    double fwd_serial;      /* bytes of the training forward pass's serial kernels (what
                               selective checkpointing recomputes of a layer kept in part) */
    double host_infer, host_fwd, host_bwd; /* of infer, fwd and bwd, the dispatch */
    /* of infer, fwd and bwd, a library's own launches inside the call (in the device time too:
     * the host launches each step after the last, so where it runs ahead it is busy as long) */
    double library_infer, library_fwd, library_bwd;
    pass_load load_infer, load_fwd, load_bwd; /* what limits them where the host does not */
    sm_bound bound_infer, bound_fwd, bound_bwd;
} pass_times;

/* What limits a pass of that load whose kernels take device seconds and their dispatch host:
 * the host where it takes longer, else the kernels' arithmetic or their bytes, whichever takes
 * longer alone. */
static sm_bound bound_of(pass_load load, double device, double host)
{
    if (device <= 0 && host <= 0)
        return SM_BOUND_NONE;
    if (host > device)
        return SM_BOUND_HOST;
    if (load.launches > fmax(load.arithmetic, load.traffic))
        return SM_BOUND_LAUNCH;
    return load.arithmetic >= load.traffic ? SM_BOUND_COMPUTE : SM_BOUND_MEMORY;
}

/* One layer's passes: its roofline time on the device plus the framework's dispatch of the
 * kernels it launches in each pass (its plugin's counts: a batch norm's statistics update, a
 * convolution's bias, stochastic depth's mask; a layer launching none at inference, as
 * dropout, takes no inference time). The host runs ahead of the device only as far as the device is
 * busy, and on GPUs eager frameworks are mostly host-bound below large batches, so the two add
 * (measured on H100: docs/calibration.md). The layers' bytes are counted at fp32 and halve at
 * fp16 and bf16; the backward pass reads the saved activations and the output gradient and
 * writes the input gradient: twice the forward traffic. Under autocast every
 * matrix-multiplying layer adds cast kernels, and NCHW convolutions the transposes cuDNN runs
 * around them (memory-bound kernels of cuDNN's own, no dispatch of the framework's). A fused
 * attention kernel keeps its scores on chip (no score bytes in either pass) and recomputes
 * them in the backward pass (their product once more). A view (no kernel) takes no time. The
 * kernels a library launches inside the layer's call (cuDNN's RNN: two a time step, layer and
 * direction, plugin.h's library_kernels) pay the bare launch each: its steps run one after
 * another whatever their FLOPs. */
static int layer_passes(const device_predictor *d, const sm_layer *l, int64_t batch, pass_times *t,
                        sm_metrics *m, sm_status *st)
{
    const sm_device *v = &d->dev;
    memset(t, 0, sizeof *t);
    if (sm_layer_metrics_at(l, batch, m, st))
        return -1;
    sm_layer_work fwd = sm_layer_pass_work(v, l, m, batch, d->precision, 0, 1);
    t->fwd_serial = fwd.serial_bytes;
    int64_t k_infer = sm_layer_kernels(v, m, 0), k_fwd = sm_layer_kernels(v, m, 1),
            k_bwd = sm_layer_kernels(v, m, 2);
    if (!k_fwd && !k_bwd)
        return 0;
    int half = sm_precision_is_half(d->precision);
    int mm = sm_layer_is_matmul(l);
    double casts = half && mm ? v->autocast_casts : 0;
    double transpose_bytes = sm_layer_transpose_bytes(v, l, m, d->precision, 0);
    double transpose = sm_transpose_seconds(v, transpose_bytes);
    /* what a library launches inside the layer's call, a recurrence's steps one after another:
     * the bare launch each */
    double library_fwd = (double)l->m.library_kernels_fwd * v->launch_overhead;
    double library_bwd = (double)l->m.library_kernels_bwd * v->launch_overhead;
    /* each kernel the framework launches, casts included (autocast's, and a float8 recipe's
     * to fp8), the host dispatches and the device starts and drains */
    double fp8_fwd = sm_layer_fp8_kernels(v, l, 0), fp8_bwd = sm_layer_fp8_kernels(v, l, 1);
    double n_infer = (double)k_infer + casts + fp8_fwd, n_fwd = (double)k_fwd + casts + fp8_fwd,
           n_bwd = (double)k_bwd + casts + fp8_bwd;
    double grid_infer = n_infer * v->kernel_device, grid_fwd = n_fwd * v->kernel_device,
           grid_bwd = n_bwd * v->kernel_device;
    if (k_infer) {
        sm_layer_work infer = sm_layer_pass_work(v, l, m, batch, d->precision, 0, 0);
        double device = roofline(d, infer) + transpose + library_fwd + grid_infer;
        t->host_infer = n_infer * v->dispatch_infer;
        t->library_infer = library_fwd;
        t->infer = device + t->host_infer;
        t->load_infer = load_of(d, infer, transpose_bytes, library_fwd + grid_infer);
        t->bound_infer = bound_of(t->load_infer, device, t->host_infer);
    }
    double device = roofline(d, fwd) + transpose + library_fwd + grid_fwd;
    t->host_fwd = n_fwd * v->dispatch_fwd;
    t->library_fwd = library_fwd;
    t->fwd = device + t->host_fwd;
    t->load_fwd = load_of(d, fwd, transpose_bytes, library_fwd + grid_fwd);
    t->bound_fwd = bound_of(t->load_fwd, device, t->host_fwd);
    sm_layer_work bwd = sm_layer_pass_work(v, l, m, batch, d->precision, 1, 1);
    transpose_bytes = sm_layer_transpose_bytes(v, l, m, d->precision, 1);
    device = roofline(d, bwd) + sm_transpose_seconds(v, transpose_bytes) + library_bwd + grid_bwd;
    t->host_bwd = n_bwd * v->dispatch_bwd;
    t->library_bwd = library_bwd;
    t->bwd = device + t->host_bwd;
    t->load_bwd = load_of(d, bwd, transpose_bytes, library_bwd + grid_bwd);
    t->bound_bwd = bound_of(t->load_bwd, device, t->host_bwd);
    return 0;
}

/* One layer's part of the step, in the network's order: its passes (a fused layer none), the
 * backward pass with the forward that checkpointing recomputes in it, and its weights. */
typedef struct layer_step {
    pass_times t;
    double weights;
    int fused; /* run inside a neighbour's kernel: no passes of its own */
} layer_step;

/* A pass as the host and the GPU run it when the host runs ahead (host_runs_ahead): the host
 * issues the layers' kernels in order (the backward pass from the last layer), a layer's
 * kernels start once issued and once the GPU is done with those before, and the pass ends when
 * both are done (docs/queue-h200.md: over the H200's device-bound phases the queue of measured
 * ops came to 0.96 of the window, the sum of host and kernel time to 1.81). Each layer's time
 * becomes what it adds to the pass, so that the layers still sum to it, and its host time what
 * of that the GPU waited for the host (as added, all of its dispatch); a layer the GPU waited
 * for longer than it ran is bound by the host. pass: 0 infer, 1 fwd, 2 bwd. */
static void queue_pass(layer_step *ls, int n, int pass)
{
    double host = 0, gpu = 0;
    for (int k = 0; k < n; k++) {
        pass_times *t = &ls[pass == 2 ? n - 1 - k : k].t;
        double *time = pass == 0 ? &t->infer : pass == 1 ? &t->fwd : &t->bwd;
        double *own = pass == 0 ? &t->host_infer : pass == 1 ? &t->host_fwd : &t->host_bwd;
        double issue = *own;
        double library = pass == 0 ? t->library_infer : pass == 1 ? t->library_fwd : t->library_bwd;
        pass_load load = pass == 0 ? t->load_infer : pass == 1 ? t->load_fwd : t->load_bwd;
        sm_bound *bound = pass == 0 ? &t->bound_infer : pass == 1 ? &t->bound_fwd : &t->bound_bwd;
        if (*time <= 0 && issue <= 0)
            continue;
        double device = *time - issue, before = gpu;
        host += issue;
        double waited = fmax(0, host - gpu);
        /* a library's launches inside the call (cuDNN's recurrent steps) keep the host busy
         * until the last is launched, and the GPU cannot finish the layer before it is */
        double start = fmax(host, gpu);
        host += library;
        gpu = fmax(start + device, host);
        *time = gpu - before;
        *own = waited;
        *bound = bound_of(load, device, waited);
    }
}

static layer_step *layer_steps(const device_predictor *d, const sm_network *net, int64_t batch,
                               sm_status *st)
{
    layer_step *ls = calloc((size_t)net->n_layers + 1, sizeof *ls);
    int *unit = sm_checkpoint_units(net);
    sm_checkpoint_effect *effect = unit ? sm_checkpoint_effects(net, unit, d->checkpoint) : NULL;
    unsigned char *fused = malloc((size_t)net->n_layers + 1);
    if (!ls || !unit || !effect || !fused || sm_network_fused(&d->dev, net, fused)) {
        free(ls), free(unit), free(effect), free(fused);
        sm_fail(st, "out of memory");
        return NULL;
    }
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        if (layer_passes(d, &net->layers[i], batch, &ls[i].t, &m, st)) {
            free(ls), free(unit), free(effect), free(fused);
            return NULL;
        }
        /* the keys' ranges keep every price finite; a time that is not is no prediction, and
         * the queue made one NaN of it (a phase no model knows, to the callers) */
        if (!isfinite(ls[i].t.infer) || !isfinite(ls[i].t.fwd) || !isfinite(ls[i].t.bwd)) {
            sm_fail(st,
                    "%s: layer %s of %s at batch %lld priced at no finite time; a key of the "
                    "description or its framework is out of range",
                    d->dev.path, net->layers[i].name, net->name, (long long)batch);
            free(ls), free(unit), free(effect), free(fused);
            return NULL;
        }
        ls[i].weights = (double)m.weights;
        double fwd_serial = ls[i].t.fwd_serial;
        ls[i].fused = fused[i];
        if (fused[i]) {
            pass_times keep = ls[i].t;
            ls[i].t = (pass_times){0};
            /* an activation in an addition's epilogue: its gradient's device time, in the
             * fused kernel's backward pass (no launch of its own) */
            if (fused[i] == SM_FUSED_GRADIENT) {
                double grid = (double)sm_layer_kernels(&d->dev, &m, 2) * d->dev.kernel_device;
                ls[i].t.bwd = keep.bwd - keep.host_bwd - keep.library_bwd - grid;
                ls[i].t.load_bwd = keep.load_bwd;
                ls[i].t.load_bwd.launches = 0;
                ls[i].t.bound_bwd = bound_of(ls[i].t.load_bwd, ls[i].t.bwd, 0);
            }
        }
        /* what checkpointing recomputes: the whole forward pass, or of a layer kept in part
         * the matrix products it declares and its element-wise kernels (serial_bytes: the
         * rotary embedding, SwiGLU's silu and product), whose outputs the policy never keeps;
         * nothing of a matrix product whose output it keeps */
        sm_checkpoint_effect e = effect[i];
        pass_times *t = &ls[i].t;
        if (e == SM_RECOMPUTES_ALL) {
            t->bwd += t->fwd, t->host_bwd += t->host_fwd, t->library_bwd += t->library_fwd;
            load_add(&t->load_bwd, t->load_fwd);
        } else if (e == SM_RECOMPUTES_PART) {
            /* the products it recomputes are linear ones, in fp8 under a float8 recipe */
            double again = (double)net->layers[i].saved.selective_flops * (double)batch;
            int fp8 = sm_layer_fp8(&d->dev, &net->layers[i]);
            sm_layer_work redo = {.matmul_flops = fp8 ? 0 : again,
                                  .fp8_flops = fp8 ? again : 0,
                                  .serial_bytes = fwd_serial};
            t->bwd += roofline(d, redo);
            load_add(&t->load_bwd, load_of(d, redo, 0, 0));
        }
        /* what limits the backward pass with what it recomputes: a host-bound pass that
         * recomputes a memory-bound forward may not be host-bound any more */
        if (e == SM_RECOMPUTES_ALL || e == SM_RECOMPUTES_PART)
            t->bound_bwd = bound_of(t->load_bwd, t->bwd - t->host_bwd, t->host_bwd);
    }
    if (d->dev.host_runs_ahead)
        for (int pass = 0; pass < 3; pass++)
            queue_pass(ls, net->n_layers, pass);
    free(unit), free(effect), free(fused);
    return ls;
}

/* The training forward passes of blocks: of block `block` into fwd[0] or, where block < 0,
 * of every block b into fwd[b]. Each sum is over its block's layers in the network's order, so
 * that the blocks add up to t_fwd; where the host runs ahead, of what each layer adds to the
 * whole pass's queue (queue_pass). */
static int block_forward(const device_predictor *d, const sm_network *net, int block, int64_t batch,
                         double *fwd, sm_status *st)
{
    for (int b = 0; b < (block < 0 ? net->n_blocks : 1); b++)
        fwd[b] = 0;
    layer_step *ls = layer_steps(d, net, batch, st);
    if (!ls)
        return -1;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if ((block >= 0 && l->block != block) || ls[i].fused)
            continue;
        fwd[block < 0 ? l->block : 0] += ls[i].t.fwd;
    }
    free(ls);
    return 0;
}

/* What the step waits for after the backward pass when the buckets are reduced during it: the
 * layers' gradients and backward times in backward order (last layer first), each bucket
 * costing cost(ctx, bytes). */
static int overlapped_sync(const device_predictor *d, const sm_network *net, const layer_step *ls,
                           double bucket_bytes, sm_bucket_cost cost, const void *ctx,
                           double *exposed, sm_status *st)
{
    sm_grad_layer *grads = malloc((size_t)(net->n_layers ? net->n_layers : 1) * sizeof *grads);
    if (!grads)
        return sm_fail(st, "out of memory");
    for (int i = 0; i < net->n_layers; i++) {
        const layer_step *l = &ls[net->n_layers - 1 - i];
        grads[i] = (sm_grad_layer){d->dev.grad_bytes * l->weights, l->t.bwd};
    }
    *exposed = sm_allreduce_overlapped(grads, net->n_layers, SM_DDP_FIRST_BUCKET_BYTES,
                                       bucket_bytes, cost, ctx);
    free(grads);
    return 0;
}

/* One collective's seconds on the ring configuration's layout. */
typedef struct op_ctx {
    const sm_ring_config *a;
    sm_collective_op op;
} op_ctx;

static double op_cost(const void *ctx, double bytes)
{
    const op_ctx *c = ctx;
    return sm_collective_choice(c->a, c->op, bytes).seconds;
}

/* Bytes per weight that sharded data parallelism gathers: the weights at the compute
 * precision (bf16 under FSDP's MixedPrecision at fp16 and bf16). */
static double gather_bytes(const device_predictor *d)
{
    return sm_precision_is_half(d->precision) ? 2 : 4;
}

/* A collective of `bytes` in equal buckets of at most bucket_bytes (and no more buckets than
 * a->max_buckets), one after the other. */
static double bucketed(const sm_ring_config *a, sm_collective_op op, double bytes,
                       double bucket_bytes)
{
    double k = sm_bucket_count(bytes, bucket_bytes, a->max_buckets);
    return k > 0 ? k * sm_collective_choice(a, op, bytes / k).seconds : 0;
}

/* FSDP's full sharding, by FSDP unit: each multi-layer [block] is one (torchtitan wraps
 * every transformer block in fully_shard, as the checkpointing units are), and the layers
 * outside blocks are the root's (the embedding, the final norm, the head). Forward, the root's
 * weights are gathered first and kept until the backward pass is done (FSDP2 does not reshard
 * the root after its forward pass); a block's are gathered while the layers before it
 * compute (FSDP prefetches the next unit). Backward, a block's are gathered again, the first
 * at its own start and each next one while the block after it computes, beside that block's
 * reduce-scatter; the last block's reduce-scatter and the root's come after the passes. What
 * the compute beside a collective does not cover waits. One run of consecutive layers of one
 * unit is a group; a unit's weights are its groups'. */
typedef struct shard_group {
    int root;
    double weights, fwd, bwd;
} shard_group;

static int shard_groups(const sm_network *net, const layer_step *ls, shard_group *g)
{
    int *unit = sm_checkpoint_units(net), n = 0;
    if (!unit)
        return -1;
    for (int i = 0; i < net->n_layers; i++) {
        if (i == 0 || unit[i] != unit[i - 1])
            g[n++] = (shard_group){unit[i] < 0, 0, 0, 0};
        g[n - 1].weights += ls[i].weights;
        g[n - 1].fwd += ls[i].t.fwd;
        g[n - 1].bwd += ls[i].t.bwd;
    }
    free(unit);
    return n;
}

static double collective(const sm_ring_config *a, sm_collective_op op, double bytes)
{
    return bytes > 0 ? sm_collective_choice(a, op, bytes).seconds : 0;
}

static int full_shard_exposed(const device_predictor *d, const sm_ring_config *a,
                              const sm_network *net, const layer_step *ls, double *exposed,
                              sm_status *st)
{
    *exposed = 0;
    shard_group *g = malloc(((size_t)net->n_layers + 1) * sizeof *g);
    int n = g ? shard_groups(net, ls, g) : -1;
    if (n < 0) {
        free(g);
        return sm_fail(st, "%s: out of memory", net->name);
    }
    double gather = gather_bytes(d), root = 0, t;
#define AG(k) (!g[k].root ? collective(a, SM_OP_ALL_GATHER, gather * g[k].weights) : 0)
#define RS(k)                                                                                      \
    (!g[k].root ? collective(a, SM_OP_REDUCE_SCATTER, d->dev.grad_bytes * g[k].weights) : 0)
    for (int k = 0; k < n; k++)
        root += g[k].root ? g[k].weights : 0;
    t = collective(a, SM_OP_ALL_GATHER, gather * root) + (n > 0 ? AG(0) : 0);
    for (int k = 0; k + 1 < n; k++)
        t += fmax(0, AG(k + 1) - g[k].fwd);
    double pending = 0; /* the reduce-scatter of the block just done */
    int gathered = 0;   /* the group about to run was prefetched */
    for (int k = n - 1; k >= 0; k--) {
        if (!gathered)
            t += AG(k);
        gathered = !g[k].root && k > 0 && !g[k - 1].root;
        t += fmax(0, (gathered ? AG(k - 1) : 0) + pending - g[k].bwd);
        pending = RS(k);
    }
    t += pending + collective(a, SM_OP_REDUCE_SCATTER, d->dev.grad_bytes * root);
#undef AG
#undef RS
    free(g);
    *exposed = t;
    return 0;
}

/* What the step waits for besides the passes: the gradients' synchronisation, DDP's
 * all-reduce or the sharded collectives. */
static int sync_exposed(const device_predictor *d, const sm_network *net, const sm_layout *layout,
                        const layer_step *ls, const sm_metrics *total, sm_shard shard,
                        double *exposed, double *reduced, sm_status *st)
{
    const sm_device *v = &d->dev;
    double weights = (double)total->weights;
    sm_ring_config a =
        sm_device_ring(v, v->grad_bytes * weights, d->bucket_bytes, (double)total->param_tensors,
                       layout->nodes, layout->gpus_per_node, d->collective);
    /* ZeRO-1 and -2 gather the updated parameters as each device stores them (AMP's fp32, a
     * cast model's 16 bits: memory.c's weights), FSDP its units at the precision it computes */
    sm_memory_config stored;
    sm_device_memory_config(v, d->precision, &stored);
    op_ctx ctx = {&a, shard == SM_SHARD_NONE ? SM_OP_ALL_REDUCE : SM_OP_REDUCE_SCATTER};
    if (shard == SM_SHARD_FULL) {
        if (full_shard_exposed(d, &a, net, ls, exposed, st))
            return -1;
        *reduced = *exposed;
    } else {
        *exposed = shard == SM_SHARD_NONE ? sm_ring_allreduce_time(&a).total
                                          : bucketed(&a, ctx.op, a.bytes, d->bucket_bytes);
        if (d->overlap && overlapped_sync(d, net, ls, d->bucket_bytes, op_cost, &ctx, exposed, st))
            return -1;
        *reduced = *exposed;
        /* ZeRO-1 and -2: each rank updates its shard, then the updated weights are gathered */
        if (shard != SM_SHARD_NONE)
            *exposed +=
                bucketed(&a, SM_OP_ALL_GATHER, stored.param_bytes * weights, d->bucket_bytes);
    }
    return sm_device_check_allreduce(v, *exposed, layout->nodes, layout->gpus_per_node, st);
}

static int device_predict(const void *impl, const sm_network *net, const sm_layout *layout,
                          sm_prediction *out, double *per_micro, sm_status *st)
{
    const device_predictor *d = impl;
    const sm_device *v = &d->dev;
    if (sm_device_check_layout(v, layout->gpus_per_node, st))
        return -1;
    int64_t devices = sm_layout_devices(layout);
    if (sm_shard_check(d->shard, devices, st))
        return -1;
    if (sm_checkpoint_check(net, d->checkpoint, st))
        return -1;
    sm_shard shard = d->shard;
    sm_metrics total;
    if (sm_network_metrics(net, 1, &total, st))
        return -1;
    layer_step *ls = layer_steps(d, net, layout->batch, st);
    if (!ls)
        return -1;
    pass_times t = {0};
    for (int i = 0; i < net->n_layers; i++) {
        t.infer += ls[i].t.infer;
        t.fwd += ls[i].t.fwd;
        t.bwd += ls[i].t.bwd;
    }
    double exposed, reduced;
    int rc = sync_exposed(d, net, layout, ls, &total, shard, &exposed, &reduced, st);
    free(ls);
    if (rc)
        return -1;
    /* the optimizer: one kernel per parameter tensor (PyTorch's default for-each SGD still
     * dispatches per tensor) and a stream over the weights; sharded, over 1/N of them */
    double share = shard == SM_SHARD_NONE ? 1 : 1.0 / (double)devices;
    sm_optimizer optimizer = sm_memory_optimizer(&d->optimizer, net);
    double update = share * (update_bytes_per_weight(optimizer) * (double)total.weights /
                                 sm_device_dram_stream(v) +
                             (double)total.param_tensors * v->dispatch_update);

    out->t_infer = t.infer;
    out->t_fwd = t.fwd;
    out->t_bwd = t.bwd;
    out->t_grad = exposed + update;
    /* full sharding gathers and reduce-scatters with every micro-batch, and sharded gradients
     * (ZeRO-2, FSDP's SHARD_GRAD_OP) are reduce-scattered with every micro-batch: a device holds
     * only its shard between them (sm_predict) */
    *per_micro = shard == SM_SHARD_FULL || shard == SM_SHARD_GRADIENTS ? reduced : 0;
    out->t_step = t.fwd + t.bwd + out->t_grad;
    return 0;
}

static int device_predict_block(const void *impl, const sm_network *net, int block,
                                const sm_layout *layout, double *t_fwd, sm_status *st)
{
    return block_forward(impl, net, block, layout->batch, t_fwd, st);
}

static int device_predict_blocks(const void *impl, const sm_network *net, const sm_layout *layout,
                                 double *t_fwd, sm_status *st)
{
    return block_forward(impl, net, -1, layout->batch, t_fwd, st);
}

/* The weights of the largest FSDP unit of net (a multi-layer block; shard_groups' units), or 0
 * where it has none: what one unit's gradients reduce-scatter. -1 when out of memory. */
static double largest_unit(const sm_network *net)
{
    int *unit = sm_checkpoint_units(net);
    if (!unit)
        return -1;
    double most = 0, w = 0;
    for (int i = 0; i < net->n_layers; i++) {
        if (i > 0 && unit[i] != unit[i - 1])
            w = 0;
        if (unit[i] >= 0)
            most = fmax(most, w += (double)net->layers[i].m.weights);
    }
    free(unit);
    return most;
}

static int device_allreduce(const void *impl, const sm_network *net, const sm_layout *layout,
                            sm_allreduce_estimate *out, sm_status *st)
{
    const device_predictor *d = impl;
    /* fully sharded, the gradients are reduce-scattered a unit at a time, not in buckets
     * (full_shard_exposed): the largest unit's */
    if (d->shard == SM_SHARD_FULL && sm_layout_devices(layout) > 1) {
        double unit = largest_unit(net);
        if (unit < 0)
            return sm_fail(st, "%s: out of memory", net->name);
        if (sm_device_check_layout(&d->dev, layout->gpus_per_node, st))
            return -1;
        sm_ring_config a = sm_device_ring(&d->dev, d->dev.grad_bytes * unit, d->bucket_bytes, 0,
                                          layout->nodes, layout->gpus_per_node, d->collective);
        sm_allreduce_estimate_of(
            unit > 0 ? sm_collective_choice(&a, SM_OP_REDUCE_SCATTER, d->dev.grad_bytes * unit)
                     : (sm_nccl_choice){"none", "none", 0},
            out);
        return 0;
    }
    /* sharded, the gradients are reduce-scattered, not all-reduced (sync_exposed) */
    int sharded = d->shard != SM_SHARD_NONE && sm_layout_devices(layout) > 1;
    return sm_device_bucket_choice(&d->dev, net, d->bucket_bytes, d->collective,
                                   sharded ? SM_OP_REDUCE_SCATTER : SM_OP_ALL_REDUCE, layout, out,
                                   st);
}

static int device_predict_layers(const void *impl, const sm_network *net, const sm_layout *layout,
                                 sm_layer_prediction *out, sm_status *st)
{
    const device_predictor *d = impl;
    if (sm_checkpoint_check(net, d->checkpoint, st))
        return -1;
    layer_step *ls = layer_steps(d, net, layout->batch, st);
    if (!ls)
        return -1;
    for (int i = 0; i < net->n_layers; i++) {
        const pass_times *t = &ls[i].t;
        out[i] = (sm_layer_prediction){t->infer,     t->fwd,          t->bwd,         t->host_infer,
                                       t->host_fwd,  t->host_bwd,     t->bound_infer, t->bound_fwd,
                                       t->bound_bwd, ls[i].fused != 0};
    }
    free(ls);
    return 0;
}

static void device_free(void *impl) { free(impl); }

static void device_set_optimizer(void *impl, sm_optimizer o)
{
    ((device_predictor *)impl)->optimizer.optimizer = o;
    ((device_predictor *)impl)->optimizer.optimizer_is_default = 0;
}

static const predictor_ops device_ops = {
    device_predict,   device_predict_block, device_predict_blocks, device_free,
    device_allreduce, device_set_optimizer, device_predict_layers};

/* The dispatch's name: the framework's; without one, "kernel-launch" only where every
 * dispatch cost is the bare launch (a [framework] of dispatch keys alone is its file's) */
static const char *dispatch_name(const sm_device *v)
{
    if (v->framework[0])
        return v->framework;
    double l = v->launch_overhead;
    return v->dispatch_infer == l && v->dispatch_fwd == l && v->dispatch_bwd == l &&
                   v->dispatch_update == l
               ? "kernel-launch"
               : "the description's";
}

/* The dispatch costs a [framework] that gives some of them leaves out: they cost the bare
 * launch (device_file.c), said beside the dispatch's name, where a framework file of
 * dispatch_infer_us alone priced training at the 5 us launch unseen; "" where it gives all
 * or none (the kernel-launch dispatch). */
static const char *dispatch_note(const sm_device *v, char *buf, size_t len)
{
    static const char *const keys[] = {"dispatch_infer_us", "dispatch_fwd_us", "dispatch_bwd_us",
                                       "dispatch_update_us"};
    buf[0] = '\0';
    unsigned missing = v->dispatch_not_given;
    if (!missing || missing == 0xfu)
        return buf;
    int n = 0, total = 0;
    for (int k = 0; k < 4; k++)
        total += (missing >> k) & 1;
    size_t at = (size_t)snprintf(buf, len, " (");
    for (int k = 0; k < 4 && at < len; k++)
        if (missing & (1u << k))
            at += (size_t)snprintf(buf + at, len - at, "%s%s",
                                   n++ ? (n == total ? " and " : ", ") : "", keys[k]);
    if (at < len)
        snprintf(buf + at, len - at, " not given: the launch's %g us)", v->launch_overhead * 1e6);
    return buf;
}

/* What the predictor models, with layout naming its activations' layout (or ""). */
static void describe(const device_predictor *d, const char *layout, char *buf, size_t len)
{
    char restriction[256], bucketing[96], note[160], source[96] = "";
    if (d->recipe == (int)d->precision)
        snprintf(source, sizeof source, " (the network's recipe's)");
    else if (d->recipe >= 0) /* bf16's fallback is fp16; any other is the description's */
        snprintf(source, sizeof source, " (%sthe network's recipe: %s, which this part lacks)",
                 d->precision == SM_FP16 && d->recipe == SM_BF16 ? "" : "the description's; ",
                 sm_precision_names[d->recipe]);
    /* fully sharded, the collectives go a unit at a time (full_shard_exposed), in no buckets */
    if (d->shard == SM_SHARD_FULL)
        snprintf(bucketing, sizeof bucketing, " a unit at a time (FSDP)");
    else
        snprintf(bucketing, sizeof bucketing, " in %g MiB buckets%s", d->bucket_bytes / 1048576.0,
                 d->overlap ? " overlapped with the backward pass" : "");
    snprintf(buf, len, "%.63s (%.127s): roofline at %s%s%s%s, %.63s dispatch%s%s%s%s, %s %s%s%s",
             d->dev.name, d->dev.description[0] ? d->dev.description : "no description",
             sm_precision_names[d->precision], source, layout,
             d->dev.fp8_products ? " with fp8 linear products" : "", dispatch_name(&d->dev),
             dispatch_note(&d->dev, note, sizeof note),
             d->dev.host_runs_ahead ? " queued ahead of the kernels" : "",
             d->dev.fused_attention == SM_ATTENTION_FUSED   ? ", fused attention"
             : d->dev.fused_attention == SM_ATTENTION_EAGER ? ", eager attention"
                                                            : "",
             d->dev.fuse_pointwise ? ", compiled (element-wise work fused)" : "",
             d->collective == SM_COLLECTIVE_NCCL ? "NCCL's choice of" : "ring",
             d->shard == SM_SHARD_FULL ? "gathers and reduce-scatters" : "all-reduce",
             sm_device_restriction(&d->dev, d->collective, restriction, sizeof restriction),
             bucketing);
}

int sm_predictor_from_device_opts(const char *name_or_path, const sm_device_options *opt,
                                  sm_predictor **out, sm_status *st)
{
    if (!name_or_path || !out)
        return sm_null_arg(st, __func__, !name_or_path ? "name_or_path" : "out");
    static const sm_device_options defaults = {0};
    if (!opt)
        opt = &defaults;
    device_predictor *d = calloc(1, sizeof *d);
    if (!d)
        return sm_fail(st, "out of memory");
    if (sm_device_open_allreduce(name_or_path, opt, &d->dev, &d->collective, &d->bucket_bytes,
                                 st)) {
        free(d);
        return -1;
    }
    if (opt->framework) {
        char fpath[4096];
        if (sm_data_find("framework", "configs/frameworks", opt->framework, NULL, fpath,
                         sizeof fpath, st) ||
            sm_device_load_framework(fpath, &d->dev, st)) {
            free(d);
            return -1;
        }
    }
    d->precision = d->dev.precision;
    d->recipe = -1;
    if (opt->precision) {
        int p = sm_precision_parse(opt->precision);
        if (p < 0) {
            free(d);
            /* fp8 is no precision of a whole model: its linear products' */
            if (!strcmp(opt->precision, "fp8"))
                return sm_fail(st, "precision fp8: a float8 recipe runs the linear products in "
                                   "fp8 and the rest at 16 bits: give --precision bf16 --fp8");
            return sm_fail(st, "precision %s: expected fp32, tf32, fp16 or bf16", opt->precision);
        }
        d->precision = (sm_precision)p;
    } else if (opt->recipe_precision && opt->recipe_precision[0]) {
        /* no --precision: what the network's recipe computes in, where the part has it */
        int p = sm_precision_parse(opt->recipe_precision);
        if (p < 0) {
            free(d);
            return sm_fail(st, "the network's precision %s: expected fp32, tf32, fp16 or bf16",
                           opt->recipe_precision);
        }
        d->recipe = p;
        if (d->dev.peak[p] > 0)
            d->precision = (sm_precision)p;
        else if (p == SM_BF16 && d->dev.peak[SM_FP16] > 0)
            d->precision = SM_FP16;
    }
    if (d->dev.peak[d->precision] <= 0) {
        /* the precision asked for (the description's own is checked as it loads): what the
         * device has instead, where the key said neither the device nor what to give */
        char has[64] = "";
        for (int q = 0, n = 0; q < SM_N_PRECISIONS; q++)
            if (d->dev.peak[q] > 0)
                snprintf(has + strlen(has), sizeof has - strlen(has), "%s%s", n++ ? ", " : "",
                         sm_precision_names[q]);
        const char *pn = sm_precision_names[d->precision];
        sm_fail(st,
                "precision %s: device %s has no %s peak ([device] peak_%s_tflops in %s); it "
                "has peaks for %s only: give one of those, or add the key to its description",
                pn, d->dev.name, pn, pn, d->dev.path, has[0] ? has : "none");
        free(d);
        return -1;
    }
    d->overlap = opt->overlap != 0;
    int shard = opt->shard ? sm_shard_parse(opt->shard) : SM_SHARD_NONE;
    int checkpoint = opt->checkpoint ? sm_checkpoint_parse(opt->checkpoint) : SM_CHECKPOINT_NONE;
    if (shard < 0 || checkpoint < 0) {
        free(d);
        return shard < 0 ? sm_fail(st, "shard %s: expected none, optimizer, gradients or full",
                                   opt->shard)
                         : sm_fail(st, "checkpoint %s: expected none, selective or full",
                                   opt->checkpoint);
    }
    d->shard = (sm_shard)shard;
    d->checkpoint = (sm_checkpoint)checkpoint;
    if (opt->attention) {
        int fused = !strcmp(opt->attention, "fused");
        if (!fused && strcmp(opt->attention, "eager")) {
            free(d);
            return sm_fail(st, "attention %s: expected eager or fused", opt->attention);
        }
        d->dev.fused_attention = fused ? SM_ATTENTION_FUSED : SM_ATTENTION_EAGER;
    }
    if (opt->compile)
        d->dev.fuse_pointwise = 1;
    if (opt->fp8) {
        /* a float8 recipe converts the linear layers of a model that autocast runs at 16 bits;
         * said before d, whose names the messages hold, is freed */
        if (!sm_precision_is_half(d->precision))
            sm_fail(st,
                    "--fp8: a float8 recipe runs the linear products in fp8 and the rest at 16 "
                    "bits, not at %s: give --precision bf16 (or fp16)",
                    sm_precision_names[d->precision]);
        else if (!(d->dev.peak_fp8 > 0) && d->dev.tensor_cores[0] &&
                 !sm_device_has_fp8(d->dev.tensor_cores))
            sm_fail(st,
                    "--fp8: device %s has no fp8 peak: its %s tensor cores have no FP8 (they "
                    "came with Ada and Hopper); drop --fp8 to price the recipe at 16 bits, as "
                    "the part runs it",
                    d->dev.name, d->dev.tensor_cores);
        else if (!(d->dev.peak_fp8 > 0))
            sm_fail(st,
                    "--fp8: device %s has no fp8 peak: give [device] peak_fp8_tflops in %s "
                    "(the datasheet's dense FP8 figure; FP8 tensor cores came with Ada and "
                    "Hopper)",
                    d->dev.name, d->dev.path);
        if (!sm_precision_is_half(d->precision) || !(d->dev.peak_fp8 > 0)) {
            free(d);
            return -1;
        }
        d->dev.fp8_products = 1;
    }
    if (opt->dispatch) {
        int queued = !strcmp(opt->dispatch, "queued");
        if (!queued && strcmp(opt->dispatch, "added")) {
            free(d);
            return sm_fail(st, "dispatch %s: expected queued or added", opt->dispatch);
        }
        d->dev.host_runs_ahead = queued;
    }
    /* a dispatch that is the device's own time per kernel: queued, the GPU's floor per kernel
     * was hidden as if it were a host's (cuda-graphs' resnet50 forward 4.82 -> 2.56 ms). A file
     * saying both, or kernel_device_us beside it, is refused as it loads (device_file.c,
     * check_on_device); the option is this one's to refuse */
    if (d->dev.host_runs_ahead && d->dev.dispatch_on_device) {
        /* said before d, whose name the message holds, is freed */
        sm_fail(st,
                "--dispatch queued: %s's dispatch is the device's own time per kernel "
                "(dispatch_on_device = 1), which no host runs ahead of",
                d->dev.framework[0] ? d->dev.framework : d->dev.name);
        free(d);
        return -1;
    }

    /* the layout of activations matters to convolutions alone (device_roofline.c): named,
     * with cuDNN's transposes where it stores NCHW at fp16/bf16, for networks that have one */
    int half = sm_precision_is_half(d->precision), nchw = half && !d->dev.channels_last;
    int transposes = half && sm_device_transposes_nchw(&d->dev);
    const char *layout = !half ? "" : nchw ? " NCHW" : " channels-last";
    char description[640], with_conv[640], without_conv[640], transposed[192];
    describe(d, layout, description, sizeof description);
    char what[64] = "around convolutions", matmul[96] = "";
    if (d->dev.nchw_transpose_share < 1)
        snprintf(what, sizeof what, "%.3g%% of the convolutions' tensors",
                 100 * d->dev.nchw_transpose_share);
    if (d->dev.nchw_matmul_positions > 0)
        snprintf(matmul, sizeof matmul,
                 ", not dense 1 x 1 ones of stride 1 over %d positions or more",
                 d->dev.nchw_matmul_positions);
    snprintf(transposed, sizeof transposed, " NCHW (cuDNN transposes %s%s)", what, matmul);
    describe(d, transposes ? transposed : layout, with_conv, sizeof with_conv);
    describe(d, "", without_conv, sizeof without_conv);
    sm_precision precision = d->precision;
    int devices_per_node = d->dev.devices_per_node;
    double peak_flops = sm_device_dense_peak(&d->dev, precision);
    sm_memory_config memory;
    sm_device_memory_config(&d->dev, precision, &memory);
    memory.shard = d->shard;
    memory.checkpoint = d->checkpoint;
    d->optimizer = memory;
    *out = predictor_new(&device_ops, d, description);
    if (!*out)
        return sm_fail(st, "out of memory");
    snprintf((*out)->description_conv, sizeof(*out)->description_conv, "%s", with_conv);
    snprintf((*out)->description_plain, sizeof(*out)->description_plain, "%s", without_conv);
    snprintf((*out)->precision, sizeof(*out)->precision, "%s", sm_precision_names[precision]);
    (*out)->devices_per_node = devices_per_node;
    (*out)->peak_flops = peak_flops;
    (*out)->power_limit = d->dev.power_limit;
    (*out)->memory = memory;
    return 0;
}

int sm_predictor_from_device(const char *name_or_path, sm_predictor **out, sm_status *st)
{
    if (!name_or_path || !out)
        return sm_null_arg(st, __func__, !name_or_path ? "name_or_path" : "out");
    return sm_predictor_from_device_opts(name_or_path, NULL, out, st);
}
