/* A device and cluster description as read from configs/devices/NAME.ini (device_file.c);
 * every quantity in SI units (FLOP/s, bytes/s, seconds). Internal to the core. */
#ifndef SCALEMETER_DEVICE_FILE_H
#define SCALEMETER_DEVICE_FILE_H

#include "device/allreduce_model.h"
#include "scalemeter/comm.h"
#include "scalemeter/device.h"
#include "scalemeter/memory.h"
#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"
#include "util/precision.h"

typedef struct sm_device {
    char path[4096];
    char name[64];
    char description[192];
    double peak[SM_N_PRECISIONS];       /* FLOP/s; 0 where the file gives none */
    sm_precision precision;             /* the file's default */
    double memory_bandwidth;            /* bytes/s */
    double compute_efficiency;          /* fraction of peak a layer reaches, (0, 1] */
    double efficiency[SM_N_PRECISIONS]; /* per precision; compute_efficiency where not given */
    /* per precision, the convolutions' (cuDNN's implicit GEMMs) fraction of the matrix peak:
     * the generation's where it has one of its own (Hopper's fp16 and bf16, docs/devices.md),
     * efficiency[p] otherwise */
    double conv_efficiency[SM_N_PRECISIONS];
    double memory_efficiency; /* fraction of memory bandwidth a layer reaches, (0, 1] */
    /* fraction of it a plain element-wise kernel reaches (an activation, a residual addition,
     * a product of same-shaped inputs: one vectorised read of each input and one write), (0, 1];
     * memory_efficiency stands for every other memory-bound kernel (device_arch.c) */
    double stream_efficiency;
    /* FP8 (E4M3 and E5M2 products, fp32 accumulation) dense tensor peak, FLOP/s, and the
     * fraction of it matrix products reach: 0 where the part has none, and where the file
     * gives no efficiency, the run's 16-bit products' (docs/precision.md) */
    double peak_fp8, fp8_efficiency;
    /* 1: a float8 recipe runs the linear products (plugin.h's linear_products) on the fp8
     * tensor cores and casts their operands (predict --fp8); 0: at the run's precision */
    int fp8_products;
    double launch_overhead; /* seconds per kernel */
    /* [framework]: host time per kernel a framework spends launching and dispatching it, per
     * pass (seconds; launch_overhead where not given), per parameter tensor of the optimizer
     * step, and the extra cast kernels autocast runs per matrix-multiplying layer at fp16/bf16 */
    char framework[64];
    /* [framework] base: the shipped framework (configs/frameworks/NAME.ini) whose keys the
     * description's [framework] starts from and replaces; "" where it names none */
    char framework_base[64];
    double dispatch_infer, dispatch_fwd, dispatch_bwd, dispatch_update;
    /* of those four, in that order, the bits of the ones the [framework] left to the launch */
    unsigned dispatch_not_given;
    double autocast_casts;
    /* seconds of the device's own each kernel the framework launches takes beyond its
     * roofline price: the GPU's start and drain of a grid ([framework] kernel_device_us) */
    double kernel_device;
    int fuse_epilogues; /* 1: norms and activations run inside their producer's kernel */
    int fuse_bn_relu;   /* 1: activations and additions after a norm run inside its kernel */
    /* 1: a compiler fuses each chain of element-wise work into one kernel (torch.compile's
     * inductor): an element-wise layer reads its input and writes its output once, its casts
     * and temporaries in registers, and an eager attention's passes over the scores ride in its
     * softmax's one read and write */
    int fuse_pointwise;
    /* 1: the host issues each layer's kernels while the GPU runs those issued before, a queue
     * per pass (a layer's kernels start once issued and once the GPU is free); 0: the
     * dispatch adds to each layer's device time */
    int host_runs_ahead;
    /* 1: the dispatch keys are the device's own time per kernel, no host's that could run ahead
     * (CUDA graphs and fused frameworks: the GPU's floor per kernel; a CPU: the same cores) */
    int dispatch_on_device;
    double grad_bytes; /* bytes per weight the gradient all-reduce moves */
    /* how the framework stores the model (memory.h's sm_memory_config): bytes a parameter is
     * stored in, 1 where the fp32 master weights are the optimizer's, 1 where the gradient
     * buffer is the all-reduce's bucket itself */
    double param_bytes;
    int master_in_optimizer, grad_is_bucket;
    /* 1: activations stored channels-last (NHWC), as cuDNN's fp16/bf16 tensor-core
     * convolutions read them; 0: NCHW, PyTorch's default, transposed around each convolution
     * at fp16/bf16 (sm_layer_transpose_bytes) */
    int channels_last;
    /* of the NCHW convolutions' inputs and outputs at fp16 and bf16, the share cuDNN transposes:
     * its heuristics run many as matrix products on NCHW (1: every one) */
    double nchw_transpose_share;
    /* a dense 1 x 1 convolution of stride 1 whose output holds at least this many positions a
     * sample (H x W) cuDNN runs on NCHW as a matrix product, untransposed, as cuDNN 9 does
     * (docs/ops-h100-h200.md, "cuDNN's transposes by kind"); 0: every one transposed, as cuDNN
     * 8 did */
    int nchw_matmul_positions;
    /* elements per SM per clock cuDNN's layout transposes move (each read and written once)
     * where the SMs, not the DRAM, bound them; 0: the DRAM alone */
    double transpose_sm_elements;
    /* bytes per SM per clock a framework's batch-norm kernels stream where the SMs, not the
     * DRAM, bound them ([framework] batchnorm_*_bytes_per_sm_clock): [kernel][pass], kernel 0
     * cuDNN's (fp32, tf32, fp16), 1 PyTorch's own (bf16); pass 0 training, 1 inference; 0: the
     * DRAM alone */
    double batchnorm_sm_bytes[2][2];
    /* what a framework's direct convolution kernels issue per SM per clock where the SMs bind
     * them ([framework] depthwise_*, grouped_*, cudnn_depthwise_*): [kind][pass][term], kind 0
     * depthwise (plugin.h's group_channels 1) in PyTorch's conv_depthwise2d, 1 grouped at fp32
     * and tf32, 2 grouped at fp16 and bf16 (cuDNN's), 3 a stem (a dense convolution over 4
     * input channels or fewer, sm_layer's conv_channels: cuDNN's kernels on the SMs' lanes at
     * every precision), 4 depthwise in cuDNN's kernels at fp16 and bf16, 5 the same at tf32, 6
     * at fp32; pass 0 forward (and inference), 1 backward; term 0 elements (inputs and outputs),
     * 1 multiply-accumulates (the backward pass's: twice the forward's). A pass takes elements
     * / e + MACs / m SM clocks; 0: no such term, and a kind with neither is bound by the DRAM
     * and its arithmetic alone */
    double direct_conv_rate[7][2][2];
    /* output elements per SM per clock of the kernels eager PyTorch runs for a convolution's
     * bias (sm_layer's conv_bias), [pass]: 0 its addition (forward and inference), 1 its
     * gradient's sum; 0: not priced (a fused epilogue's) */
    double conv_bias_rate[2];
    /* output elements per SM per clock of eager PyTorch's element-wise kernel where an operand
     * is broadcast (TensorIterator's non-vectorized loop: an element-wise layer's, sm_layer's
     * broadcast, attention's additive mask, plugin.h's scores_broadcast_passes, and the copies
     * of non-contiguous views, its copy_elems_fwd and _bwd), bound by
     * the SMs' issue whatever the element's bytes, forward; 0: priced by its bytes at the
     * DRAM's rate */
    double broadcast_rate;
    /* ([framework] conv_pass_us, seconds) device time a dense convolution's kernel takes
     * beyond its arithmetic, each pass (forward, inference; backward's data and weight
     * gradients, two): the pipeline's fill and drain over its K loop, which a small
     * convolution's few tiles cannot hide; 0: none */
    double conv_pass;
    /* input elements per SM per clock of a framework's pooling kernels (plugin.h's
     * SM_TRAIT_POOLING), [pass]: 0 forward (and inference), 1 backward, a global pooling's
     * backward (a broadcast) left to the DRAM; 0: bound by the DRAM alone */
    double pooling_rate[2];
    /* what a framework's layer norm kernels take per SM where the SMs bind them ([framework]
     * rownorm_*): a layer declaring norm_rows (plugin.h, ABI 16), [pass] 0 forward (and
     * inference), 1 backward; a pass takes rows x c + elements / e SM clocks, c SM clocks a row
     * (its block's reduction), e input elements a clock; 0: no such term, and with neither the
     * layer is bound by the DRAM alone */
    double rownorm_row_clocks[2];
    double rownorm_elements[2];
    /* e of a layer norm whose input and output are 16-bit (a model cast to fp16 or bf16, not
     * autocast's fp32 norm), [pass] as above, its rows at the clocks above: the rows'
     * reductions are the same, the elements stream at their bytes; 0: rownorm_elements */
    double rownorm_half_elements[2];
    /* what a framework's reduction kernels take to sum a layer's output gradients into its
     * bias gradients (plugin.h's bias_grad_elems and bias_grad_sums, ABI 20): elements per SM
     * per clock, [0] 32-bit gradients, [1] 16-bit ([framework]
     * bias_grad_elements_per_sm_clock and bias_grad_half_elements_per_sm_clock), or the DRAM's
     * rate where that is slower, beside SM clocks a sum (bias_grad_sm_clocks_per_sum); 0: not
     * priced (a framework that sums them in the product's epilogue) */
    double bias_grad_rate[2];
    double bias_grad_sum_clocks;
    /* the fractions of the precision's peak a framework's convolutions reach by kind and pass
     * where they differ from the part's conv_efficiency ([framework] conv_*_efficiency_P, as
     * eager PyTorch's cuDNN calls on NCHW tensors ran: docs/ops-h100-h200.md):
     * [precision][kind][pass], kind 1 a dense 1 x 1 convolution (sm_layer's kernel_taps 1, no
     * groups: a plain matrix product to cuDNN), 0 every other; pass 0 forward and inference,
     * 1 backward (data and weight gradients); 0: the part's conv_efficiency */
    double conv_kind_efficiency[SM_N_PRECISIONS][2][2];
    /* what a framework's conv_kind_efficiency is multiplied by as it loads, per precision: the
     * part's clock factor where the generation's defaults stand (the keys were measured at the
     * reference part's sustained clock, as those defaults were), 1 where the description gives
     * its own compute_efficiency_P (measured at its own) */
    double conv_kind_scale[SM_N_PRECISIONS];
    /* which attention layers run as one fused kernel (FlashAttention, PyTorch's
     * scaled_dot_product_attention: no score matrices in memory, recomputed in the backward
     * pass; plugin.h's scores fields), memory.h's SM_ATTENTION_*: all, none (eager, matmul,
     * softmax, matmul), or those whose code calls one */
    int fused_attention;
    /* 1: the fused kernels apply dropout to the probabilities themselves (FlashAttention and
     * CUDA's memory-efficient kernel); 0: they have none, and attention with dropout runs
     * eagerly (PyTorch's CPU scaled_dot_product_attention falls back to its math path) */
    int fused_attention_dropout;
    /* memory (memory.h): the device's capacity (bytes; 0: not given), dropout masks' bytes per
     * element of its kernels, its matrix and convolution libraries' workspaces and the context
     * outside the allocator (bytes); the framework's optimizer */
    double memory_capacity;
    int optimizer; /* sm_optimizer; -1: the framework names none */
    double mask_bytes, workspace, conv_workspace, context;
    /* What limits a kernel on the part (docs/devices.md); 0 or "" where the file gives none:
     * SMs, boost clock (Hz), FP32 lanes per SM, the tensor cores' generation, L2 (bytes),
     * the memory's type, the board's power limit (W), where the figures come from */
    int sm_count;
    double boost_clock;
    int fp32_lanes;
    char tensor_cores[16];
    double l2_bytes;
    char memory_type[16];
    double power_limit;
    double sustained_clock; /* Hz; 0: from the power model (sm_device_sustained_clock) */
    char source[256];
    int devices_per_node;         /* in a node as sold (DGX/HGX: 8), -g's default */
    int max_devices_per_node;     /* the most -g takes: a PCIe part's servers hold up to 8 or 10 */
    sm_link intra;                /* one direction of a device's links inside the node */
    sm_link inter;                /* one network port, one direction */
    int inter_ports;              /* network ports per node */
    sm_collective collective;     /* what all-reduces gradients: the ring model or NCCL's */
    double nvls_efficiency;       /* NVLink SHARP in the node's switches (NCCL's model); 0: none */
    sm_gpu_generation generation; /* for NCCL's caps: architecture, else tensor_cores' for NCCL;
                                     SM_GPU_UNKNOWN where neither is given */
    sm_host_cpu host;             /* for NCCL's LL caps; SM_HOST_OTHER where not given */
    /* NCCL's choice restricted as NCCL_ALGO and NCCL_PROTO restrict it (masks of SM_NCCL_*;
     * 0: all), and the lists as given, for messages (sm_device_choose_collective) */
    unsigned nccl_algorithms, nccl_protocols;
    char nccl_algo[64], nccl_proto[64];
} sm_device;

