/*
 * scalemeter/plugin.h: the layer-descriptor ABI, all that metrics, fit and predict need of a
 * layer type.
 *
 * A plugin is a shared object that exports one function, SM_PLUGIN_ENTRY, which receives the
 * host's table (sm_host) and returns one descriptor (sm_layer_type) of one layer type: its name,
 * how to parse its parameters, how to infer its output shape and what its forward pass costs.
 * The host (libscalemeter) loads a plugin at run time when a network uses its type (NAME.so,
 * else every plugin) and refuses one whose abi_version it does not know. Plugins never link against
 * the core: everything they call is in this header or passed in by the host (sm_host, sm_args).
 *
 * Kernels, what the benchmark backends run, are a separate ABI: scalemeter/kernels.h. They
 * live in companion modules beside NAME.so, NAME_cpu.so and NAME_gpu.so, loaded only when a
 * backend asks for them, so that counting maps neither a BLAS nor the CUDA libraries; a
 * descriptor may still point at CPU kernels of its own.
 *
 * Shapes are per sample: the batch dimension is never part of an sm_shape, and every count a
 * plugin reports, except weights and param_tensors, is per sample. The host multiplies by the
 * batch.
 */
#ifndef SCALEMETER_PLUGIN_H
#define SCALEMETER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when the descriptor grows; appending fields to a table keeps older plugins loading
 * (its struct_size tells the other side which fields it knows), so the host loads every version
 * from SM_PLUGIN_ABI_OLDEST on, reading what an older one lacks as zero (the defaults under
 * "ABI 3" to "ABI 20" below). Version 1 had no host table and kept the kernel ABI in this
 * header; 2 split it into kernels.h; 3 added traits, matmul_flops and saved; 4 the score fields of
 * metrics and saved (what a fused attention kernel does not write or keep); 5 the kernel counts
 * of metrics (what the training framework launches per pass); 6 serial_bytes (what a layer's
 * element-wise kernels move between its matrix products); 7 upcast_bytes in metrics and saved
 * (what a layer that computes in fp32 moves and keeps more at 16-bit activations) and the
 * score passes of metrics (eager attention's scaling and masking); 8 the softmax's precision of
 * metrics (an eager softmax computed in fp32 at 16-bit activations); 9 the trait
 * SM_TRAIT_AUTOCAST_FP32 (a layer autocast runs in fp32); 10 scores_fused of metrics (an
 * attention layer whose code calls a fused kernel); 11 the library kernels of metrics (what a
 * library launches inside the layer's one call: cuDNN's RNN, a step at a time); 12 view_strides
 * of the descriptor (a view that copies a tensor its input's layout admits no view of: a
 * flatten after a permute); 13 the traits SM_TRAIT_EMBEDDING and SM_TRAIT_TIED (an output
 * layer whose matrix an embedding holds); 14 group_channels of metrics (a grouped or depthwise
 * convolution, which runs in direct kernels bound by the SMs) and view_strides for any type
 * (how the new tensor a layer writes lies: channels-last); 15 the trait SM_TRAIT_POOLING (a
 * window reduction over the positions, whose kernels the SMs bound); 16 norm_rows of metrics (the
 * rows a layer norm reduces each on its own, whose kernels the SMs bound); 17 the trait
 * SM_TRAIT_LOSS (a training loss over logits, which the executors compute themselves); 18
 * scores_broadcast_passes of metrics (eager attention's passes over the scores that read a
 * broadcast operand, its additive mask, whose kernel the SMs bound) and the trait
 * SM_TRAIT_ELEMENTWISE (an addition or product of inputs broadcast to its output, likewise);
 * 19 copy_elems_fwd and copy_elems_bwd of metrics (what eager code copies out of non-contiguous
 * views, in a kernel the SMs bound); 20 bias_grad_elems and bias_grad_sums of metrics (what the
 * backward pass sums into bias gradients in reduction kernels of their own); 21 infer_kept_elems of
 * saved (what an inference pass keeps of the layer's to its end: the keys and values Hugging
 * Face's causal LMs return); 22 linear_products, linear_flops, linear_input_elems and
 * linear_output_elems of metrics (the layer's nn.Linear products, their FLOPs and what they
 * read and write: what a float8 recipe runs in fp8 and casts). Whatever the version,
 * every descriptor starts with abi_version then struct_size, so that the host can read them from a
 * plugin of any version and refuse it by name. */
#define SM_PLUGIN_ABI_VERSION 22u
#define SM_PLUGIN_ABI_OLDEST 2u
#define SM_PLUGIN_ENTRY sm_plugin_layer_type
#define SM_PLUGIN_ENTRY_NAME "sm_plugin_layer_type"

#define SM_MAX_DIMS 4
#define SM_ERROR_LEN 256
/* Saturated value of the checked arithmetic below; the host rejects any metric equal to it. */
#define SM_OVERFLOW INT64_MAX
/* Default value meaning "this parameter is required". */
#define SM_REQUIRED INT64_MIN

#if defined(__GNUC__)
#define SM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SM_PLUGIN_EXPORT
#endif

/* What the host passes to a plugin's entry points (as SQLite's sqlite3_api_routines or a Redis
 * module's context): its ABI version, so a plugin can refuse a host too old for it, and what
 * later versions append. Read only the fields struct_size covers. */
typedef struct sm_host {
    uint32_t struct_size; /* sizeof(sm_host) of the host */
    uint32_t abi_version; /* SM_PLUGIN_ABI_VERSION of the host */
    const char *version;  /* scalemeter's version, "0.1.0" */
} sm_host;

/* Shape of one tensor of one sample: C,H,W for images, S,E for sequences, E for vectors. */
typedef struct sm_shape {
    int ndim;
    int64_t dim[SM_MAX_DIMS];
} sm_shape;

/* Where infer and metrics write a one-line reason when they refuse their inputs. */
typedef struct sm_error {
    char msg[SM_ERROR_LEN];
} sm_error;

/* Parameters of one layer as the network file gives them. The host owns it, remembers which
 * keys were read (an unread key is reported as unknown) and turns any failure into an error
 * naming the file and line. Read it through the sm_arg_* functions below. */
typedef struct sm_args sm_args;
typedef struct sm_args_ops {
    int64_t (*get_int)(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi);
    void (*get_pair)(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                     int64_t out[2]);
    int (*get_bool)(sm_args *a, const char *key, int dflt);
    double (*get_real)(sm_args *a, const char *key, double dflt, double lo, double hi);
    int (*get_choice)(sm_args *a, const char *key, const char *const *choices, int dflt);
    void (*fail)(sm_args *a, const char *msg);
} sm_args_ops;
struct sm_args {
    const sm_args_ops *ops;
};

/* An integer in [lo, hi]; dflt when absent, or an error when dflt is SM_REQUIRED. */
static inline int64_t sm_arg_int(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi)
{
    return a->ops->get_int(a, key, dflt, lo, hi);
}
/* "3" or "3x5" (height x width) into out[0], out[1]. */
static inline void sm_arg_pair(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                               int64_t out[2])
{
    a->ops->get_pair(a, key, dflt, lo, hi, out);
}
/* true/false, yes/no, 1/0. */
static inline int sm_arg_bool(sm_args *a, const char *key, int dflt)
{
    return a->ops->get_bool(a, key, dflt);
}
static inline double sm_arg_real(sm_args *a, const char *key, double dflt, double lo, double hi)
{
    return a->ops->get_real(a, key, dflt, lo, hi);
}
/* Index of the value in the NULL-terminated list choices; dflt when absent (-1: required). */
static inline int sm_arg_choice(sm_args *a, const char *key, const char *const *choices, int dflt)
{
    return a->ops->get_choice(a, key, choices, dflt);
}
/* Rejects a combination of parameters; msg is one line without the file or layer. */
static inline void sm_arg_fail(sm_args *a, const char *msg) { a->ops->fail(a, msg); }

/* What one forward pass of the layer costs for one sample. metrics receives it zeroed, but for
 * input_elems and output_elems, filled from the shapes, and bytes, 4 * (input_elems +
 * output_elems); a plugin sets what is not zero and changes those three only where its layer
 * differs (a view moves no bytes). */
typedef struct sm_layer_metrics {
    int64_t flops;         /* forward FLOPs, a multiply-accumulate counted as 2 */
    int64_t macs;          /* forward multiply-accumulates (what torchvision calls GFLOPS) */
    int64_t weights;       /* trainable parameters (not per sample) */
    int64_t param_tensors; /* trainable tensors, as nn.Module.parameters() lists them */
    int64_t input_elems;   /* elements of all inputs */
    int64_t output_elems;  /* elements of the output */
    int64_t bytes;         /* activation bytes read and written at fp32 (weights: host adds) */
    int64_t bwd_flops;     /* backward FLOPs (input and weight gradients); 0: host estimates */
    int counts_io;         /* 1: input/output elements count towards ConvMeter's I and O; 0 or 1 */
    /* ABI 3. Of flops, those done as matrix products, which tensor cores run at tf32, fp16 and
     * bf16 (the rest, element-wise work, runs at the fp32 vector rate at every precision). 0: all
     * of flops when the type has SM_TRAIT_MATMUL, none otherwise; the backward pass has the same
     * share. Set it where a layer is partly both (attention's softmax, a recurrent cell's gates).
     */
    int64_t matmul_flops;
    /* ABI 4, attention layers. Of bytes, those of the S x S score and probability matrices that
     * an eager attention writes and reads back; of matmul_flops, those of the score product
     * Q K^T. A fused kernel (FlashAttention, PyTorch's scaled_dot_product_attention) keeps the
     * scores on chip, so the host drops scores_bytes when the framework fuses attention, and
     * adds scores_flops to the backward pass, which recomputes them. 0: nothing to drop. */
    int64_t scores_bytes;
    int64_t scores_flops;
    /* ABI 5. Kernels eager PyTorch launches on a GPU for one pass of the layer in training,
     * each paying the framework's dispatch ([framework] dispatch_* of a device file): forward
     * and backward. 0: the default, one when the layer costs anything (FLOPs, bytes or
     * weights), none otherwise. Set them where a layer launches more (batch norm's
     * num_batches_tracked update, a convolution's bias addition and bias gradient, stochastic
     * depth's mask). Of kernels_fwd, kernels_train_only run in training alone (batch norm's
     * statistics update, a dropout or stochastic depth that inference skips): inference
     * launches kernels_fwd - kernels_train_only, and a layer that launches none there takes
     * no time at inference. 0: all run at inference too. */
    int kernels_fwd;
    int kernels_bwd;
    int kernels_train_only;
    /* ABI 6. Of bytes (and beside scores_bytes), those its element-wise kernels move between its
     * matrix products: they run alone on the stream, so the host adds their time to the
     * layer's roofline instead of hiding it under the products' arithmetic (SwiGLU's silu and
     * product, between gate/up and down). The products' own reads and writes are not among
     * them. 0: none (a layer of one kernel, or whose element-wise work is its whole cost). */
    int64_t serial_bytes;
    /* ABI 7. Bytes more, as stored, that one forward pass moves when the activations are fp16
     * or bf16, because the layer computes in fp32 whatever they are: its casts up and down and
     * its fp32 temporaries (Llama's RMSNorm, x.float() ... .type_as(x): 36 bytes per element
     * against the 14 that bytes / 2 gives). The backward pass, which autograd runs through the
     * same fp32 graph, moves twice as many, as it does bytes. 0: none, the layer's bytes halve
     * with its activations (a fused kernel that upcasts in registers moves nothing more). */
    int64_t upcast_bytes;
    /* ABI 7, attention layers. Element-wise passes over the scores beside the softmax (and the
     * dropout the host derives), each a kernel of its own reading and writing every score:
     * in the forward pass and in the backward pass. Hugging Face's BERT divides the scores by
     * sqrt(d) and adds its mask (2 forward; 1 backward: the addition's gradient is the
     * scores'). Their bytes are among scores_bytes, which then count 4 + 2 passes_fwd reads
     * or writes of every score, so a fused kernel, which does them on chip, drops them. */
    int scores_passes_fwd;
    int scores_passes_bwd;
    /* ABI 8, attention layers. How an eager softmax computes when the activations are fp16 or
     * bf16 (SM_SOFTMAX_*; 0: at their precision). Llama's code computes it in fp32 and casts
     * the probabilities back, which PyTorch runs as kernels of their own over every score and
     * whose fp32 output autograd keeps; the host prices them from scores_bytes' score count,
     * and drops them where the framework fuses attention. */
    int scores_softmax;
    /* ABI 10, attention layers. 1: the network's code runs the layer as one fused kernel
     * (scaled_dot_product_attention: torchvision's ViT, Hugging Face's default "sdpa"), so the
     * host prices it as fused, drops its score fields, unless the framework runs attention of
     * its own eagerly ([framework] fused_attention = 0, --attention eager). 0: eager code (a
     * framework with fused_attention = 1 fuses it all the same). */
    int scores_fused;
    /* ABI 11. Kernels a library launches inside the layer's one call, beyond those the
     * framework dispatches (kernels_fwd, kernels_bwd): cuDNN's RNN runs its recurrence as a
     * matrix product and an element-wise kernel per time step, layer and direction, each
     * launched from the host after the last. Each pays the device's bare launch ([device]
     * launch_overhead_us), not the framework's dispatch, beside the layer's roofline: over
     * thousands of steps they, not the layer's FLOPs, bound it. Forward (inference and
     * training alike) and backward; not per sample. 0: none (the layer's kernels are those its
     * kernel counts say). */
    int64_t library_kernels_fwd;
    int64_t library_kernels_bwd;
    /* ABI 14, convolutions (SM_TRAIT_CONVOLUTION). Input channels per group where the layer
     * has more than one group: 1 a depthwise convolution (MobileNet's, groups = channels),
     * more a grouped one (ResNeXt's 32 groups of 4 to 32). Dense convolutions run as implicit
     * matrix products on tensor cores; grouped and depthwise ones in direct kernels (PyTorch's
     * conv_depthwise2d, cuDNN's grouped kernels) bound by the SMs' issue of their elements
     * and multiply-accumulates, which a framework's [framework] depthwise_* and grouped_* keys
     * price per SM and clock. 0: a dense convolution, or not a convolution. */
    int64_t group_channels;
    /* ABI 16, normalisations without batch statistics (SM_TRAIT_NORMALISATION alone: nn.LayerNorm,
     * torchvision's LayerNorm2d). Rows of one sample the layer normalises each on its own (its
     * positions: the input's elements over the normalised shape's). PyTorch's layer norm kernels
     * reduce a row in a block of their own, so at a few hundred elements a row the SMs' pace per
     * row bounds them, not the DRAM (an H100 and an H200 took the same 1.6 ns a row of ConvNeXt-T's
     * 96 channels), which a framework's [framework] rownorm_* keys price. 0: not given, the layer
     * is priced by its bytes. */
    int64_t norm_rows;
    /* ABI 18, attention (scores_bytes). Of the forward passes over the scores
     * (scores_passes_fwd), those that read a second operand broadcast over them: an additive
     * mask of one row a sequence (BERT's). Eager PyTorch runs such a pass in TensorIterator's
     * non-vectorized loop, which the SMs' issue bounds, not the DRAM (an H200 took 622 us for
     * BERT-large's at batch 96 where its DRAM moves the bytes in 190), and a framework's
     * [framework] broadcast_* keys price it per SM and clock. 0: none, or not given. */
    int64_t scores_broadcast_passes;
    /* ABI 19. Elements of one sample that eager code copies out of non-contiguous views in the
     * forward pass and in the backward pass: Hugging Face's eager attention makes its context
     * contiguous after merging the heads (context.permute(...).contiguous()), and the backward
     * of its Q, K and V views (ViewBackward) copies their gradients, which arrive in the heads'
     * layout, back to the projections' rows. PyTorch copies a strided tensor in
     * TensorIterator's non-vectorized loop, which the SMs' issue bounds, not the DRAM (an H200
     * copied BERT-large's 37.7 M elements in 100 us at fp16 and 118 at fp32 where its DRAM
     * moves them in 45 and 90: 1.2-1.4 elements a SM clock, the broadcast loop's pace), and a
     * framework's [framework] broadcast_elements_per_sm_clock prices them. Each copy's read and
     * write are among bytes (forward; backward, among the backward pass's twice as many). Like
     * the score fields, a fused attention kernel drops them. 0: none, or not given. */
    int64_t copy_elems_fwd;
    int64_t copy_elems_bwd;
    /* ABI 20. Elements of one sample's output gradients that the backward pass sums over their
     * rows into bias gradients: a bias added to every row of a product (nn.Linear's, the
     * attention projections') has as gradient the sum of its output's gradient over the rows,
     * which eager PyTorch computes in a reduction kernel of its own beside the products
     * (AddmmBackward's reduce_kernel): rows x out for nn.Linear, in bias_grad_sums reductions,
     * one a bias tensor. An H200 took about 16 us a sum beside 3.2 elements a SM clock at 32 bits
     * (6.1 at 16), under half its DRAM's rate, and a framework's [framework] bias_grad_* keys
     * price them. A convolution's bias is the host's (conv_bias, from its weights): leave both
     * 0 there. Elements at most those of the bytes the layer moves (bytes / 4), sums at most its
     * param_tensors and none without elements. 0: none, or not given. */
    int64_t bias_grad_elems;
    int bias_grad_sums;
    /* ABI 22. The layer's linear products (nn.Linear modules: a projection of its input by a
     * weight matrix, not attention's score and context products): how many, their forward
     * FLOPs (of matmul_flops; the backward pass has twice as many), and the elements of one
     * sample they read as their input, each tensor once however many products read it (q, k
     * and v read one), and write as their output, summed over the products. A float8 recipe
     * (torchao's Float8Linear, Transformer Engine) casts each input and weight to fp8 in the
     * forward pass and each output's gradient in the backward pass, once a tensor (Transformer
     * Engine's fused q, k and v product reads its input once, and torch.compile's common
     * subexpressions cast a shared one once), and runs the products on fp8 tensor cores;
     * `predict --fp8` prices them so (docs/precision.md). 0: none declared, which a
     * type with SM_TRAIT_MATMUL and no SM_TRAIT_CONVOLUTION takes as one product of all its
     * matmul_flops over its input and output (nn.Linear's). linear_flops at most matmul_flops,
     * each elements at most linear_flops / 2 (a product of depth K and width N does 2 K N
     * FLOPs an output row), all 0 exactly where the products are. */
    int linear_products;
    int64_t linear_flops;
    int64_t linear_input_elems;
    int64_t linear_output_elems;
} sm_layer_metrics;

/* scores_softmax (ABI 8). SM_SOFTMAX_FLOAT: softmax(x.float()).type_as(x) (Meta's reference
 * code), and softmax(x, dtype=float32) at bf16, which PyTorch runs the same way (SoftMax.cpp):
 * a cast up, an fp32 softmax, a cast down, 16 bytes more per score forward than a 16-bit
 * softmax and 18 backward, and its fp32 output, 4 bytes per score, kept. SM_SOFTMAX_DTYPE:
 * softmax(x, dtype=torch.float32).to(x.dtype) (Hugging Face): at fp16 PyTorch's softmax reads
 * fp16 and writes fp32 in one kernel (half_to_float), 8 bytes more forward and 10 backward;
 * at bf16 as SM_SOFTMAX_FLOAT. */
enum { SM_SOFTMAX_NATIVE = 0, SM_SOFTMAX_FLOAT = 1, SM_SOFTMAX_DTYPE = 2 };

/* Traits: what kind of layer a type is, all that the host's pricing, fusion and the network's
 * family go by (the core never looks at a type's name). A type declares every one that holds. */
enum {
    SM_TRAIT_MATMUL = 1u << 0,           /* its FLOPs are matrix products (see matmul_flops) */
    SM_TRAIT_CONVOLUTION = 1u << 1,      /* a convolution: a CNN's; cuDNN's layout transposes;
                                            declared with SM_TRAIT_MATMUL (its MACs are implicit
                                            matrix products), or the host refuses it */
    SM_TRAIT_NORMALISATION = 1u << 2,    /* normalises its input (batch, layer, group norm) */
    SM_TRAIT_BATCH_STATISTICS = 1u << 3, /* its statistics are per channel over the batch
                                            (batch norm): a convolution's epilogue can sum them */
    SM_TRAIT_ACTIVATION = 1u << 4,       /* element-wise function of one input: rides an epilogue */
    SM_TRAIT_RESIDUAL = 1u << 5,         /* adds its inputs element-wise (a residual connection) */
    SM_TRAIT_ATTENTION = 1u << 6,        /* attention over a sequence: a transformer's */
    SM_TRAIT_RECURRENT = 1u << 7,        /* a recurrent layer: a recurrent network's */
    SM_TRAIT_VIEW = 1u << 8, /* only moves or aliases its input: its output is input 0's storage
                                unless saved() says otherwise, and it keeps nothing */
    /* ABI 9. CUDA autocast runs it in fp32 (ATen's autocast_mode.cpp, its fp32 list: layer_norm,
     * group_norm): under autocast at fp16 and bf16 it moves its fp32 bytes, keeps its inputs in
     * fp32 and writes an fp32 output (tools/torch_autocast_norm.py measures a norm's). */
    SM_TRAIT_AUTOCAST_FP32 = 1u << 9,
    /* ABI 13. A table of rows looked up by index (nn.Embedding): its weights are its rows x the
     * last dimension of its output. */
    SM_TRAIT_EMBEDDING = 1u << 10,
    /* ABI 13. Its matrix is an embedding's, [..., E] -> [..., V] (a language model's output
     * layer tied to its token embedding): its weights hold none of it, so the network must
     * hold an SM_TRAIT_EMBEDDING layer of V rows of E, whose weights count it. */
    SM_TRAIT_TIED = 1u << 11,
    /* ABI 15. Reduces each channel over windows of its positions, or all of them (max and
     * average pooling, nn.AdaptiveAvgPool2d), with no weights: a framework's pooling kernels,
     * which the SMs bound rather than the DRAM ([framework] pooling_*_elements_per_sm_clock).
     * An output of one element a channel is a global pooling, whose backward pass is a
     * broadcast. */
    SM_TRAIT_POOLING = 1u << 12,
    /* ABI 17. The training loss over logits: a softmax cross-entropy of each row (the last
     * dimension holds the classes) against its label, one loss a row (F.cross_entropy,
     * reduction='none'). The executors compute it themselves, on its input, as their loss: a
     * network that ends in one runs without kernels for it. It has no weights, one input, and
     * the executors take it only as a network's last layer reading the layer before it. */
    SM_TRAIT_LOSS = 1u << 13,
    /* ABI 18. An element-wise function of two or more inputs broadcast to its output as
     * PyTorch broadcasts them (add, mul). Where an input has fewer elements than the output (a
     * squeeze-and-excitation's scale over the channels), eager PyTorch runs TensorIterator's
     * non-vectorized loop, which the SMs' issue bounds, not the DRAM; a framework's
     * [framework] broadcast_elements_per_sm_clock prices its forward pass then. */
    SM_TRAIT_ELEMENTWISE = 1u << 14,
};

/* What one layer keeps for its backward pass, for one sample, as the framework's autograd
 * keeps it (PyTorch's derivatives.yaml): the host adds up unique storages, so a tensor kept by
 * two layers (a ReLU's output, the next convolution's input) counts once. */
typedef struct sm_layer_saved {
    uint32_t inputs;   /* bit k: input k is kept (a convolution's input); bit 31: input 31
                          and every later one */
    int output;        /* 1: the output is kept (ReLU, sigmoid, softmax keep their results) */
    int aliases_input; /* 1: the output is input 0's storage (in place, or a view); with no
                          backward kernel (kernels_bwd), the identity: its gradient passes on */
    /* Intermediate activations of the layer's own, per sample, in elements stored at the
     * activation precision (attention's projections and scores, a recurrent layer's gates). */
    int64_t extra_elems;
    /* Elements of dropout masks: stored as the framework does, one byte each under CUDA (a bool
     * mask), an activation-sized float each on PyTorch's CPU path (device [framework] key). */
    int64_t mask_elems;
    /* Tensors of the layer's own, in bytes as stored whatever the precision: max pooling's int64
     * indices, dropout's one-byte mask, layer norm's fp32 mean and rstd per row. */
    int64_t extra_bytes;       /* per sample */
    int64_t extra_bytes_fixed; /* whatever the batch (batch norm's per-channel statistics) */
    /* ABI 4, attention layers: what a fused kernel keeps instead of eager attention's scores.
     * Of extra_elems, the S x S probabilities (and their dropout's output) that eager attention
     * keeps; of mask_elems, the dropout mask on them (a fused kernel regenerates it from the
     * random seed). A fused kernel keeps its operands and output, which eager attention keeps
     * too, and fused_bytes more as stored (FlashAttention's fp32 log-sum-exp of every row). The
     * host uses them only when the framework fuses attention. */
    int64_t scores_elems;
    int64_t scores_mask_elems;
    int64_t fused_bytes;
    /* ABI 4. Under selective checkpointing (torchtitan's op policy: inside a checkpointed
     * block the outputs of matrix products, all but every second one, and of fused attention
     * kernels are kept, everything else recomputed in the backward pass), a layer that is
     * partly both says so: selective = 1, and what it keeps then of its own (elements at the
     * activation precision, and bytes as stored), whether its output is among those, and the
     * FLOPs of the matrix products it recomputes, its own products counted from an odd one.
     * selective = 0: a layer that attends keeps all it keeps; a plain matrix product keeps its
     * output alone or is recomputed whole, odd or even in the block's count; any other layer
     * is recomputed whole. */
    int selective;
    int selective_output;
    int64_t selective_elems;
    int64_t selective_bytes;
    int64_t selective_flops;
    /* ABI 4. Bytes per sample its backward pass allocates at once beside what it keeps and
     * its output's gradient (a loss's gradients of its fp32 log-probabilities); the host
     * counts the larger of it and its inputs' new gradients. */
    int64_t backward_bytes;
    /* ABI 7. Bytes more per sample, as stored, that it keeps when the activations are fp16 or
     * bf16, because it keeps fp32 copies then (RMSNorm's x.float(), where at fp32 .float() is
     * the input itself). 0: what it keeps follows the activation precision. */
    int64_t upcast_bytes;
    /* ABI 21. Elements per sample, at the activation precision, of tensors of its own that an
     * inference pass keeps alive from the layer to the pass's end, beside its output: the keys
     * and values Hugging Face's causal LMs return (use_cache, on by default): GPT-2's are
     * views of its fused c_attn output, which stays whole (3 S E), OPT's and Llama's their own
     * tensors (2 S E_kv). Training keeps them for the backward pass anyway (extra_elems). 0:
     * nothing past the layer (and every plugin before ABI 21). */
    int64_t infer_kept_elems;
} sm_layer_saved;

typedef struct sm_layer_type {
    uint32_t abi_version; /* SM_PLUGIN_ABI_VERSION */
    uint32_t struct_size; /* sizeof(sm_layer_type) */
    const char *name;     /* the type name network files use: "conv2d" */
    const char *summary;  /* one line for `scalemeter plugins` */
    size_t params_size;   /* bytes of the parsed parameters; the host allocates them zeroed */
    int min_inputs;
    int max_inputs; /* 0: any number */

    /* Reads the parameters into params; failures go through sm_arg_fail or the range checks. */
    void (*parse)(void *params, sm_args *args);
    /* Output shape from the input shapes; non-zero with err->msg set when they do not fit. */
    int (*infer)(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err);
    /* Forward cost; non-zero with err->msg set on failure. NULL: no FLOPs, no weights, and the
     * host's defaults (a layer that only moves its input, as a concatenation or a permutation). */
    int (*metrics)(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                   sm_layer_metrics *m, sm_error *err);

    /* Optional (NULL where absent): CPU kernels of the plugin's own (kernels.h), which win over
     * a NAME_cpu.so companion; the shipped plugins leave it NULL and use the companion. */
    const struct sm_cpu_kernels *cpu;

    /* ABI 3; a plugin of ABI 2 has neither (zero), so: no traits, and the default below. */
    uint32_t traits; /* SM_TRAIT_* */
    /* What the layer keeps for backward; s arrives zeroed. NULL: the host assumes the
     * conservative default, every input and the output kept (none kept and the output aliased
     * for a SM_TRAIT_VIEW type), and `scalemeter plugins` says the type relies on it. */
    int (*saved)(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                 sm_layer_saved *s, sm_error *err);

    /* ABI 12, views (SM_TRAIT_VIEW). How the output lies over input 0's storage, given how
     * that lies: in_strides[k] is the step, in elements, between neighbours along in[0]'s
     * dimension k (per sample; a contiguous C x H x W has H W, W, 1; a permuted one, the
     * permuted steps). out_strides arrives holding the contiguous strides of out. Return 0
     * where the output is a view, out_strides then its steps over the same storage (a
     * permutation permutes them); return 1 where in_strides admit no view, so that the
     * layer copies its input into a new tensor, as torch.reshape and torch.flatten copy a
     * tensor that is not contiguous over the dimensions they merge (a transposed one,
     * PyTorch's computeStride), out_strides then the copy's (left contiguous). The host
     * prices a copy as one kernel each pass reading and writing the tensor, and its output
     * as a new storage. NULL: the output is a view, laid out contiguously (every view of
     * older plugins). ABI 14: a type that is no view may give it too, to say how the new
     * tensor it writes lies, its return value unread: a convolution keeps its input's
     * channels-last layout (cuDNN's), torchvision's LayerNorm2d permutes its output back to
     * one; the host then knows which convolutions PyTorch runs on channels-last tensors
     * (cuDNN's depthwise kernels, no layout transposes). NULL: contiguous, or as the host's
     * rule for the type's traits says (an activation's and a residual sum's: their first
     * input's). */
    int (*view_strides)(const void *params, const sm_shape *in, const int64_t *in_strides,
                        const sm_shape *out, int64_t *out_strides);
} sm_layer_type;

/* The saved() of a layer that keeps nothing for its backward pass (a sum, a concatenation, a
 * copy into a new tensor): distinct from NULL, which asks for the conservative default. */
static inline int sm_saved_nothing(const void *params, const sm_shape *in, int n_in,
                                   const sm_shape *out, sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)s, (void)err;
    return 0;
}

/* The saved() of a layer that keeps its first input alone (a convolution, a linear layer). */
static inline int sm_saved_input(const void *params, const sm_shape *in, int n_in,
                                 const sm_shape *out, sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)err;
    s->inputs = 1;
    return 0;
}

