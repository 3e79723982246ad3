/* Reads a device and cluster description (INI through inih): a table of the fields, their
 * units and ranges, so that every mistake is named by file and line, or by the missing field. */
#define _GNU_SOURCE
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_file.h"
#include "util/ini_reader.h"
#include "util/util.h"

typedef enum {
    F_REAL,
    F_INT,
    F_TEXT,
    F_TENSOR_CORES, /* text, one of device_arch.c's generations (or none) */
    F_MEMORY_TYPE,  /* text, one of device_arch.c's memory types */
    F_PRECISION,
    F_COLLECTIVE,
    F_GENERATION,
    F_HOST,
    F_OPTIMIZER,
    F_BASE /* text, a shipped framework's name: its file is read in place of the key */
} field_kind;

typedef struct field {
    const char *section, *key;
    field_kind kind;
    size_t offset;
    double scale;     /* file unit -> SI unit */
    double lo, hi;    /* range in file units; lo itself allowed only where lo_ok. Rates and
                         efficiencies have a physical floor, not 0: 1e-300 TFLOP/s made times
                         of inf s */
    int lo_ok;        /* OFF_OR_FROM: 0 (the term off) or from lo */
    int required;     /* 1: always; 2: where [device] precision selects it; 3: where a node holds
                         two devices or more; 0: has a default */
    const char *what; /* for messages: what it is, with its unit */
} field;

/* lo_ok of a rate whose 0 turns its term off, and the floor of the rates per SM and clock:
 * a thousandth of an element (or byte, or multiply-accumulate) a clock, 56 times below the
 * slowest measured (cuDNN's fp32 depthwise backward, 0.056), where 1e-300 priced a kernel at an
 * infinite time and a queue of them at none */
#define OFF_OR_FROM 2
#define RATE_FLOOR 1e-3

#define AT(member) offsetof(sm_device, member)
#define SIZE(member) ((double)sizeof(((sm_device *)0)->member))
#define PEAK(p) (AT(peak) + (p) * sizeof(double))
#define EFF(p) (AT(efficiency) + (p) * sizeof(double))
#define CONV(p) (AT(conv_efficiency) + (p) * sizeof(double))
#define CONV_KIND(p, kind, pass)                                                                   \
    (AT(conv_kind_efficiency) + (4 * (p) + 2 * (kind) + (pass)) * sizeof(double))
#define BN(kernel, pass) (AT(batchnorm_sm_bytes) + (2 * (kernel) + (pass)) * sizeof(double))
#define POOL(pass) (AT(pooling_rate) + (pass) * sizeof(double))
#define BIAS(pass) (AT(conv_bias_rate) + (pass) * sizeof(double))
#define ROWS(pass) (AT(rownorm_row_clocks) + (pass) * sizeof(double))
#define ROW_ELEMS(pass) (AT(rownorm_elements) + (pass) * sizeof(double))
#define ROW_HALF(pass) (AT(rownorm_half_elements) + (pass) * sizeof(double))
#define BIAS_GRAD(half) (AT(bias_grad_rate) + (half) * sizeof(double))
#define DC(kind, pass, term)                                                                       \
    (AT(direct_conv_rate) + (4 * (kind) + 2 * (pass) + (term)) * sizeof(double))

