/*
 * scalemeter/memory.h: what one device holds while it trains or runs a network, and whether
 * that fits the device.
 *
 * Training holds the weights, their gradients and the optimizer's state, the activations that
 * autograd keeps for the backward pass at the end of the forward pass (each layer's plugin
 * says what it keeps; a tensor kept by two layers counts once), the libraries' workspace and,
 * outside the allocator, the framework's context. Inference holds the weights and the peak of
 * the tensors alive at once during the forward pass. docs/memory.md has the model, its
 * sources and where it differs from what PyTorch allocates.
 */
#ifndef SCALEMETER_MEMORY_H
#define SCALEMETER_MEMORY_H

#include "scalemeter/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SM_OPTIMIZER_SGD,      /* plain SGD: no state */
    SM_OPTIMIZER_MOMENTUM, /* SGD with momentum: one fp32 buffer per weight */
    SM_OPTIMIZER_ADAM,     /* Adam: two (exp_avg, exp_avg_sq) */
    SM_OPTIMIZER_ADAMW,    /* AdamW: two */
    SM_N_OPTIMIZERS
} sm_optimizer;

/* "sgd", "momentum", "adam", "adamw"; sm_optimizer_parse: -1 for another name or NULL. */
const char *sm_optimizer_name(sm_optimizer o);
int sm_optimizer_parse(const char *name);

/* Sharded data parallelism (ZeRO-1/2/3; FSDP's SHARD_GRAD_OP is gradients, FULL_SHARD full):
 * across the devices each holds 1/N of the optimizer's state, also of the gradients, also of
 * the weights. */
typedef enum {
    SM_SHARD_NONE,      /* DDP: a full replica each */
    SM_SHARD_OPTIMIZER, /* ZeRO-1 */
    SM_SHARD_GRADIENTS, /* ZeRO-2, FSDP SHARD_GRAD_OP */
    SM_SHARD_FULL,      /* ZeRO-3, FSDP FULL_SHARD */
    SM_N_SHARDS
} sm_shard;

/* Activation checkpointing of the units (the network file's [block]s of more than one layer):
 * full keeps only each unit's inputs and recomputes the rest in the backward pass; selective
 * (torchtitan's op policy) keeps what matrix-multiplying and attention layers keep. */
typedef enum {
    SM_CHECKPOINT_NONE,
    SM_CHECKPOINT_SELECTIVE,
    SM_CHECKPOINT_FULL,
    SM_N_CHECKPOINTS
} sm_checkpoint;

/* "none", "optimizer", "gradients", "full"; "none", "selective", "full"; parse: -1 for another
 * name or NULL. */
const char *sm_shard_name(sm_shard s);
int sm_shard_parse(const char *name);
const char *sm_checkpoint_name(sm_checkpoint c);
int sm_checkpoint_parse(const char *name);

/* Which attention layers run as one fused kernel (FlashAttention, scaled_dot_product_attention),
 * keeping no score matrices: those whose code calls one (plugin.h's scores_fused: torchvision's
 * ViT, Hugging Face's default attention), every one (a framework that fuses attention of its
 * own: torchtitan, Megatron-Core), or none (a framework whose own attention is eager). */
enum { SM_ATTENTION_EAGER = -1, SM_ATTENTION_AS_WRITTEN = 0, SM_ATTENTION_FUSED = 1 };