/* The fastest dense rate v reaches at precision p, mfu's denominator: its peak, or fp32's where
 * that is higher (element-wise layers run at the fp32 rate at every precision, and TF32 keeps
 * the fp32 kernels among its choices); 0 where p has no peak. An L4 given a TF32 peak of 1
 * TFLOP/s ran at its fp32 30.3 and said mfu 401.8%. */
static inline double sm_device_dense_peak(const sm_device *v, sm_precision p)
{
    return v->peak[p] > 0 && v->peak[SM_FP32] > v->peak[p] ? v->peak[SM_FP32] : v->peak[p];
}

/* 0 when v, in the file's unit, is within the range the loader takes for [section] key; else
 * -1 with that range in why ("above 0.001 and at most 1e+06"). What a writer checks, so that
 * it never writes a description the loader refuses. */
int sm_device_check_value(const char *section, const char *key, double v, char *why, size_t len);

/* The memory configuration of a description at precision p. */
void sm_device_memory_config(const sm_device *v, sm_precision p, sm_memory_config *out);

/* 1 for the layer types whose FLOPs are matrix products (tensor cores at tf32, fp16, bf16). */
int sm_layer_is_matmul(const sm_layer *l);

/* What one pass of a layer asks of the device: FLOPs on the matrix units (a convolution's
 * apart, at conv_efficiency), FLOPs on the vector units, and bytes at the precision (fp32
 * counts halved at fp16/bf16; the backward pass reads and writes twice the forward traffic).
 * serial_bytes, apart from bytes, are those of kernels that run between a layer's matrix
 * products on the same stream and so overlap none of its arithmetic: what the plugin declares
 * (its serial_bytes), and eager attention's softmax over its scores and, in training, the
 * dropout on its probabilities. A fused attention kernel moves no score bytes and
 * recomputes the score product in the backward pass (plugin.h's scores fields). train: the
 * pass is training's (dropout runs, over the scores and over the masks a layer keeps: a
 * dropout layer's traffic), not inference's; m is the layer's metrics at batch. */