static const field fields[] = {
    {"device", "name", F_TEXT, AT(name), 0, 0, SIZE(name), 0, 0, "short name"},
    {"device", "description", F_TEXT, AT(description), 0, 0, SIZE(description), 0, 0, "one line"},
    {"device", "precision", F_PRECISION, AT(precision), 0, 0, 0, 0, 0, "fp32, tf32, fp16 or bf16"},
    {"device", "peak_fp32_tflops", F_REAL, PEAK(SM_FP32), 1e12, 1e-6, 1e6, 1, 2, "TFLOP/s"},
    {"device", "peak_tf32_tflops", F_REAL, PEAK(SM_TF32), 1e12, 1e-6, 1e6, 1, 2, "TFLOP/s"},
    {"device", "peak_fp16_tflops", F_REAL, PEAK(SM_FP16), 1e12, 1e-6, 1e6, 1, 2, "TFLOP/s"},
    {"device", "peak_bf16_tflops", F_REAL, PEAK(SM_BF16), 1e12, 1e-6, 1e6, 1, 2, "TFLOP/s"},
    {"device", "peak_fp8_tflops", F_REAL, AT(peak_fp8), 1e12, 1e-6, 1e6, 1, 0,
     "TFLOP/s of dense FP8 products (fp32 accumulation)"},
    {"device", "memory_bandwidth_gb_s", F_REAL, AT(memory_bandwidth), 1e9, 1e-3, 1e6, 1, 1,
     "memory bandwidth in GB/s"},
    {"device", "compute_efficiency", F_REAL, AT(compute_efficiency), 1, 1e-4, 1, 1, 0,
     "fraction of peak FLOP/s"},
    {"device", "memory_efficiency", F_REAL, AT(memory_efficiency), 1, 1e-4, 1, 1, 0,
     "fraction of memory bandwidth"},
    {"device", "stream_efficiency", F_REAL, AT(stream_efficiency), 1, 1e-4, 1, 1, 0,
     "fraction of memory bandwidth a plain element-wise kernel reaches"},
    {"device", "architecture", F_GENERATION, AT(generation), 0, 0, 0, 0, 0,
     "the GPU's generation for NCCL's constants: volta, ampere, hopper or blackwell"},
    {"device", "launch_overhead_us", F_REAL, AT(launch_overhead), 1e-6, 0, 1e6, 1, 0,
     "microseconds per layer"},
    {"device", "compute_efficiency_fp32", F_REAL, EFF(SM_FP32), 1, 1e-4, 1, 1, 0,
     "fraction of the fp32 peak"},
    {"device", "compute_efficiency_tf32", F_REAL, EFF(SM_TF32), 1, 1e-4, 1, 1, 0,
     "fraction of the tf32 peak"},
    {"device", "compute_efficiency_fp16", F_REAL, EFF(SM_FP16), 1, 1e-4, 1, 1, 0,
     "fraction of the fp16 peak"},
    {"device", "compute_efficiency_bf16", F_REAL, EFF(SM_BF16), 1, 1e-4, 1, 1, 0,
     "fraction of the bf16 peak"},
    {"device", "compute_efficiency_fp8", F_REAL, AT(fp8_efficiency), 1, 1e-4, 1, 1, 0,
     "fraction of the fp8 peak"},
    {"device", "conv_efficiency_fp32", F_REAL, CONV(SM_FP32), 1, 1e-4, 1, 1, 0,
     "fraction of the fp32 peak convolutions reach"},
    {"device", "conv_efficiency_tf32", F_REAL, CONV(SM_TF32), 1, 1e-4, 1, 1, 0,
     "fraction of the tf32 peak convolutions reach"},
    {"device", "conv_efficiency_fp16", F_REAL, CONV(SM_FP16), 1, 1e-4, 1, 1, 0,
     "fraction of the fp16 peak convolutions reach"},
    {"device", "conv_efficiency_bf16", F_REAL, CONV(SM_BF16), 1, 1e-4, 1, 1, 0,
     "fraction of the bf16 peak convolutions reach"},
    {"device", "memory_gib", F_REAL, AT(memory_capacity), 1073741824.0, 1e-3, 1e6, 1, 0,
     "the device's memory in GiB (2^30 bytes), as nvidia-smi reports it"},
    {"framework", "name", F_TEXT, AT(framework), 0, 0, SIZE(framework), 0, 0, "short name"},
    {"framework", "base", F_BASE, AT(framework_base), 0, 0, SIZE(framework_base), 0, 0,
     "a framework of configs/frameworks (its name) whose keys this section starts from"},
    {"framework", "optimizer", F_OPTIMIZER, AT(optimizer), 0, 0, 0, 0, 0,
     "sgd, momentum, adam or adamw"},
    {"device", "dropout_mask_bytes", F_REAL, AT(mask_bytes), 1, 0.125, 8, 1, 0,
     "bytes per element of a dropout mask: 1 (CUDA's bool), 4 (PyTorch's CPU float)"},
    {"device", "workspace_mib", F_REAL, AT(workspace), 1048576.0, 0, 1e7, 1, 0,
     "MiB of the matrix library's workspace (cuBLAS), held by every network"},
    {"device", "conv_workspace_mib", F_REAL, AT(conv_workspace), 1048576.0, 0, 1e7, 1, 0,
     "MiB of the convolution library's workspace (cuDNN), held by networks with convolutions"},
    {"device", "context_mib", F_REAL, AT(context), 1048576.0, 0, 1e7, 1, 0,
     "MiB outside the framework's allocator (CUDA context, loaded kernels)"},
    {"device", "fused_attention_dropout", F_INT, AT(fused_attention_dropout), 1, 0, 1, 1, 0,
     "1: fused attention kernels apply dropout themselves (FlashAttention); 0: they have none, "
     "and attention with dropout on its probabilities runs eagerly (PyTorch's CPU path)"},
    {"framework", "dispatch_infer_us", F_REAL, AT(dispatch_infer), 1e-6, 0, 1e6, 1, 0,
     "microseconds per kernel of an inference pass"},
    {"framework", "dispatch_fwd_us", F_REAL, AT(dispatch_fwd), 1e-6, 0, 1e6, 1, 0,
     "microseconds per kernel of a training forward pass"},
    {"framework", "dispatch_bwd_us", F_REAL, AT(dispatch_bwd), 1e-6, 0, 1e6, 1, 0,
     "microseconds per kernel of a backward pass"},
    {"framework", "dispatch_update_us", F_REAL, AT(dispatch_update), 1e-6, 0, 1e6, 1, 0,
     "microseconds per parameter tensor of the optimizer step"},
    {"framework", "kernel_device_us", F_REAL, AT(kernel_device), 1e-6, 0, 1e4, 1, 0,
     "microseconds of the device's own each kernel the framework launches takes beyond its "
     "roofline price (the start and drain of its grid); 0: none"},
    /* a count that also says autocast runs (its fp32 softmax and norms, docs/memory.md): 1e-300
     * switched that on with no cast to show for it, so 0 (no autocast) or a cast a hundred
     * layers at least */
    {"framework", "autocast_casts_per_matmul", F_REAL, AT(autocast_casts), 1, 0.01, 100,
     OFF_OR_FROM, 0, "cast kernels per matrix-multiplying layer and pass at fp16 or bf16"},
    {"framework", "fuse_bn_relu", F_INT, AT(fuse_bn_relu), 1, 0, 1, 1, 0,
     "1: batch norms run as their own kernels, with the activation and addition after them"},
    {"framework", "host_runs_ahead", F_INT, AT(host_runs_ahead), 1, 0, 1, 1, 0,
     "1: the host issues each layer's kernels while the GPU runs those issued before (a queue "
     "per pass); 0: the dispatch adds to each layer's device time"},
    {"framework", "conv_fwd_efficiency_fp32", F_REAL, CONV_KIND(SM_FP32, 0, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the fp32 peak the framework's convolutions but dense 1 x 1 ones reach forward"},
    {"framework", "conv_bwd_efficiency_fp32", F_REAL, CONV_KIND(SM_FP32, 0, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the fp32 peak the framework's convolutions but dense 1 x 1 ones reach backward"},
    {"framework", "conv1x1_fwd_efficiency_fp32", F_REAL, CONV_KIND(SM_FP32, 1, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the fp32 peak the framework's dense 1 x 1 convolutions reach forward"},
    {"framework", "conv1x1_bwd_efficiency_fp32", F_REAL, CONV_KIND(SM_FP32, 1, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the fp32 peak the framework's dense 1 x 1 convolutions reach backward"},
    {"framework", "conv_fwd_efficiency_tf32", F_REAL, CONV_KIND(SM_TF32, 0, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the tf32 peak the framework's convolutions but dense 1 x 1 ones reach forward"},
    {"framework", "conv_bwd_efficiency_tf32", F_REAL, CONV_KIND(SM_TF32, 0, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the tf32 peak the framework's convolutions but dense 1 x 1 ones reach backward"},
    {"framework", "conv1x1_fwd_efficiency_tf32", F_REAL, CONV_KIND(SM_TF32, 1, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the tf32 peak the framework's dense 1 x 1 convolutions reach forward"},
    {"framework", "conv1x1_bwd_efficiency_tf32", F_REAL, CONV_KIND(SM_TF32, 1, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the tf32 peak the framework's dense 1 x 1 convolutions reach backward"},
    {"framework", "conv_fwd_efficiency_fp16", F_REAL, CONV_KIND(SM_FP16, 0, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the fp16 peak the framework's convolutions but dense 1 x 1 ones reach forward"},
    {"framework", "conv_bwd_efficiency_fp16", F_REAL, CONV_KIND(SM_FP16, 0, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the fp16 peak the framework's convolutions but dense 1 x 1 ones reach backward"},
    {"framework", "conv1x1_fwd_efficiency_fp16", F_REAL, CONV_KIND(SM_FP16, 1, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the fp16 peak the framework's dense 1 x 1 convolutions reach forward"},
    {"framework", "conv1x1_bwd_efficiency_fp16", F_REAL, CONV_KIND(SM_FP16, 1, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the fp16 peak the framework's dense 1 x 1 convolutions reach backward"},
    {"framework", "conv_fwd_efficiency_bf16", F_REAL, CONV_KIND(SM_BF16, 0, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the bf16 peak the framework's convolutions but dense 1 x 1 ones reach forward"},
    {"framework", "conv_bwd_efficiency_bf16", F_REAL, CONV_KIND(SM_BF16, 0, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the bf16 peak the framework's convolutions but dense 1 x 1 ones reach backward"},
    {"framework", "conv1x1_fwd_efficiency_bf16", F_REAL, CONV_KIND(SM_BF16, 1, 0), 1, 1e-4, 1, 1, 0,
     "fraction of the bf16 peak the framework's dense 1 x 1 convolutions reach forward"},
    {"framework", "conv1x1_bwd_efficiency_bf16", F_REAL, CONV_KIND(SM_BF16, 1, 1), 1, 1e-4, 1, 1, 0,
     "fraction of the bf16 peak the framework's dense 1 x 1 convolutions reach backward"},
    {"framework", "dispatch_on_device", F_INT, AT(dispatch_on_device), 1, 0, 1, 1, 0,
     "1: the dispatch keys are the device's own time per kernel (CUDA graphs, fused kernels; a "
     "CPU), which no host runs ahead of: host_runs_ahead and --dispatch queued are refused"},
    {"framework", "fuse_epilogues", F_INT, AT(fuse_epilogues), 1, 0, 1, 1, 0,
     "1: batch norms and activations run inside their neighbours' kernels"},
    {"framework", "fuse_pointwise", F_INT, AT(fuse_pointwise), 1, 0, 1, 1, 0,
     "1: a compiler (torch.compile) fuses element-wise work: an element-wise layer moves its "
     "input and output once, eager attention's passes over the scores ride in its softmax's"},
    {"framework", "channels_last", F_INT, AT(channels_last), 1, 0, 1, 1, 0,
     "1: activations stored channels-last (NHWC); 0: NCHW, transposed around each "
     "convolution at fp16 and bf16"},
    {"framework", "nchw_transpose_share", F_REAL, AT(nchw_transpose_share), 1, 0, 1, 1, 0,
     "of the NCHW convolutions' inputs and outputs at fp16 and bf16, the share cuDNN "
     "transposes to NHWC (1: every one)"},
    {"framework", "nchw_matmul_1x1_positions", F_INT, AT(nchw_matmul_positions), 1, 0, 1e9, 1, 0,
     "output positions a sample (H x W) from which cuDNN runs a dense 1 x 1 convolution of "
     "stride 1 on NCHW as a matrix product, untransposed; 0: every convolution transposed"},
    {"framework", "transpose_elements_per_sm_clock", F_REAL, AT(transpose_sm_elements), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "elements per SM per clock cuDNN's NCHW transposes move where the SMs bound them; 0: "
     "bound by the DRAM alone"},
    {"framework", "batchnorm_train_bytes_per_sm_clock", F_REAL, BN(0, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "bytes per SM per clock cuDNN's batch norm streams in training (fp32, tf32, fp16); 0: "
     "bound by the DRAM alone"},
    {"framework", "batchnorm_infer_bytes_per_sm_clock", F_REAL, BN(0, 1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "bytes per SM per clock cuDNN's batch norm streams at inference; 0: bound by the DRAM "
     "alone"},
    {"framework", "batchnorm_bf16_train_bytes_per_sm_clock", F_REAL, BN(1, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "bytes per SM per clock the framework's own batch norm streams in training at bf16; 0: "
     "bound by the DRAM alone"},
    {"framework", "batchnorm_bf16_infer_bytes_per_sm_clock", F_REAL, BN(1, 1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "bytes per SM per clock the framework's own batch norm streams at inference at bf16; 0: "
     "bound by the DRAM alone"},
    {"framework", "depthwise_fwd_elements_per_sm_clock", F_REAL, DC(0, 0, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "input and output elements per SM per clock of the framework's depthwise convolution, "
     "forward and at inference; 0: no such term"},
    {"framework", "depthwise_fwd_macs_per_sm_clock", F_REAL, DC(0, 0, 1), 1, RATE_FLOOR, 1e6,
     OFF_OR_FROM, 0,
     "multiply-accumulates per SM per clock of the framework's depthwise convolution, forward "
     "and at inference; 0: no such term"},
    {"framework", "depthwise_bwd_elements_per_sm_clock", F_REAL, DC(0, 1, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of the depthwise convolution's "
     "backward pass (data and weight gradients); 0: no such term"},
    {"framework", "depthwise_bwd_macs_per_sm_clock", F_REAL, DC(0, 1, 1), 1, RATE_FLOOR, 1e6,
     OFF_OR_FROM, 0,
     "backward multiply-accumulates (twice the forward's) per SM per clock of the depthwise "
     "convolution's backward pass; 0: no such term"},
    {"framework", "grouped_fwd_elements_per_sm_clock", F_REAL, DC(1, 0, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "input and output elements per SM per clock of a grouped convolution at fp32 and tf32, "
     "forward and at inference; 0: bound by the DRAM and its arithmetic"},
    {"framework", "grouped_bwd_elements_per_sm_clock", F_REAL, DC(1, 1, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of a grouped convolution's backward "
     "pass at fp32 and tf32; 0: bound by the DRAM and its arithmetic"},
    {"framework", "grouped_half_fwd_elements_per_sm_clock", F_REAL, DC(2, 0, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "input and output elements per SM per clock of a grouped convolution at fp16 and bf16, "
     "forward and at inference; 0: bound by the DRAM and its arithmetic"},
    {"framework", "grouped_half_bwd_elements_per_sm_clock", F_REAL, DC(2, 1, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of a grouped convolution's backward "
     "pass at fp16 and bf16; 0: bound by the DRAM and its arithmetic"},
    {"framework", "cudnn_depthwise_half_fwd_elements_per_sm_clock", F_REAL, DC(4, 0, 0), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "input and output elements per SM per clock of a depthwise convolution cuDNN runs at "
     "fp16 and bf16, forward and at inference; 0: no such term"},
    {"framework", "cudnn_depthwise_half_fwd_macs_per_sm_clock", F_REAL, DC(4, 0, 1), 1, RATE_FLOOR,
     1e6, OFF_OR_FROM, 0,
     "multiply-accumulates per SM per clock of a depthwise convolution cuDNN runs at "
     "fp16 and bf16, forward and at inference; 0: no such term"},
    {"framework", "cudnn_depthwise_half_bwd_elements_per_sm_clock", F_REAL, DC(4, 1, 0), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of the backward pass of a depthwise "
     "convolution cuDNN runs at fp16 and bf16; 0: no such term"},
    {"framework", "cudnn_depthwise_half_bwd_macs_per_sm_clock", F_REAL, DC(4, 1, 1), 1, RATE_FLOOR,
     1e6, OFF_OR_FROM, 0,
     "backward multiply-accumulates (twice the forward's) per SM per clock of a depthwise "
     "convolution cuDNN runs at fp16 and bf16; 0: no such term"},
    {"framework", "cudnn_depthwise_tf32_fwd_elements_per_sm_clock", F_REAL, DC(5, 0, 0), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "input and output elements per SM per clock of a depthwise convolution cuDNN runs at "
     "tf32, forward and at inference; 0: no such term"},
    {"framework", "cudnn_depthwise_tf32_fwd_macs_per_sm_clock", F_REAL, DC(5, 0, 1), 1, RATE_FLOOR,
     1e6, OFF_OR_FROM, 0,
     "multiply-accumulates per SM per clock of a depthwise convolution cuDNN runs at "
     "tf32, forward and at inference; 0: no such term"},
    {"framework", "cudnn_depthwise_tf32_bwd_elements_per_sm_clock", F_REAL, DC(5, 1, 0), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of the backward pass of a depthwise "
     "convolution cuDNN runs at tf32; 0: no such term"},
    {"framework", "cudnn_depthwise_tf32_bwd_macs_per_sm_clock", F_REAL, DC(5, 1, 1), 1, RATE_FLOOR,
     1e6, OFF_OR_FROM, 0,
     "backward multiply-accumulates (twice the forward's) per SM per clock of a depthwise "
     "convolution cuDNN runs at tf32; 0: no such term"},
    {"framework", "cudnn_depthwise_fp32_fwd_elements_per_sm_clock", F_REAL, DC(6, 0, 0), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "input and output elements per SM per clock of a depthwise convolution cuDNN runs at "
     "fp32, forward and at inference; 0: no such term"},
    {"framework", "cudnn_depthwise_fp32_fwd_macs_per_sm_clock", F_REAL, DC(6, 0, 1), 1, RATE_FLOOR,
     1e6, OFF_OR_FROM, 0,
     "multiply-accumulates per SM per clock of a depthwise convolution cuDNN runs at "
     "fp32, forward and at inference; 0: no such term"},
    {"framework", "cudnn_depthwise_fp32_bwd_elements_per_sm_clock", F_REAL, DC(6, 1, 0), 1,
     RATE_FLOOR, 1e4, OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of the backward pass of a depthwise "
     "convolution cuDNN runs at fp32; 0: no such term"},
    {"framework", "cudnn_depthwise_fp32_bwd_macs_per_sm_clock", F_REAL, DC(6, 1, 1), 1, RATE_FLOOR,
     1e6, OFF_OR_FROM, 0,
     "backward multiply-accumulates (twice the forward's) per SM per clock of a depthwise "
     "convolution cuDNN runs at fp32; 0: no such term"},
    {"framework", "stem_fwd_elements_per_sm_clock", F_REAL, DC(3, 0, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "input and output elements per SM per clock of a stem (a dense convolution over 4 input "
     "channels or fewer), forward and at inference; 0: no such term"},
    {"framework", "stem_fwd_macs_per_sm_clock", F_REAL, DC(3, 0, 1), 1, RATE_FLOOR, 1e6,
     OFF_OR_FROM, 0,
     "multiply-accumulates per SM per clock of a stem, forward and at inference; 0: no such "
     "term"},
    {"framework", "stem_bwd_elements_per_sm_clock", F_REAL, DC(3, 1, 0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "forward input and output elements per SM per clock of a stem's backward pass; 0: no such "
     "term"},
    {"framework", "stem_bwd_macs_per_sm_clock", F_REAL, DC(3, 1, 1), 1, RATE_FLOOR, 1e6,
     OFF_OR_FROM, 0,
     "backward multiply-accumulates (twice the forward's) per SM per clock of a stem's "
     "backward pass; 0: no such term"},
    {"framework", "conv_pass_us", F_REAL, AT(conv_pass), 1e-6, 0, 1e4, 1, 0,
     "microseconds a dense convolution's kernel takes beyond its arithmetic, each pass (two "
     "backward: the data and the weight gradients); 0: none"},
    {"framework", "conv_bias_fwd_elements_per_sm_clock", F_REAL, BIAS(0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "output elements per SM per clock of the kernel that adds a convolution's bias, forward "
     "and at inference; 0: not priced"},
    {"framework", "conv_bias_bwd_elements_per_sm_clock", F_REAL, BIAS(1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "output elements per SM per clock of the kernel that sums a convolution's bias gradient; "
     "0: not priced"},
    {"framework", "broadcast_elements_per_sm_clock", F_REAL, AT(broadcast_rate), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "output elements per SM per clock of the framework's element-wise kernel over a broadcast "
     "operand, forward (a squeeze-and-excitation's product, attention's additive mask: "
     "plugin.h's SM_TRAIT_ELEMENTWISE and scores_broadcast_passes) and of its copies of "
     "non-contiguous views (copy_elems_fwd and _bwd); 0: priced by the DRAM"},
    {"framework", "pooling_fwd_elements_per_sm_clock", F_REAL, POOL(0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "input elements per SM per clock of the framework's pooling kernels, forward and at "
     "inference; 0: bound by the DRAM alone"},
    {"framework", "pooling_bwd_elements_per_sm_clock", F_REAL, POOL(1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "forward input elements per SM per clock of a windowed pooling's backward pass; 0: bound "
     "by the DRAM alone"},
    {"framework", "rownorm_fwd_sm_clocks_per_row", F_REAL, ROWS(0), 1, 0, 1e7, 1, 0,
     "SM clocks of one row of a layer norm (plugin.h's norm_rows) in the framework's kernel, "
     "forward and at inference; 0: no such term"},
    {"framework", "rownorm_fwd_elements_per_sm_clock", F_REAL, ROW_ELEMS(0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "input elements per SM per clock of a layer norm's forward pass and inference, beside its "
     "rows; 0: no such term"},
    {"framework", "rownorm_bwd_sm_clocks_per_row", F_REAL, ROWS(1), 1, 0, 1e7, 1, 0,
     "SM clocks of one row of a layer norm's backward pass (input, weight and bias gradients); "
     "0: no such term"},
    {"framework", "rownorm_bwd_elements_per_sm_clock", F_REAL, ROW_ELEMS(1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "forward input elements per SM per clock of a layer norm's backward pass, beside its rows; "
     "0: no such term"},
    {"framework", "rownorm_half_fwd_elements_per_sm_clock", F_REAL, ROW_HALF(0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "rownorm_fwd_elements_per_sm_clock of a layer norm whose input and output are fp16 or "
     "bf16 (a model cast to 16 bits; autocast runs it in fp32); 0: that key's"},
    {"framework", "rownorm_half_bwd_elements_per_sm_clock", F_REAL, ROW_HALF(1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "rownorm_bwd_elements_per_sm_clock of a layer norm whose input and output are fp16 or "
     "bf16; 0: that key's"},
    {"framework", "bias_grad_elements_per_sm_clock", F_REAL, BIAS_GRAD(0), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "output-gradient elements per SM per clock the framework's reduction kernels sum into "
     "bias gradients (plugin.h's bias_grad_elems: nn.Linear's) at fp32 and tf32, backward; 0: "
     "not priced"},
    {"framework", "bias_grad_half_elements_per_sm_clock", F_REAL, BIAS_GRAD(1), 1, RATE_FLOOR, 1e4,
     OFF_OR_FROM, 0,
     "bias_grad_elements_per_sm_clock of 16-bit gradients (fp16 and bf16); 0: that key's"},
    {"framework", "bias_grad_sm_clocks_per_sum", F_REAL, AT(bias_grad_sum_clocks), 1, 0, 1e9, 1, 0,
     "SM clocks each bias gradient's sum takes beside its elements (plugin.h's bias_grad_sums), "
     "where the framework prices their elements; 0: none"},
    {"framework", "fused_attention", F_INT, AT(fused_attention), 1, 0, 1, 1, 0,
     "1: every attention layer runs as one fused kernel (FlashAttention, "
     "scaled_dot_product_attention); 0: every one eager (matmul, softmax, matmul); not given: "
     "each as the network's code runs it (impl=sdpa fused)"},
    /* from a byte (fp8): 1e-9 priced 25 M gradients at one byte of memory and of traffic */
    {"framework", "grad_bytes_per_weight", F_REAL, AT(grad_bytes), 1, 1, 8, 1, 0,
     "bytes per weight the gradient all-reduce moves: 4 (fp32) or 2 (fp16, bf16)"},
    {"framework", "param_bytes_per_weight", F_REAL, AT(param_bytes), 1, 1, 8, 1, 0,
     "bytes a parameter is stored in: 4 (fp32, AMP's), 2 (a model cast to fp16 or bf16)"},
    {"framework", "master_weights_in_optimizer", F_INT, AT(master_in_optimizer), 1, 0, 1, 1, 0,
     "1: the fp32 master weights are the optimizer's, sharded with its state; 0: none beside "
     "the parameters"},
    {"framework", "gradient_buffer_is_bucket", F_INT, AT(grad_is_bucket), 1, 0, 1, 1, 0,
     "1: the gradients are kept in the all-reduce's buckets themselves (Megatron's main_grad); "
     "0: DDP's buckets are a copy of them"},
    {"node", "devices_per_node", F_INT, AT(devices_per_node), 1, 1, 4096, 1, 1,
     "devices in one node"},
    {"node", "max_devices_per_node", F_INT, AT(max_devices_per_node), 1, 1, 4096, 1, 0,
     "the most devices a node of this part holds (-g up to it; default devices_per_node)"},
    {"node", "intra_node_bandwidth_gb_s", F_REAL, AT(intra.bandwidth), 1e9, 1e-3, 1e6, 1, 3,
     "GB/s in one direction between the devices of a node"},
    {"node", "intra_node_latency_us", F_REAL, AT(intra.latency), 1e-6, 0, 1e6, 1, 3,
     "microseconds per ring step inside a node"},
    {"node", "inter_node_bandwidth_gb_s", F_REAL, AT(inter.bandwidth), 1e9, 1e-3, 1e6, 1, 1,
     "GB/s in one direction of one network port"},
    {"node", "inter_node_ports", F_INT, AT(inter_ports), 1, 1, 1024, 1, 0,
     "network ports per node"},
    {"node", "inter_node_latency_us", F_REAL, AT(inter.latency), 1e-6, 0, 1e6, 1, 1,
     "microseconds per ring step between nodes"},
    {"node", "collective", F_COLLECTIVE, AT(collective), 0, 0, 0, 0, 0,
     "ring (the hierarchical ring) or nccl (NCCL's cost model)"},
    {"node", "host_cpu", F_HOST, AT(host), 0, 0, 0, 0, 0,
     "the node's CPU for NCCL's constants: intel, amd, arm or other"},
    {"node", "nvls_efficiency", F_REAL, AT(nvls_efficiency), 1, 0.01, 1, OFF_OR_FROM, 0,
     "NVLink SHARP's share of the link bandwidth (NCCL: 0.85 on Hopper), 0 for none"},
    /* the architecture (docs/devices.md): what limits a kernel, for the efficiencies a file
     * does not give (device_arch.c) */
    {"device", "sm_count", F_INT, AT(sm_count), 1, 1, 100000, 1, 0, "streaming multiprocessors"},
    /* clocks from 100 MHz, below every GPU's lowest (nvidia-smi's supported clocks: V100 135,
     * A100 210): 1.98 is GHz, and a sustained clock in GHz made every layer 1000 times slower */
    {"device", "boost_clock_mhz", F_REAL, AT(boost_clock), 1e6, 100, 1e5, 1, 0,
     "the boost clock in MHz: 1980, not 1.98 GHz"},
    {"device", "fp32_lanes_per_sm", F_INT, AT(fp32_lanes), 1, 1, 4096, 1, 0,
     "FP32 FMA lanes per SM"},
    {"device", "tensor_cores", F_TENSOR_CORES, AT(tensor_cores), 0, 0, SIZE(tensor_cores), 0, 0,
     "none, volta, turing, ampere, ada, hopper or blackwell"},
    {"device", "l2_mib", F_REAL, AT(l2_bytes), 1048576.0, 0, 1e6, 1, 0, "L2 cache in MiB"},
    {"device", "memory_type", F_MEMORY_TYPE, AT(memory_type), 0, 0, SIZE(memory_type), 0, 0,
     "hbm2, hbm2e, hbm3, hbm3e, gddr6 or gddr6x"},
    {"device", "power_limit_w", F_REAL, AT(power_limit), 1, 1, 1e5, 1, 0,
     "the board's power limit in W"},
    {"device", "sustained_clock_mhz", F_REAL, AT(sustained_clock), 1e6, 100, 1e5, 1, 0,
     "the clock in MHz the part holds under dense work at its power limit: 1390, not 1.39 GHz"},
    {"device", "source", F_TEXT, AT(source), 0, 0, SIZE(source), 0, 0,
     "where the figures come from"},
};
#define N_FIELDS ((int)(sizeof fields / sizeof fields[0]))

typedef struct reader {
    sm_ini_reader rd;
    const char *path;   /* of the file read: the device's, or a framework file */
    int framework_only; /* a framework file: [framework] alone */
    int error;          /* the handler failed: st holds why */
    int set_at[N_FIELDS];
    /* the base's keys ([framework] base), read from base_path: lines of that file */
    int base_set_at[N_FIELDS];
    char base_path[4096];
    sm_device *dev;
    sm_status *st;
} reader;

static int on_entry(void *user, const char *section, const char *key, const char *value);
static int sm_bound_keys_need_sms(const reader *r, const sm_device *dev, sm_status *st);
static int check_on_device(const reader *r);

/* Descriptions take no continued values (an indented line is refused, naming the key it would
 * continue: inih read it as more of that value, and the key came out "given twice"), and name
 * a key before any [section] themselves. */
static const sm_ini_format description_format = {0, 1, NULL};

/* What a framework file read into a device (framework_defaults before it) must give. */
static int check_framework_file(const reader *r)
{
    /* an empty file is no framework: every dispatch cost would fall to the bare launch */
    int keys = 0;
    for (int i = 0; i < N_FIELDS; i++)
        keys += r->set_at[i] != 0;
    if (!keys)
        return sm_fail(r->st,
                       "%s: no [framework] keys: a framework file gives at least its dispatch "
                       "costs (configs/frameworks/*.ini)",
                       r->path);
    /* nor is a file of other keys alone (a name, an optimizer): its kernels would cost the
     * bare launch, a step of resnet50 at bf16 on an h100 0.026 s for eager's 0.048 */
    const sm_device *dev = r->dev;
    if (dev->dispatch_infer < 0 && dev->dispatch_fwd < 0 && dev->dispatch_bwd < 0)
        return sm_fail(r->st,
                       "%s: no dispatch_infer_us, dispatch_fwd_us or dispatch_bwd_us: a framework "
                       "file gives what its kernels cost on the host (configs/frameworks/*.ini; "
                       "--optimizer alone changes the optimizer)",
                       r->path);
    return 0;
}

/* what a base's name may hold: a file of configs/frameworks, never a path */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

/* [framework] base = NAME: configs/frameworks/NAME.ini read into the device first, so that the
 * section's own keys, which follow it, replace the base's. Descriptions of one chip share its
 * framework so (h100, h100-pcie, h200: pytorch-eager-hopper), instead of copies that drift. */
static int read_base(reader *r, const field *f, const char *value)
{
    const char *path = r->path;
    int line = r->rd.line;
    if (r->framework_only)
        return sm_fail(r->st,
                       "%s:%d: base in a framework file: a framework's keys are its own (a "
                       "device description's [framework] names a base)",
                       path, line);
    for (int i = 0; i < N_FIELDS; i++)
        if (r->set_at[i] && !strcmp(fields[i].section, "framework") && fields[i].kind != F_BASE)
            return sm_fail(r->st,
                           "%s:%d: base after %s (line %d): give base first in [framework], so "
                           "that the section's keys replace the base's",
                           path, line, fields[i].key, r->set_at[i]);
    size_t n = strlen(value);
    if (!n || n >= (size_t)f->hi || strspn(value, NAME_CHARS) != n)
        return sm_fail(r->st,
                       "%s:%d: base = %s: expected the name of a framework of "
                       "%s/configs/frameworks (letters, digits, - and _; not a path)",
                       path, line, value, sm_data_dir());
    if (snprintf(r->base_path, sizeof r->base_path, "%s/configs/frameworks/%s.ini", sm_data_dir(),
                 value) >= (int)sizeof r->base_path)
        return sm_fail(r->st, "%s:%d: base = %s: the data folder's path is too long", path, line,
                       value);
    if (!sm_is_file(r->base_path))
        return sm_fail(r->st, "%s:%d: base = %s: no framework %s (configs/frameworks/*.ini)", path,
                       line, value, r->base_path);
    reader b = {0};
    b.path = r->base_path;
    b.framework_only = 1;
    b.dev = r->dev;
    b.st = r->st;
    if (sm_ini_parse_format(r->base_path, &description_format, &b.rd, on_entry, &b, r->st) ||
        check_framework_file(&b) || check_on_device(&b))
        return sm_fail(r->st, "%s:%d: base = %s: %s", path, line, value, r->st->msg);
    memcpy(r->base_set_at, b.set_at, sizeof b.set_at);
    snprintf(r->dev->framework_base, sizeof r->dev->framework_base, "%s", value);
    return 0;
}

/* A value named from a list (precision, collective, architecture, host CPU) into dst; -1 if it
 * names none. */
static int parse_name(field_kind kind, const char *value, void *dst)
{
    sm_status ignored;
    switch (kind) {
    case F_PRECISION: {
        int p = sm_precision_parse(value);
        if (p < 0)
            return -1;
        *(sm_precision *)dst = (sm_precision)p;
        return 0;
    }
    case F_COLLECTIVE:
        return sm_collective_parse(value, dst, &ignored) ? -1 : 0;
    case F_GENERATION:
        return sm_gpu_generation_parse(value, dst);
    case F_HOST:
        return sm_host_cpu_parse(value, dst);
    case F_OPTIMIZER: {
        int o = sm_optimizer_parse(value);
        if (o < 0)
            return -1;
        *(int *)dst = o;
        return 0;
    }
    default:
        return -1;
    }
}

int sm_device_check_value(const char *section, const char *key, double v, char *why, size_t len)
{
    for (int i = 0; i < N_FIELDS; i++) {
        const field *f = &fields[i];
        if (f->kind != F_REAL || strcmp(f->section, section) || strcmp(f->key, key))
            continue;
        if (isfinite(v) && v <= f->hi &&
            (v > f->lo || (v == f->lo && f->lo_ok) || (v == 0 && f->lo_ok == OFF_OR_FROM)))
            return 0;
        if (f->lo_ok == OFF_OR_FROM)
            snprintf(why, len, "0 (none) or from %g to %g", f->lo, f->hi);
        else
            snprintf(why, len, "%s %g and at most %g", f->lo_ok ? "from" : "above", f->lo, f->hi);
        return -1;
    }
    snprintf(why, len, "not a numeric key of [%s]", section);
    return -1;
}

static int set_field(reader *r, int i, const char *value)
{
    const field *f = &fields[i];
    void *dst = (char *)r->dev + f->offset;
    const char *path = r->path;
    char *end;
    /* names of device_arch.c's tables: checked here, where the line is known, then text */
    if ((f->kind == F_TENSOR_CORES && !sm_device_tensor_cores_known(value)) ||
        (f->kind == F_MEMORY_TYPE && !sm_device_memory_type_known(value)))
        return sm_fail(r->st, "%s:%d: %s = %s: expected %s", path, r->rd.line, f->key, value,
                       f->what);
    switch (f->kind) {
    case F_TENSOR_CORES:
    case F_MEMORY_TYPE:
    case F_TEXT: /* hi: the size of the text's buffer */
        /* an empty name named nothing in messages ("device  has no bf16 peak") */
        if (!value[0] && !strcmp(f->key, "name"))
            return sm_fail(r->st,
                           "%s:%d: name is empty: give a short name, or leave the key out "
                           "for the file's",
                           path, r->rd.line);
        if (snprintf(dst, (size_t)f->hi, "%s", value) >= (int)f->hi)
            return sm_fail(r->st, "%s:%d: %s is longer than %.0f characters", path, r->rd.line,
                           f->key, f->hi - 1);
        return 0;
    case F_BASE:
        return read_base(r, f, value);
    case F_PRECISION:
    case F_COLLECTIVE:
    case F_GENERATION:
    case F_HOST:
    case F_OPTIMIZER:
        if (parse_name(f->kind, value, dst))
            return sm_fail(r->st, "%s:%d: %s = %s: expected %s", path, r->rd.line, f->key, value,
                           f->what);
        return 0;
    case F_INT: {
        errno = 0;
        long v = strtol(value, &end, 10);
        if (errno || end == value || *end || v < f->lo || v > f->hi)
            return sm_fail(r->st, "%s:%d: %s = %s: expected an integer from %.0f to %.0f (%s)",
                           path, r->rd.line, f->key, value, f->lo, f->hi, f->what);
        *(int *)dst = (int)v;
        return 0;
    }
    case F_REAL: {
        errno = 0;
        double v = sm_strtod(value, &end);
        /* ERANGE also flags underflow (1e-320), a value the range below judges as any other */
        int off = v == 0 && f->lo_ok == OFF_OR_FROM;
        if ((errno && !(errno == ERANGE && fabs(v) < 1)) || end == value || *end || !isfinite(v) ||
            v > f->hi || (!off && (v < f->lo || (v == f->lo && !f->lo_ok))))
            return sm_fail(r->st,
                           f->lo_ok == OFF_OR_FROM
                               ? "%s:%d: %s = %s: expected 0 (none) or a number %s %g to %g (%s)"
                               : "%s:%d: %s = %s: expected a number %s %g and at most %g (%s)",
                           path, r->rd.line, f->key, value, f->lo_ok ? "from" : "above", f->lo,
                           f->hi, f->what);
        *(double *)dst = v * f->scale + 0.0; /* -0 read as 0: written "0" by every format */
        return 0;
    }
    }
    return 0;
}

static int has_key(const char *section, const char *key)
{
    for (int i = 0; i < N_FIELDS; i++)
        if (!strcmp(fields[i].section, section) && !strcmp(fields[i].key, key))
            return 1;
    return 0;
}

/* A key before the first [section] header (inih's section ""): where it belongs. */
static int outside_section(reader *r, const char *key)
{
    static const char *const sections[] = {"device", "framework", "node"};
    char homes[64] = "";
    for (int k = 0; k < 3; k++)
        if ((!r->framework_only || !strcmp(sections[k], "framework")) && has_key(sections[k], key))
            snprintf(homes + strlen(homes), sizeof homes - strlen(homes), "%s[%s]",
                     homes[0] ? " or " : "", sections[k]);
    r->error = 1;
    if (homes[0])
        return sm_fail(r->st,
                       "%s:%d: %s outside a section (before any [section] header): give it "
                       "under %s",
                       r->path, r->rd.line, key, homes),
               0;
    return sm_fail(r->st, "%s:%d: %s outside a section (before any [section] header): %s", r->path,
                   r->rd.line, key,
                   r->framework_only ? "a framework file gives [framework] keys, under [framework]"
                                     : "no key of [device], [framework] or [node] "
                                       "(docs/scaling.md lists the fields)"),
           0;
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
    reader *r = user;
    const char *path = r->path;
    if (r->error)
        return 0;
    if (!section[0])
        return outside_section(r, key);
    if (r->framework_only && strcmp(section, "framework") != 0) {
        r->error = 1;
        return sm_fail(r->st, "%s:%d: [%s] in a framework file: expected [framework] only", path,
                       r->rd.line, section),
               0;
    }
    if (strcmp(section, "device") != 0 && strcmp(section, "node") != 0 &&
        strcmp(section, "framework") != 0) {
        r->error = 1;
        char other[160];
        return sm_fail(r->st,
                       "%s:%d: unknown section [%s]: expected [device], [framework] or "
                       "[node]%s",
                       path, r->rd.line, section,
                       sm_ini_other_kind(section, "a device description", other, sizeof other)),
               0;
    }
    for (int i = 0; i < N_FIELDS; i++) {
        if (strcmp(fields[i].section, section) != 0 || strcmp(fields[i].key, key) != 0)
            continue;
        if (r->set_at[i]) {
            r->error = 1;
            return sm_fail(r->st, "%s:%d: %s given twice (first at line %d)", path, r->rd.line, key,
                           r->set_at[i]),
                   0;
        }
        r->set_at[i] = r->rd.line;
        if (set_field(r, i, value))
            return r->error = 1, 0;
        return 1;
    }
    r->error = 1;
    for (int i = 0; i < N_FIELDS; i++)
        if (!strcmp(fields[i].key, key))
            return sm_fail(r->st, "%s:%d: %s is a [%s] key: give it there%s, not under [%s]", path,
                           r->rd.line, key, fields[i].section,
                           r->framework_only ? " (in the device description)" : "", section),
                   0;
    return sm_fail(r->st, "%s:%d: unknown key '%s' in [%s] (docs/scaling.md lists the fields)",
                   path, r->rd.line, key, section),
           0;
}

/* The file name without folder and its final .ini, the name of a description (or framework)
 * that gives none: cut at the first dot, h100-v1.5.ini was h100-v1 and .hidden.ini an empty
 * name, the one `name =` may not give. A file named .ini alone keeps it, as a network's name
 * keeps a leading dot (network_parse.c), so the name is never empty. */
static void name_from_path(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ini"))
        n -= 4;
    snprintf(name, len, "%.*s", (int)(n < len ? n : len - 1), base);
}

#define ATTENTION_NOT_GIVEN (-2) /* beside memory.h's SM_ATTENTION_* */

/* [framework] before a file is read: no name, dispatch and fused_attention not given (for
 * framework_fallbacks), no casts, no fusion, fp32 gradients, NCHW activations (PyTorch's
 * default memory format) transposed around every convolution at fp16 and bf16, every kernel
 * bound by the DRAM. */
static void framework_defaults(sm_device *dev)
{
    dev->framework[0] = '\0';
    dev->framework_base[0] = '\0';
    dev->dispatch_infer = dev->dispatch_fwd = dev->dispatch_bwd = dev->dispatch_update = -1;
    dev->autocast_casts = 0;
    dev->kernel_device = 0;
    dev->fuse_epilogues = 0;
    dev->fuse_bn_relu = 0;
    dev->fuse_pointwise = 0;
    dev->host_runs_ahead = 0;
    dev->dispatch_on_device = 0;
    dev->channels_last = 0;
    dev->nchw_transpose_share = 1;
    dev->nchw_matmul_positions = 0;
    dev->transpose_sm_elements = 0;
    memset(dev->batchnorm_sm_bytes, 0, sizeof dev->batchnorm_sm_bytes);
    memset(dev->direct_conv_rate, 0, sizeof dev->direct_conv_rate);
    memset(dev->pooling_rate, 0, sizeof dev->pooling_rate);
    memset(dev->conv_bias_rate, 0, sizeof dev->conv_bias_rate);
    dev->broadcast_rate = 0;
    dev->conv_pass = 0;
    memset(dev->rownorm_row_clocks, 0, sizeof dev->rownorm_row_clocks);
    memset(dev->rownorm_elements, 0, sizeof dev->rownorm_elements);
    memset(dev->rownorm_half_elements, 0, sizeof dev->rownorm_half_elements);
    memset(dev->bias_grad_rate, 0, sizeof dev->bias_grad_rate);
    dev->bias_grad_sum_clocks = 0;
    memset(dev->conv_kind_efficiency, 0, sizeof dev->conv_kind_efficiency);
    dev->fused_attention = ATTENTION_NOT_GIVEN;
    dev->grad_bytes = 4;  /* DDP reduces the fp32 gradients of fp32 master weights, AMP too */
    dev->param_bytes = 4; /* fp32 parameters, AMP's: no master copy, DDP's bucket copy */
    dev->master_in_optimizer = 0;
    dev->grad_is_bucket = 0;
    dev->optimizer = -1; /* not given: the network's recipe, else momentum (torchvision's) */
}

void sm_device_memory_config(const sm_device *v, sm_precision p, sm_memory_config *out)
{
    out->half = sm_precision_is_half(p);
    out->fp16 = p == SM_FP16;
    out->autocast = out->half && v->autocast_casts > 0;
    /* a framework that names none trains each network with its recipe's (Llama's AdamW),
     * momentum where the network names none either (torchvision's recipes) */
    out->optimizer = v->optimizer >= 0 ? (sm_optimizer)v->optimizer : SM_OPTIMIZER_MOMENTUM;
    out->optimizer_is_default = v->optimizer < 0;
    out->mask_bytes = v->mask_bytes;
    out->workspace_bytes = v->workspace;
    out->conv_workspace_bytes = v->conv_workspace;
    out->context_bytes = v->context;
    out->capacity_bytes = v->memory_capacity;
    out->fused_attention = v->fused_attention;
    out->no_fused_dropout = !v->fused_attention_dropout;
    /* a cast model's 16-bit parameters, and the fp32 master copy its optimizer keeps, are of
     * its fp16 and bf16 runs: at fp32 and TF32 the parameters are the fp32 weights the
     * optimizer updates (Megatron's guide: 4 + 4 + 8 bytes a parameter with Adam in fp32) */
    int cast = out->half && v->param_bytes < 4;
    out->param_bytes = cast || v->param_bytes >= 4 ? v->param_bytes : 4;
    out->master_in_optimizer = cast && v->master_in_optimizer;
    out->grad_bytes = v->grad_bytes;
    out->grad_is_bucket = v->grad_is_bucket;
}

/* A batch norm or cuDNN's transposes bound by the SMs need the part's SMs and clock: without
 * them the bound was dropped without a word, and they were priced at the DRAM's rate as if no
 * key were given. (The direct convolutions' keys are of a GPU's kernels: on a part without
 * SMs, a CPU that eager PyTorch runs on too, they price nothing, as device_roofline.c says.) */
static int sm_bound_keys_need_sms(const reader *r, const sm_device *dev, sm_status *st)
{
    if (dev->sm_count && dev->boost_clock > 0)
        return 0;
    for (int i = 0; i < N_FIELDS; i++) {
        int bn = strncmp(fields[i].key, "batchnorm_", 10) == 0;
        if (!r->set_at[i] || (!bn && strcmp(fields[i].key, "transpose_elements_per_sm_clock")))
            continue;
        if (*(const double *)((const char *)dev + fields[i].offset) > 0)
            return sm_fail(st,
                           "%s:%d: %s bounds %s by the SMs, but the description %s "
                           "gives no %s: give the part's sm_count and boost_clock_mhz "
                           "([device]), or drop the key",
                           r->path, r->set_at[i], fields[i].key,
                           bn ? "batch norm" : "cuDNN's transposes", dev->path,
                           dev->sm_count ? "boost_clock_mhz" : "sm_count");
    }
    return 0;
}

/* A framework's convolution fractions at the part's clock (sm_device's conv_kind_scale): the
 * Hopper framework's were measured on an H100 SXM at 1,830 MHz, and an H100 PCIe holds 1,390
 * under load, as the generation's defaults are scaled (device_arch.c). */
static void scale_conv_kinds(sm_device *dev)
{
    for (int p = 0; p < SM_N_PRECISIONS; p++)
        for (int k = 0; k < 4; k++) {
            double *e = &dev->conv_kind_efficiency[p][k / 2][k % 2];
            *e = fmin(1, *e * dev->conv_kind_scale[p]);
        }
}

/* [framework] keys the file did not give: a dispatch time is the bare launch overhead; without
 * fused_attention each attention layer runs as its code does. A framework that gives it runs
 * attention of its own, fused (1) or eager (0), whatever the network's code calls. */
static void framework_fallbacks(sm_device *dev)
{
    double *dispatch[] = {&dev->dispatch_infer, &dev->dispatch_fwd, &dev->dispatch_bwd,
                          &dev->dispatch_update};
    dev->dispatch_not_given = 0;
    for (int k = 0; k < 4; k++)
        if (*dispatch[k] < 0) {
            *dispatch[k] = dev->launch_overhead;
            dev->dispatch_not_given |= 1u << k;
        }
    if (dev->fused_attention == ATTENTION_NOT_GIVEN)
        dev->fused_attention = SM_ATTENTION_AS_WRITTEN;
    else
        dev->fused_attention = dev->fused_attention ? SM_ATTENTION_FUSED : SM_ATTENTION_EAGER;
}

/* The line a field was given at, or 0. */
static int line_of(const reader *r, const char *section, const char *key)
{
    for (int i = 0; i < N_FIELDS; i++)
        if (!strcmp(fields[i].section, section) && !strcmp(fields[i].key, key))
            return r->set_at[i];
    return 0;
}

/* Where key came from, for messages: "line N" of the file read, or its base's file. */
static void key_origin(const reader *r, const char *key, char *buf, size_t len)
{
    int line = line_of(r, "framework", key);
    for (int i = 0; !line && i < N_FIELDS; i++)
        if (!strcmp(fields[i].section, "framework") && !strcmp(fields[i].key, key) &&
            r->base_set_at[i]) {
            snprintf(buf, len, "%s:%d, its base", r->base_path, r->base_set_at[i]);
            return;
        }
    snprintf(buf, len, "line %d", line);
}

/* A dispatch that is the device's own time per kernel (dispatch_on_device) has no host to run
 * ahead of it, and already holds the device's time a kernel: beside either key the file says
 * two things at once, refused at the file's line as the predictor would refuse it (what the
 * loader takes, the predictor takes: fuzz/fuzz_framework.c). */
static int check_on_device(const reader *r)
{
    const sm_device *v = r->dev;
    if (!v->dispatch_on_device)
        return 0;
    const char *other = v->host_runs_ahead     ? "host_runs_ahead"
                        : v->kernel_device > 0 ? "kernel_device_us"
                                               : NULL;
    if (!other)
        return 0;
    char on[4200], at[4200] = "";
    key_origin(r, "dispatch_on_device", on, sizeof on);
    int line = line_of(r, "framework", other);
    if (!line) { /* from the base: the file's line is dispatch_on_device's */
        key_origin(r, other, at + 2, sizeof at - 3);
        at[0] = ' ';
        at[1] = '(';
        strcat(at, ")");
        line = line_of(r, "framework", "dispatch_on_device");
    }
    if (v->host_runs_ahead)
        return sm_fail(r->st,
                       "%s:%d: host_runs_ahead = 1%s beside dispatch_on_device = 1 (%s): the "
                       "device's own time per kernel has no host to run ahead of it; drop one",
                       r->path, line, at, on);
    return sm_fail(r->st,
                   "%s:%d: kernel_device_us%s beside dispatch_on_device = 1 (%s): the "
                   "dispatch is already the device's own time per kernel; drop one",
                   r->path, line, at, on);
}

/* architecture (NCCL's caps) and tensor_cores (the efficiencies) name one part: an H100 with
 * architecture = volta lost NVLS and took Volta's bandwidth caps */
static int check_generations(const reader *r)
{
    int arch = line_of(r, "device", "architecture"), tc = line_of(r, "device", "tensor_cores");
    const char *want = sm_device_tensor_cores_nccl(r->dev->tensor_cores);
    sm_gpu_generation g;
    if (!arch || !tc || !want || sm_gpu_generation_parse(want, &g) || g == r->dev->generation)
        return 0;
    return sm_fail(r->st,
                   "%s:%d: architecture is not %s, the generation NCCL's tables take for "
                   "tensor_cores = %s (line %d): give architecture = %s (Turing's is volta, "
                   "Ada's ampere)",
                   r->path, arch, want, r->dev->tensor_cores, tc, want);
}

/* NCCL's generation where architecture is left out: the one tensor_cores names for it
 * (Turing's volta, Ada's ampere), as check_generations wants the two to agree; an A100 that
 * named only its tensor cores took NVLS and lost NCCL's caps. Unknown where neither says. */
static void generation_from_tensor_cores(const reader *r)
{
    const char *nccl = sm_device_tensor_cores_nccl(r->dev->tensor_cores);
    if (!line_of(r, "device", "architecture") && line_of(r, "device", "tensor_cores") && nccl)
        sm_gpu_generation_parse(nccl, &r->dev->generation);
}

/* NVLink SHARP before Hopper: NCCL builds its NVLS kernels for compute capability 9.0 and
 * later alone (src/device/generate.py), so an A100 with nvls_efficiency ran an all-reduce no
 * A100 runs; nor does a GPU without tensor cores (before Volta). The generation is the
 * architecture's, or the tensor cores' where it is left out. */
static int check_nvls(const reader *r)
{
    int line = line_of(r, "node", "nvls_efficiency");
    const sm_device *v = r->dev;
    int arch = line_of(r, "device", "architecture"), tc = line_of(r, "device", "tensor_cores");
    int before_volta = !arch && tc && !strcmp(v->tensor_cores, "none");
    if (!line || !(v->nvls_efficiency > 0) ||
        (v->generation != SM_GPU_VOLTA && v->generation != SM_GPU_AMPERE && !before_volta))
        return 0;
    char named[64];
    if (arch)
        snprintf(named, sizeof named, "architecture = %s",
                 v->generation == SM_GPU_VOLTA ? "volta" : "ampere");
    else
        snprintf(named, sizeof named, "tensor_cores = %s", v->tensor_cores);
    return sm_fail(r->st,
                   "%s:%d: nvls_efficiency = %g, but %s (line %d) has no NVLink SHARP: NCCL runs "
                   "NVLS from Hopper on; give 0, or leave the key out",
                   r->path, line, v->nvls_efficiency, named, arch ? arch : tc);
}

int sm_device_load(const char *path, sm_device *dev, sm_status *st)
{
    memset(dev, 0, sizeof *dev);
    if (snprintf(dev->path, sizeof dev->path, "%s", path) >= (int)sizeof dev->path)
        return sm_fail(st, "%.200s...: path too long", path);
    /* Defaults of the optional fields; the shipped descriptions state them too. */
    dev->precision = SM_FP32;
    dev->compute_efficiency = 0.5;
    dev->memory_efficiency = 0.7;
    dev->stream_efficiency = -1; /* not given: memory_type's, else memory_efficiency */
    dev->launch_overhead = 5e-6;
    dev->inter_ports = 1;
    dev->fused_attention_dropout = 1; /* FlashAttention applies dropout itself */
    dev->mask_bytes = 1;              /* CUDA's native_dropout keeps a bool mask */
    framework_defaults(dev);
    /* -1: not given; filled in below from the key they default to */
    for (int p = 0; p < SM_N_PRECISIONS; p++)
        dev->efficiency[p] = dev->conv_efficiency[p] = -1;
    name_from_path(path, dev->name, sizeof dev->name);

    reader r = {0};
    r.path = path;
    r.dev = dev;
    r.st = st;
    if (sm_ini_parse_format(path, &description_format, &r.rd, on_entry, &r, st))
        return -1;
    /* a framework file given for a description: its first missing key would not say so */
    int framework_keys = 0, other_keys = 0;
    for (int i = 0; i < N_FIELDS; i++)
        if (r.set_at[i])
            ++*(strcmp(fields[i].section, "framework") ? &other_keys : &framework_keys);
    if (framework_keys && !other_keys)
        return sm_fail(st,
                       "%s: [framework] keys alone: a framework file, for predict's and curve's "
                       "--framework; a device description has [device] and [node] "
                       "(configs/devices/*.ini)",
                       path);

    /* a node of one device has no link inside it (a PCIe card alone in its server): the
     * intra-node keys are for nodes of two or more, as devices_per_node or the most -g takes
     * (max_devices_per_node, read but not yet defaulted) say */
    int one_device = dev->devices_per_node == 1 && dev->max_devices_per_node <= 1;
    for (int i = 0; i < N_FIELDS; i++) {
        const field *f = &fields[i];
        int needed = f->required == 1 || (f->required == 2 && f->offset == PEAK(dev->precision)) ||
                     (f->required == 3 && !one_device);
        if (needed && !r.set_at[i])
            return sm_fail(st, "%s: [%s] %s is missing (%s%s%s)", path, f->section, f->key, f->what,
                           f->required == 2   ? ", needed for precision = "
                           : f->required == 3 ? ", needed for a node of two devices or more"
                                              : "",
                           f->required == 2 ? sm_precision_names[dev->precision] : "");
    }
    if (check_generations(&r))
        return -1;
    generation_from_tensor_cores(&r);
    if (check_nvls(&r))
        return -1;
    int eff_given[SM_N_PRECISIONS], peak_line[SM_N_PRECISIONS], memory_given = 0;
    int power_line = 0, clock_line = 0, max_line = 0;
    for (int i = 0; i < N_FIELDS; i++) {
        for (int p = 0; p < SM_N_PRECISIONS; p++) {
            if (fields[i].offset == EFF(p) && fields[i].kind == F_REAL)
                eff_given[p] = r.set_at[i] != 0;
            if (fields[i].offset == PEAK(p) && fields[i].kind == F_REAL)
                peak_line[p] = r.set_at[i];
        }
        if (fields[i].offset == AT(memory_efficiency))
            memory_given = r.set_at[i] != 0;
        if (fields[i].offset == AT(power_limit))
            power_line = r.set_at[i];
        if (fields[i].offset == AT(sustained_clock))
            clock_line = r.set_at[i];
        if (fields[i].offset == AT(max_devices_per_node))
            max_line = r.set_at[i];
    }
    /* what the description holds for itself must leave room for a network: 1 GiB of memory
     * beside a 2 GiB context made every batch "does not fit" */
    double held = dev->context + dev->workspace + dev->conv_workspace;
    int capacity_line = line_of(&r, "device", "memory_gib");
    if (capacity_line && dev->memory_capacity > 0 && held >= dev->memory_capacity)
        return sm_fail(st,
                       "%s:%d: memory_gib = %g is no more than the description's own context, "
                       "workspace and conv workspace (%g GiB together): no network would fit; "
                       "give the part's memory, or smaller [device] *_mib keys",
                       path, capacity_line, dev->memory_capacity / 1073741824.0,
                       held / 1073741824.0);
    /* Volta's and Turing's tensor cores (NCCL's volta) have neither TF32 nor BF16: where the
     * tensor cores are not named, the architecture says so (device_arch.c checks them) */
    int arch_line = line_of(&r, "device", "architecture");
    static const sm_precision from_ampere[] = {SM_TF32, SM_BF16};
    for (size_t k = 0; k < sizeof from_ampere / sizeof *from_ampere; k++) {
        sm_precision p = from_ampere[k];
        if (arch_line && !line_of(&r, "device", "tensor_cores") &&
            dev->generation == SM_GPU_VOLTA && peak_line[p])
            return sm_fail(st,
                           "%s:%d: peak_%s_tflops, but architecture = volta (line %d: Volta and "
                           "Turing) has no %s; it came with Ampere",
                           path, peak_line[p], sm_precision_names[p], arch_line,
                           sm_precision_names[p]);
    }
    /* an efficiency scales its precision's peak (fp8's its own key): without the peak no
     * prediction reads it, and a compute_efficiency_tf32 on a part without TF32 was taken
     * without a word */
    int fp8_line = line_of(&r, "device", "peak_fp8_tflops");
    for (int i = 0; i < N_FIELDS; i++) {
        const char *name = fields[i].offset == AT(fp8_efficiency) ? "fp8" : NULL;
        int peak = fp8_line;
        for (int p = 0; p < SM_N_PRECISIONS && !name; p++)
            if (fields[i].offset == EFF(p) || fields[i].offset == CONV(p))
                name = sm_precision_names[p], peak = peak_line[p];
        if (name && r.set_at[i] && !peak)
            return sm_fail(st,
                           "%s:%d: %s without peak_%s_tflops: no prediction at %s reads it "
                           "(give the part's %s peak, or drop the key)",
                           path, r.set_at[i], fields[i].key, name, name, name);
    }
    /* FP8 products came with Ada and Hopper (their whitepapers' fourth-generation tensor
     * cores) */
    if (fp8_line && dev->tensor_cores[0] && !sm_device_has_fp8(dev->tensor_cores))
        return sm_fail(st,
                       !strcmp(dev->tensor_cores, "none")
                           ? "%s:%d: peak_fp8_tflops without tensor cores (tensor_cores = none): "
                             "fp8 products run on Ada's and Hopper's"
                           : "%s:%d: peak_fp8_tflops on %s tensor cores, which have no fp8 (it "
                             "came with Ada and Hopper)",
                       path, fp8_line, dev->tensor_cores);
    /* every part with fp8 runs it at twice its 16-bit products' rate (the datasheets' dense
     * figures): one below them is a sparse figure's other half, or another key's number */
    double half_peak = fmax(dev->peak[SM_FP16], dev->peak[SM_BF16]);
    if (fp8_line && dev->peak_fp8 < half_peak)
        return sm_fail(st,
                       "%s:%d: peak_fp8_tflops = %g is below the part's 16-bit peak (%g "
                       "TFLOP/s): its fp8 products run at twice that, the datasheet's dense figure",
                       path, fp8_line, dev->peak_fp8 / 1e12, half_peak / 1e12);
    if (!max_line)
        dev->max_devices_per_node = dev->devices_per_node;
    else if (dev->max_devices_per_node < dev->devices_per_node)
        return sm_fail(st, "%s:%d: max_devices_per_node %d is below devices_per_node %d", path,
                       max_line, dev->max_devices_per_node, dev->devices_per_node);
    /* the rings cross the network on one port a device at most (min(ports, G), docs/scaling.md):
     * ports beyond the devices were dropped without a word, a node of 32 NICs for 8 GPUs
     * (AWS p5) read as 8 */
    int ports_line = line_of(&r, "node", "inter_node_ports");
    if (dev->inter_ports > dev->max_devices_per_node)
        return sm_fail(st,
                       "%s:%d: inter_node_ports = %d is more than the %d devices of a node, and "
                       "the model takes one port a device at most: give %d ports of %g GB/s "
                       "(inter_node_bandwidth_gb_s, each device's share of the node's)",
                       path, ports_line, dev->inter_ports, dev->max_devices_per_node,
                       dev->max_devices_per_node,
                       dev->inter.bandwidth / 1e9 * dev->inter_ports / dev->max_devices_per_node);
    /* an explicit compute_efficiency stands for every precision, as before */
    for (int i = 0; i < N_FIELDS; i++)
        if (fields[i].offset == AT(compute_efficiency) && r.set_at[i])
            for (int p = 0; p < SM_N_PRECISIONS; p++)
                eff_given[p] |= dev->efficiency[p] < 0 ? 2 : 0;
    for (int p = 0; p < SM_N_PRECISIONS; p++)
        if (dev->efficiency[p] < 0)
            dev->efficiency[p] = dev->compute_efficiency;
    reader base = {.path = r.base_path, .dev = dev};
    memcpy(base.set_at, r.base_set_at, sizeof base.set_at);
    if (sm_device_arch_defaults(dev, eff_given, memory_given, peak_line, power_line, clock_line,
                                st) ||
        sm_bound_keys_need_sms(&r, dev, st) || sm_bound_keys_need_sms(&base, dev, st) ||
        check_on_device(&r))
        return -1;
    scale_conv_kinds(dev);
    framework_fallbacks(dev);
    return 0;
}

int sm_device_load_framework(const char *path, sm_device *dev, sm_status *st)
{
    framework_defaults(dev);
    reader r = {0};
    r.path = path;
    r.framework_only = 1;
    r.dev = dev;
    r.st = st;
    if (sm_ini_parse_format(path, &description_format, &r.rd, on_entry, &r, st) ||
        check_framework_file(&r) || sm_bound_keys_need_sms(&r, dev, st) || check_on_device(&r))
        return -1;
    scale_conv_kinds(dev);
    framework_fallbacks(dev);
    if (!dev->framework[0])
        name_from_path(path, dev->framework, sizeof dev->framework);
    return 0;
}

void sm_allreduce_estimate_of(sm_nccl_choice choice, sm_allreduce_estimate *out)
{
    out->seconds = choice.seconds;
    snprintf(out->algorithm, sizeof out->algorithm, "%s", choice.algorithm);
    snprintf(out->protocol, sizeof out->protocol, "%s", choice.protocol);
}

int sm_device_bucket_choice(const sm_device *v, const sm_network *net, double bucket_bytes,
                            sm_collective collective, sm_collective_op op, const sm_layout *layout,
                            sm_allreduce_estimate *out, sm_status *st)
{
    sm_metrics m;
    if (sm_device_check_layout(v, layout->gpus_per_node, st) || sm_network_metrics(net, 1, &m, st))
        return -1;
    double bytes = v->grad_bytes * (double)m.weights;
    /* the buckets the predictions send: equal ones, at most one per parameter tensor */
    sm_ring_config a = sm_device_ring(v, bytes, bucket_bytes, (double)m.param_tensors,
                                      layout->nodes, layout->gpus_per_node, collective);
    double k = sm_bucket_count(bytes, bucket_bytes, a.max_buckets);
    sm_allreduce_estimate_of(op == SM_OP_ALL_REDUCE
                                 ? sm_ring_allreduce_choice(&a)
                                 : sm_collective_choice(&a, op, k > 0 ? bytes / k : 0),
                             out);
    return 0;
}

int sm_device_collective(const sm_device *v, const char *option, sm_collective *out, sm_status *st)
{
    if (option)
        return sm_collective_parse(option, out, st);
    *out = v->collective;
    return 0;
}

int sm_device_choose_collective(sm_device *v, const char *collective, const char *algorithms,
                                const char *protocols, sm_collective *out, sm_status *st)
{
    unsigned a = 0, p = 0;
    if ((algorithms && sm_nccl_parse_algorithms(algorithms, &a, st)) ||
        (protocols && sm_nccl_parse_protocols(protocols, &p, st)) ||
        sm_device_collective(v, collective, out, st))
        return -1;
    if (algorithms || protocols) {
        /* the option's name first: the commands take a "--" error as a usage error (exit 2) */
        if (collective && *out != SM_COLLECTIVE_NCCL)
            return sm_fail(st,
                           "--%s %s restricts NCCL's choice: it needs the nccl collective, not "
                           "%s",
                           algorithms ? "algorithm" : "protocol",
                           algorithms ? algorithms : protocols, collective);
        *out = SM_COLLECTIVE_NCCL;
    }
    v->nccl_algorithms = a;
    v->nccl_protocols = p;
    snprintf(v->nccl_algo, sizeof v->nccl_algo, "%.63s", algorithms ? algorithms : "any");
    snprintf(v->nccl_proto, sizeof v->nccl_proto, "%.63s", protocols ? protocols : "any");
    return 0;
}

int sm_device_open_allreduce(const char *name_or_path, const sm_device_options *opt, sm_device *v,
                             sm_collective *collective, double *bucket_bytes, sm_status *st)
{
    if (opt->bucket_mib != 0 && !SM_BUCKET_MIB_OK(opt->bucket_mib))
        return sm_fail(st, "bucket size %g MiB: expected a positive number from %g to %.0f",
                       opt->bucket_mib, SM_MIN_BUCKET_MIB, SM_MAX_BUCKET_MIB);
    char path[4096];
    if (sm_device_find(name_or_path, path, sizeof path, st) || sm_device_load(path, v, st) ||
        sm_device_choose_collective(v, opt->collective, opt->algorithms, opt->protocols, collective,
                                    st))
        return -1;
    if (bucket_bytes)
        *bucket_bytes = (opt->bucket_mib > 0 ? opt->bucket_mib : SM_DEFAULT_BUCKET_MIB) * 1048576.0;
    return 0;
}

const char *sm_device_restriction(const sm_device *v, sm_collective collective, char *buf,
                                  size_t len)
{
    char restriction[160] = "";
    if (v->nccl_algorithms || v->nccl_protocols)
        snprintf(restriction, sizeof restriction, " (NCCL_ALGO=%.63s, NCCL_PROTO=%.63s)",
                 v->nccl_algo, v->nccl_proto);
    snprintf(buf, len, "%s%s", collective == SM_COLLECTIVE_NCCL ? restriction : "",
             collective == SM_COLLECTIVE_NCCL && v->generation == SM_GPU_UNKNOWN
                 ? " without NCCL's per-generation caps (no architecture or tensor_cores in "
                   "the description)"
                 : "");
    return buf;
}

int sm_device_check_allreduce(const sm_device *v, double seconds, int nodes, int gpus_per_node,
                              sm_status *st)
{
    if (isfinite(seconds))
        return 0;
    return sm_fail(st,
                   "%s: no algorithm of %s on protocol %s runs on %d node%s of %d devices "
                   "(NVLS runs inside one node, NVLSTree across nodes, both on Simple with "
                   "two devices a node and nvls_efficiency in %s)",
                   v->name, v->nccl_algo, v->nccl_proto, nodes, nodes == 1 ? "" : "s",
                   gpus_per_node, v->path);
}

int sm_device_check_layout(const sm_device *v, int gpus_per_node, sm_status *st)
{
    if (gpus_per_node <= v->max_devices_per_node)
        return 0;
    if (v->max_devices_per_node > v->devices_per_node)
        return sm_fail(st,
                       "%s: a node holds at most %d devices, not %d (max_devices_per_node in %s)",
                       v->name, v->max_devices_per_node, gpus_per_node, v->path);
    return sm_fail(st, "%s: a node has %d device%s, not %d (devices_per_node in %s)", v->name,
                   v->devices_per_node, v->devices_per_node == 1 ? "" : "s", gpus_per_node,
                   v->path);
}

sm_ring_config sm_device_ring(const sm_device *v, double bytes, double bucket_bytes,
                              double max_buckets, int nodes, int gpus_per_node,
                              sm_collective collective)
{
    /* G rings cross the network at once, each on 1/G of the data, sharing the node's ports;
     * NCCL has a channel for each port they use */
    int g = gpus_per_node, ports = v->inter_ports < g ? v->inter_ports : g;
    sm_link inter = v->inter;
    inter.bandwidth *= (double)ports / g;
    sm_nccl_system system = {v->nvls_efficiency, v->generation, v->host, ports};
    return (sm_ring_config){bytes,
                            bucket_bytes,
                            nodes,
                            g,
                            v->intra,
                            inter,
                            collective,
                            system,
                            v->nccl_algorithms,
                            v->nccl_protocols,
                            max_buckets};
}

int sm_device_find(const char *name_or_path, char *path, size_t len, sm_status *st)
{
    if (!name_or_path || !path)
        return sm_null_arg(st, __func__, !name_or_path ? "name_or_path" : "path");
    return sm_data_find("device", "configs/devices", name_or_path, NULL, path, len, st);
}