/* What the framework and the device add to the network's own tensors. */
typedef struct sm_memory_config {
    int half; /* 1: fp16/bf16 activations of 2 bytes (autocast or a cast model), else 4 */
    int fp16; /* 1: the 16-bit activations are fp16 (PyTorch runs Hugging Face's fp32 softmax
                 of them in one kernel: plugin.h's SM_SOFTMAX_DTYPE) */
    sm_optimizer optimizer;
    double mask_bytes;           /* per dropout mask element: 1 (CUDA's bool mask), 4 (CPU's) */
    double workspace_bytes;      /* the matrix library's workspace (cuBLAS), every network's */
    double conv_workspace_bytes; /* the convolution library's (cuDNN): networks with a
                                    convolution hold it besides */
    double context_bytes;        /* outside the allocator: CUDA context, the framework's kernels */
    double capacity_bytes;       /* the device's memory; 0: not known */
    sm_shard shard;              /* (training) what is divided across the devices */
    sm_checkpoint checkpoint;    /* (training) what the units keep for the backward pass */
    int fused_attention;         /* SM_ATTENTION_*: which attention layers keep a fused kernel's
                                    tensors, not their score matrices (plugin.h's sm_layer_saved) */
    int autocast; /* 1: the 16-bit activations come from PyTorch's autocast, which runs every
                     softmax in fp32 (Hugging Face's SM_SOFTMAX_DTYPE); 0: the model is cast
                     (model.half(), bf16 parameters) and its softmax is the plugin's */
    int no_fused_dropout; /* 1: fused attention kernels take no dropout, so attention with
                             dropout on its probabilities runs eagerly (PyTorch's CPU
                             scaled_dot_product_attention); 0: they do (FlashAttention) */
    /* how the framework stores the model (0 each: as AMP does, fp32 parameters that autocast
     * copies to 16 bits, an fp32 gradient and DDP's bucket copy of it): bytes a parameter is
     * stored in (2: a cast model, Megatron's bf16 parameters), whether the fp32 master weights
     * are the optimizer's (sharded with its state), bytes a gradient is kept in, and whether
     * that gradient buffer is the all-reduce's bucket itself (no copy: Megatron's main_grad) */
    double param_bytes;
    int master_in_optimizer;
    double grad_bytes;
    int grad_is_bucket;
    int optimizer_is_default; /* 1: optimizer is a default nobody chose (no --optimizer, no
                                 framework's optimizer key), and a network that names its
                                 recipe's (sm_network.optimizer: Llama's AdamW) is priced
                                 with that instead; 0: optimizer holds for every network */
} sm_memory_config;

/* The optimizer c prices net with: the network's recipe where c's is only the default. */
sm_optimizer sm_memory_optimizer(const sm_memory_config *c, const sm_network *net);

/* Bytes of one device. peak = weights + gradients + optimizer + activations + backward +
 * workspace, what the framework's allocator holds at most (torch.cuda.max_memory_allocated);
 * fits compares peak + context with capacity. */
typedef struct sm_memory {
    double weights;   /* fp32 (AMP keeps fp32 master weights); sharded fully: 1/N of them
                         and, gathered at the gather precision (2 bytes at fp16 and bf16),
                         the root unit's (the layers outside blocks) and two blocks' (the
                         one computed, the one prefetched) */
    double gradients; /* fp32, and DDP's bucket copy of them on more than one device;
                         sharded: 1/N and the largest layer's unsharded gradient */
    double optimizer;
    double activations; /* training: what autograd keeps for the backward pass at the end of
                           the forward pass (checkpointed: the units' inputs and what the
                           policy keeps) and the network's output; inference: the peak of
                           live tensors */
    double backward;    /* training: what the backward pass holds beside what is still kept,
                           at the step's peak: the gradients of activations, a checkpointed
                           unit's recomputed tensors, a layer's scratch; inference: 0 */
    double workspace;
    double context;
    double peak;
    double capacity; /* 0: not known */
    int fits;        /* 1, 0, or -1 where the capacity is not known */
} sm_memory;

/* Training memory of net at a per-device batch on `devices` devices (DDP: one replica each;
 * c->shard divides the states across them); training = 0: inference. -1 with a message for
 * any sharding but SM_SHARD_NONE on one device, fewer than one device, an optimizer, shard or
 * checkpoint this header does not name, and a size of c below zero or not finite. */
int sm_network_memory(const sm_network *net, int64_t batch, int64_t devices, int training,
                      const sm_memory_config *c, sm_memory *out, sm_status *st);

/* The largest per-device batch whose memory fits (training or inference), searched up to
 * SM_MAX_BATCH_SEARCHED (2^40): 0 where even batch 1 does not fit; -1 with a message where the
 * capacity is not known; SM_MAX_BATCH_UNBOUNDED with a message where every batch searched fits
 * (a tiny network on a large memory), *out then SM_MAX_BATCH_SEARCHED, a bound and not a
 * largest batch. */
#define SM_MAX_BATCH_SEARCHED ((int64_t)1 << 40)
#define SM_MAX_BATCH_UNBOUNDED (-2)
int sm_network_max_batch(const sm_network *net, int64_t devices, int training,
                         const sm_memory_config *c, int64_t *out, sm_status *st);

/* The memory configuration of a predictor: its description's (capacity, workspace, context,
 * the framework's optimizer and masks) at its precision; a calibration alone knows only its
 * precision (no capacity). 0, or -1 for a NULL p or out. */
int sm_predictor_memory_config(const sm_predictor *p, sm_memory_config *out);
/* Replaces the predictor's optimizer (`--optimizer`); nothing for a NULL p or an optimizer
 * this header does not name. */
void sm_predictor_set_optimizer(sm_predictor *p, sm_optimizer o);
/* sm_network_memory with the predictor's configuration, on the layout. */
int sm_predict_memory(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      int training, sm_memory *out, sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