typedef struct sm_layer_work {
    double matmul_flops, conv_flops, vector_flops, bytes, serial_bytes;
    /* eager attention's score product (Q K^T) and context product (P V), and in the backward
     * pass their four: kernels of their own beside the projections, each bound by its
     * arithmetic or by the score matrix it writes or reads (not among matmul_flops and bytes) */
    double score_flops, score_bytes;
    /* bytes/s at which the SMs stream `bytes`, where a framework's kernel for the layer is
     * bound by them and not by the DRAM (batch norm: sm_device's batchnorm_sm_bytes); 0: none */
    double sm_stream;
    /* the fraction of the precision's peak conv_flops reach (the layer's kind and pass:
     * sm_device's conv_kind_efficiency); 0: conv_efficiency */
    double conv_efficiency;
    /* seconds of kernels of the layer's own that the SMs bound, after its roofline: a
     * convolution's bias addition or its gradient's sum (sm_device's conv_bias_rate) */
    double sm_seconds;
    /* of the products, those a float8 recipe runs on the fp8 tensor cores (sm_layer_fp8), at
     * the fp8 peak; not among matmul_flops */
    double fp8_flops;
    /* 1: plain element-wise kernels, whose bytes stream at stream_efficiency */
    int elementwise;
} sm_layer_work;
sm_layer_work sm_layer_pass_work(const sm_device *v, const sm_layer *l, const sm_metrics *m,
                                 int64_t batch, sm_precision p, int backward, int train);