/* The saved() of a view (SM_TRAIT_VIEW): its output is its input's storage; it keeps nothing. */
static inline int sm_saved_view(const void *params, const sm_shape *in, int n_in,
                                const sm_shape *out, sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)err;
    s->aliases_input = 1;
    return 0;
}

#define SM_LAYER_TYPE_INIT                                                                         \
    .abi_version = SM_PLUGIN_ABI_VERSION, .struct_size = sizeof(sm_layer_type)

/* The entry point's type: the host's table in, the descriptor out (NULL: refuse to load). */
typedef const sm_layer_type *(*sm_plugin_entry_fn)(const sm_host *host);

/* Defines the entry point of a plugin returning its descriptor whatever the host; the host
 * compares the versions. */
#define SM_DEFINE_PLUGIN(descriptor)                                                               \
    SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(const sm_host *host);                    \
    SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(const sm_host *host)                     \
    {                                                                                              \
        (void)host;                                                                                \
        return &(descriptor);                                                                      \
    }

/* Checked arithmetic: results saturate at SM_OVERFLOW, which the host reports as an overflow. */
static inline int64_t sm_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (a == SM_OVERFLOW || b == SM_OVERFLOW || __builtin_mul_overflow(a, b, &r))
        return SM_OVERFLOW;
    return r;
}
static inline int64_t sm_add(int64_t a, int64_t b)
{
    int64_t r;
    if (a == SM_OVERFLOW || b == SM_OVERFLOW || __builtin_add_overflow(a, b, &r))
        return SM_OVERFLOW;
    return r;
}
static inline int64_t sm_shape_elems(const sm_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++)
        n = sm_mul(n, s->dim[i]);
    return n;
}
/* Whether a C x H x W tensor of those steps (per sample, in elements) lies channels-last
 * (NHWC): its channels adjacent, over a map of more than one position. The host and the
 * plugins that keep or write that layout (view_strides, ABI 14) read it alike. */
static inline int sm_steps_channels_last(const sm_shape *s, const int64_t *steps)
{
    return s->ndim == 3 && s->dim[0] > 1 && sm_mul(s->dim[1], s->dim[2]) > 1 && steps[0] == 1;
}
/* Writes a shape as "64x56x56" into buf. */
static inline const char *sm_shape_str(const sm_shape *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->ndim && used < len; i++) {
        int w = snprintf(buf + used, len - used, i ? "x%lld" : "%lld", (long long)s->dim[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
#define sm_error_set(err, ...) snprintf((err)->msg, sizeof((err)->msg), __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