/* Bytes a second the part's DRAM streams: its bandwidth at its memory efficiency */
double sm_device_dram_stream(const sm_device *v);
/* Bytes/s at which the work's `bytes` stream: the DRAM's achievable rate (a plain element-wise
 * kernel's, stream_efficiency, where the work is one), or the SMs' where they bound its kernel
 * lower (sm_stream). */
double sm_layer_stream(const sm_device *v, sm_layer_work w);
/* 1: a stem, a dense convolution over 4 input channels or fewer (an image's), which cuDNN runs
 * on the SMs' lanes at every precision (a framework's stem_* keys price it). */
int sm_layer_is_stem(const sm_layer *l);
/* 1: the layer's linear products run in fp8 (sm_device's fp8_products): it has some (plugin.h's
 * linear_products) and is not the network's output projection (sm_layer's output_projection). */
int sm_layer_fp8(const sm_device *v, const sm_layer *l);
/* Kernels the casts to fp8 add to a pass of such a layer (sm_layer_fp8), 0 for any other:
 * backward its output gradients', else its inputs' and weights'. */
int sm_layer_fp8_kernels(const sm_device *v, const sm_layer *l, int backward);
/* Seconds of one pass's work as a roofline: the larger of its arithmetic and its overlapped
 * bytes at the achievable bandwidth, then its serial bytes, its score products and its
 * kernels the SMs bound apart (sm_seconds). */
double sm_layer_roofline_seconds(const sm_device *v, sm_precision p, sm_layer_work w);
/* The seconds of a pass's eager score and context products (score_flops, score_bytes): the
 * larger of their arithmetic at the matrix rate and their score traffic, or where
 * sm_scores_unhidden the sum. */
double sm_layer_score_seconds(const sm_device *v, sm_precision p, sm_layer_work w);
/* 1 where the score products' traffic does not hide under their arithmetic: fp32 on a GPU's
 * CUDA cores (device_roofline.c says why). */
int sm_scores_unhidden(const sm_device *v, sm_precision p);
/* Seconds of the work's arithmetic at precision p: matrix products at the precision's peak
 * and efficiency, convolutions at their own, the rest at the fp32 vector peak. */
double sm_layer_compute_seconds(const sm_device *v, sm_precision p, sm_layer_work w);

/* 1 where cuDNN transposes NCHW tensors at fp16 and bf16 for the part's tensor cores: the
 * activations are not channels-last and the part has tensor cores (tensor_cores other than
 * none; a description that does not say is taken to have them). */
int sm_device_transposes_nchw(const sm_device *v);
/* The bytes that cuDNN's NCHW <-> NHWC transposes around a convolution move in one pass at
 * precision p, at its metrics m (at the batch): at fp16 and bf16 where the part transposes
 * (sm_device_transposes_nchw), each cuDNN call reads and writes its input and its output once
 * more (the forward convolution: input and output; the backward pass: data and weight
 * gradients, twice that); 0 otherwise. */
double sm_layer_transpose_bytes(const sm_device *v, const sm_layer *l, const sm_metrics *m,
                                sm_precision p, int backward);

/* Seconds cuDNN's layout transposes of `bytes` (sm_layer_transpose_bytes) take: the DRAM's at
 * the part's memory efficiency, or the SMs' where transpose_sm_elements binds them below it. */
double sm_transpose_seconds(const sm_device *v, double bytes);

/* 1: those transposes' time is the SMs' (transpose_sm_elements below the DRAM's rate). */
int sm_transpose_sm_bound(const sm_device *v);

/* fused[i] = 1 for each layer that a fusing framework runs inside a neighbouring kernel, 0 for
 * the rest (fused: n_layers entries). fuse_epilogues: a batch norm fed by a convolution, an
 * activation fed by a convolution, a linear layer, an addition or a fused layer. fuse_bn_relu:
 * an activation fed by a batch norm or a fused layer, an addition of a batch norm's output,
 * whatever feeds the norm. Both: either's layers, the norm's kernel where one runs. A
 * fused layer costs no kernel and no pass over memory, but for SM_FUSED_GRADIENT: an
 * activation fuse_epilogues runs in an addition's epilogue (BN-add-ReLU), whose gradient the
 * backward pass still computes, the addition itself launching none (its own backward price is
 * autograd's sum of its shortcut's gradient, device_roofline.c). "Fed by" looks past
 * identities (a layer that returns its input and launches nothing). -1: out of memory. */
enum { SM_FUSED = 1, SM_FUSED_GRADIENT = 2 };
int sm_network_fused(const sm_device *v, const sm_network *net, unsigned char *fused);
/* Kernels a layer launches in a phase (0 inference, 1 forward, 2 backward of training): its
 * plugin's counts, eager PyTorch's; a fusing framework's own kernels are one per layer. */
int64_t sm_layer_kernels(const sm_device *v, const sm_metrics *m, int phase);

/* The all-reduce of `bytes` on N nodes of G of the description's devices, in buckets of
 * bucket_bytes, at most max_buckets of them (a network's parameter tensors, which DDP never
 * splits; 0: no bound): the node's links, and each of the G rings' share of the node's ports. */
sm_ring_config sm_device_ring(const sm_device *v, double bytes, double bucket_bytes,
                              double max_buckets, int nodes, int gpus_per_node,
                              sm_collective collective);

/* The public form of what the all-reduce model chose. */
void sm_allreduce_estimate_of(sm_nccl_choice choice, sm_allreduce_estimate *out);

/* What one of the equal buckets of net's gradients runs on the layout's devices of the
 * description, as the predictors send them: op SM_OP_ALL_REDUCE, DDP's all-reduce
 * (sm_ring_allreduce_choice); SM_OP_REDUCE_SCATTER, sharded data parallelism's
 * (sm_collective_choice). The layout checked against the description's devices per node. */
int sm_device_bucket_choice(const sm_device *v, const sm_network *net, double bucket_bytes,
                            sm_collective collective, sm_collective_op op, const sm_layout *layout,
                            sm_allreduce_estimate *out, sm_status *st);

/* The collective named by option ("ring" or "nccl", as --collective takes it), else the
 * description's [node] collective. */
int sm_device_collective(const sm_device *v, const char *option, sm_collective *out, sm_status *st);

/* The collective of the options (else the description's) and NCCL's restriction to the
 * algorithms and protocols of NCCL_ALGO's and NCCL_PROTO's lists (NULL: none), set in v. A
 * restriction runs NCCL's model; beside the ring collective named it is an error. */
int sm_device_choose_collective(sm_device *v, const char *collective, const char *algorithms,
                                const char *protocols, sm_collective *out, sm_status *st);

/* The description name_or_path loaded for its all-reduce as opt asks (bucket_mib, collective,
 * algorithms, protocols): the collective chosen (sm_device_choose_collective) and the bucket in
 * bytes (bucket_bytes NULL: not wanted). What both predictors with a description, and
 * `allreduce --device`, do first. */
int sm_device_open_allreduce(const char *name_or_path, const sm_device_options *opt, sm_device *v,
                             sm_collective *collective, double *bucket_bytes, sm_status *st);

/* What qualifies NCCL's model where the collective is NCCL's, for the predictors'
 * descriptions: " (NCCL_ALGO=Ring, NCCL_PROTO=Simple)" for a restricted choice, and a note
 * where the description names no architecture or tensor cores (NCCL's per-generation caps
 * left out); ""
 * for the ring and for NCCL unrestricted on a known generation. */
const char *sm_device_restriction(const sm_device *v, sm_collective collective, char *buf,
                                  size_t len);

/* 0 when an all-reduce of `seconds` on the layout runs; -1 with a message where the
 * description's restriction of NCCL leaves no algorithm for it (seconds infinite). */
int sm_device_check_allreduce(const sm_device *v, double seconds, int nodes, int gpus_per_node,
                              sm_status *st);

/* 0 when a node of the description holds gpus_per_node devices; else -1 with a message naming
 * the file's devices_per_node. */
int sm_device_check_layout(const sm_device *v, int gpus_per_node, sm_status *st);

/* One key a writer sets: [section] key = value ; comment (NULL: none). */
typedef struct sm_device_key {
    const char *section, *key;
    char value[256];
    const char *comment;
} sm_device_key;

/* Writes the description base (a name or path) to path with header (comment lines) first and
 * each of keys[0..n) set: in place of the base's line where it has one, else at the end of its
 * section, or in a section added at the end. The rest of the base, comments included, is
 * copied as it stands. */
int sm_device_write_replacing(const char *base, const sm_device_key *keys, int n,
                              const char *header, const char *path, sm_status *st);

/* 1 when device_arch.c knows a tensor_cores value (a generation, or none) or a memory_type. */
int sm_device_tensor_cores_known(const char *name);
/* 1: tensor cores of that generation run fp8 products (ada, hopper, blackwell). */
int sm_device_has_fp8(const char *tensor_cores);
int sm_device_memory_type_known(const char *name);
/* The architecture (NCCL's generation) of a tensor_cores value; NULL for none. */
const char *sm_device_tensor_cores_nccl(const char *tensor_cores);

/* The efficiencies a description leaves out, from its architecture keys (device_arch.c):
 * eff_given[p] and memory_given say which the file gave; the tensor cores' and FP32 lanes'
 * defaults scaled by the part's sustained clock (sm_device_sustained_clock) over that of the
 * part they were measured on; memory_efficiency from memory_type (both names the loader has
 * checked with sm_device_*_known, or ""). peak_line, power_line and
 * clock_line: the lines of the peaks, power_limit_w and sustained_clock_mhz (0: not given).
 * -1 with a message naming the file where its peaks, clocks or power contradict its
 * architecture. */
int sm_device_arch_defaults(sm_device *dev, const int eff_given[SM_N_PRECISIONS], int memory_given,
                            const int peak_line[SM_N_PRECISIONS], int power_line, int clock_line,
                            sm_status *st);

/* The clock (Hz) the part sustains under dense tensor and FP32 work: sustained_clock_mhz
 * where the file gives it, else the power model of its tensor cores' generation at its
 * power_limit_w and sm_count (at most the boost clock; 0 where the limit is below the
 * static power), else the boost clock (0 where none is given). */
double sm_device_sustained_clock(const sm_device *dev);
/* The clock (Hz) the per-SM-clock framework keys (batch norms, poolings, direct and grouped
 * convolutions, layer norms, transposes, bias sums) are taken at: the boost clock, which kernels
 * that draw little power hold, in those keys' unit (x 1830 / 1980: they were measured on an H100
 * and an H200 holding 1980 MHz and written at 1830), at least the sustained clock. */
double sm_device_light_clock(const sm_device *dev);

/* Reads and checks a description; errors name the file and line, or the missing field. */
int sm_device_load(const char *path, sm_device *dev, sm_status *st);
/* Replaces dev's [framework] keys by those of a framework file (only a [framework] section);
 * keys it does not give fall back to the launch overhead, as in a device file. */
int sm_device_load_framework(const char *path, sm_device *dev, sm_status *st);

#endif
