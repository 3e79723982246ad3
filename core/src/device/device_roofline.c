/* What the device model knows of a layer from its plugin's declarations (plugin.h: traits,
 * matmul_flops): whether its FLOPs run on tensor cores, the layout transposes cuDNN adds around
 * a convolution at fp16/bf16, and whether a fusing framework runs it inside a neighbour's
 * kernel. The predictor and fit --device-out both price layers by these. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_file.h"
#include "network/autocast.h"
#include "network/network_internal.h"
#include "network/scores.h"

static int has_trait(const sm_layer *l, unsigned traits) { return (l->type->traits & traits) != 0; }

/* A layer whose FLOPs are matrix products, all or in part (the plugin's matmul_flops). */
int sm_layer_is_matmul(const sm_layer *l) { return l->m.matmul_flops > 0; }

/* A dropout in training over `masks` elements a sample, for one pass of the whole batch, the
 * same in either pass: forward, native_dropout reads each element and writes it and its mask
 * (dropout_mask_bytes); backward, it reads the gradient and the mask and writes the gradient.
 * A kernel of its own; at inference it is the identity and moves nothing (which is why a
 * dropout layer declares no bytes). elem: bytes of an element at the pass's precision. */
static double dropout_bytes(const sm_device *v, int64_t masks, int64_t batch, double elem)
{
    return masks > 0 ? (double)batch * (double)masks * (2 * elem + v->mask_bytes) : 0;
}

/* Bytes more per score that an eager softmax computed in fp32 moves at 16-bit activations, in
 * one pass (scores.h's form; tools/torch_rope_bytes.py --softmax measures them): the casts and
 * the fp32 softmax between them, or at fp16 Hugging Face's one kernel reading fp16 and writing
 * fp32 (PyTorch's half_to_float) and the cast back. */
static double softmax_upcast_per_score(const sm_device *v, const sm_layer *l, sm_precision p,
                                       int backward)
{
    int form = sm_softmax_form(&l->m, v->autocast_casts > 0);
    if (!sm_precision_is_half(p) || form == SM_SOFTMAX_NATIVE)
        return 0;
    int in_one = sm_softmax_in_one_kernel(form, p == SM_FP16);
    return backward ? (in_one ? 10 : 18) : (in_one ? 8 : 16);
}

/* Bytes/s at which the SMs stream a batch norm's pass where the framework's kernel is bound by
 * them: its bytes per SM per clock at the part's light clock (sm_device_light_clock). PyTorch
 * runs cuDNN's kernels but at bf16, which cuDNN's batch norm does not take (ATen's
 * Normalization.cpp, _select_batch_norm_backend), where it runs its own; they are bound by
 * their reductions and their parallelism, not the DRAM: on an H200 at 0.1 to 0.7 of the rate
 * the same runs' ReLUs streamed at (docs/ops-h200.md). In training both reduce a channel in a
 * block of their own (cuDNN's bn_fw_tr_1C11 and bn_bw_1C11, PyTorch's
 * batch_norm_collect_statistics), so a layer of C channels keeps min(C, SMs) SMs busy: the
 * H200's training batch norms streamed in proportion to C up to its 132 SMs, 16 channels at an
 * eighth of 128's rate (ops-h200.md, "What the framework keys take"). At inference every SM
 * streams. 0: bound by the DRAM alone. */
static double batchnorm_sm_stream(const sm_device *v, const sm_layer *l, sm_precision p, int train)
{
    const unsigned batch_norm = SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS;
    if ((l->type->traits & batch_norm) != batch_norm || !v->sm_count)
        return 0;
    double per_clock = v->batchnorm_sm_bytes[p == SM_BF16][!train];
    double sms = v->sm_count;
    if (train && l->out.ndim >= 1 && (double)l->out.dim[0] < sms)
        sms = (double)l->out.dim[0];
    /* cuDNN's kernels take an element a clock whatever its width: in training fp16 tensors
     * (fp32 parameters) ran on an A100 at 1.0 element of a 64-channel batch norm per channel
     * and clock, as fp32 ones on the H200 (xwang233/code-snippet, batchnorm3d-channels-last,
     * cuDNN 8.2: 184 GB/s of fp16 a pass); at inference an H100's fp16 batch norms (cuDNN
     * 9.19) took 0.89-0.96 of fp32's time an element, 1.8 times the price at fp32's bytes a
     * clock (configs/calibrations/h100-pytorch-layers/fp16.csv.gz). So the bytes a clock halve
     * with the bytes */
    if (p == SM_FP16)
        per_clock *= 0.5;
    return per_clock * sms * sm_device_light_clock(v);
}

/* SM clocks a second over every SM at the part's light clock (sm_device_light_clock: kernels
 * priced per SM and clock draw too little power to pull the clock below its boost); 0 on a part
 * without SMs and a clock (a CPU), which runs none of them */
static double sm_clocks_per_second(const sm_device *v)
{
    double clock = sm_device_light_clock(v);
    return v->sm_count && clock > 0 ? (double)v->sm_count * clock : 0;
}

double sm_device_dram_stream(const sm_device *v)
{
    return v->memory_bandwidth * v->memory_efficiency;
}

/* The width of a square of n positions, or 0 where n is not one */
static int64_t square_side(int64_t n)
{
    int64_t side = (int64_t)llround(sqrt((double)n));
    return side > 0 && side * side == n ? side : 0;
}

/* 1: cuDNN's depthwise kernels run a depthwise convolution at fp16 on NCHW tensors: ATen's
 * Convolution.cpp (use_cudnn_depthwise, with cuDNN 8.2 and later) hands cuDNN those of 32
 * channels or more, a square filter of 1, 3 or 5 over an input 7 wide or more, of stride 1,
 * and of stride 2 where its workload rule says cuDNN is faster; PyTorch's conv_depthwise2d
 * runs the rest. An H100's fp16 MobileNet v2 ran its stride-1 layers and the stride-2 one of
 * 576 channels in cuDNN's kernels, the other stride-2 ones in PyTorch's, as the rule says. */
static int depthwise_fp16_in_cudnn(const sm_layer *l, int64_t batch)
{
    int64_t channels = l->out.ndim == 3 ? l->out.dim[0] : 0;
    if (channels < 32 || l->m.output_elems % channels || l->m.input_elems % channels)
        return 0;
    int64_t filter = square_side(l->kernel_taps), out_w = l->out.dim[2];
    int64_t in_pos = l->m.input_elems / channels, out_pos = l->m.output_elems / channels;
    int64_t stride = out_pos > 0 && in_pos % out_pos == 0 ? square_side(in_pos / out_pos) : 0;
    int64_t width = out_w * stride;
    if ((filter != 1 && filter != 3 && filter != 5) || width < 7)
        return 0;
    if (stride == 1)
        return 1;
    if (stride != 2)
        return 0;
    if (batch == 1)
        return filter == 1 ? width <= 28 : 1;
    if (filter == 1)
        return batch <= 16 && channels >= 128 && width <= 7;
    return channels >= 512 || (channels >= 256 && width >= 28);
}

/* 1: a depthwise convolution PyTorch runs in its own kernel (conv_depthwise2d), not cuDNN's: it
 * hands cuDNN those on channels-last tensors, the framework's or a permute's (ConvNeXt's
 * blocks), at every precision, and at fp16 those depthwise_fp16_in_cudnn says (ATen's
 * Convolution.cpp, use_cudnn_depthwise) */
static int depthwise_in_pytorch(const sm_device *v, const sm_layer *l, sm_precision p,
                                int64_t batch)
{
    return l->m.group_channels == 1 && !v->channels_last && !l->input_channels_last &&
           !(p == SM_FP16 && depthwise_fp16_in_cudnn(l, batch));
}

/* SM clocks of a direct convolution's pass at one kind's rates (elements, then
 * multiply-accumulates, one after the other); 0 where the kind has neither. */
static double direct_conv_clocks(const double rate[2], double elements, double macs)
{
    return (rate[0] > 0 ? elements / rate[0] : 0) + (rate[1] > 0 ? macs / rate[1] : 0);
}

/* Seconds of one pass of a grouped or depthwise convolution (plugin.h's group_channels) where
 * the framework prices its direct kernels per SM and clock ([framework] depthwise_*,
 * grouped_*): its elements (inputs and outputs of the forward pass) and multiply-accumulates
 * at their rates, one after the other, over every SM at the part's light clock. Neither
 * runs on tensor cores: on an H200, PyTorch's conv_depthwise2d went through 3 x 3 layers at
 * about 1.1 elements per SM and clock forward, 5 x 5 at 0.6 and 7 x 7 at 0.36 whatever the
 * precision, and cuDNN's grouped kernels (ResNeXt-50's 32 groups of 4 to 32 channels) at
 * about an element a clock whatever the group's width (docs/ops-h200.md, "Direct
 * convolutions"); cuDNN's depthwise kernels, a stem (sm_layer_is_stem) alike, each at its own
 * rates (tools/cudnn_depthwise_rates.py). 0: not such a layer, or no rate given. */
static double direct_conv_seconds(const sm_device *v, const sm_layer *l, const sm_metrics *m,
                                  int64_t batch, sm_precision p, int backward)
{
    /* only a convolution declares channels per group (the host refuses it of any other type
     * as the network loads) */
    int64_t per_group = l->m.group_channels;
    double per_second = sm_clocks_per_second(v);
    if (!(per_second > 0))
        return 0;
    int kind, half = sm_precision_is_half(p);
    if (sm_layer_is_stem(l))
        kind = 3;
    else if (per_group == 1)
        kind = depthwise_in_pytorch(v, l, p, batch) ? 0 : half ? 4 : p == SM_TF32 ? 5 : 6;
    else if (per_group > 0)
        kind = half ? 2 : 1;
    else
        return 0;
    double elements = (double)batch * ((double)l->m.input_elems + (double)l->m.output_elems);
    double macs = (double)m->macs * (backward ? 2 : 1);
    double clocks = direct_conv_clocks(v->direct_conv_rate[kind][backward != 0], elements, macs);
    /* TF32 allows cuDNN's tensor-core kernels, it does not force them: where its fp32
     * kernels are priced faster (the H200's 7 x 7 ones forward, within 1% of each other),
     * cuDNN's choice is those */
    if (kind == 5) {
        double fp32 = direct_conv_clocks(v->direct_conv_rate[6][backward != 0], elements, macs);
        clocks = fp32 > 0 && fp32 < clocks ? fp32 : clocks;
    }
    return clocks / per_second;
}

int sm_layer_is_stem(const sm_layer *l)
{
    return l->m.group_channels == 0 && l->conv_channels > 0 && l->conv_channels <= 4;
}

/* Seconds of the kernels eager PyTorch runs for a convolution's bias (sm_layer's conv_bias)
 * where the framework prices them per SM and clock ([framework] conv_bias_*): forward an
 * addition over every output element, broadcast along the channels (ATen's add_, not
 * vectorised across a broadcast), backward a sum of the output's gradient per channel. Both
 * took the same time at fp32 and bf16 on an H100 (an element a clock per SM, whatever its
 * bytes), kernels of their own after the convolution's. 0: no bias, no rate, a fusing
 * framework, which adds it in the convolution's epilogue, or the forward pass of PyTorch's own
 * depthwise kernel, which adds it inside (the plugins count one kernel there). */
static double conv_bias_seconds(const sm_device *v, const sm_layer *l, int64_t batch,
                                sm_precision p, int backward)
{
    double rate = v->conv_bias_rate[backward != 0], per_second = sm_clocks_per_second(v);
    if (!l->conv_bias || !(rate > 0) || !(per_second > 0) || v->fuse_epilogues || v->fuse_bn_relu)
        return 0;
    if (!backward && depthwise_in_pytorch(v, l, p, batch))
        return 0;
    return (double)batch * (double)l->m.output_elems / (rate * per_second);
}

/* Seconds of the reduction kernels eager PyTorch runs in the backward pass for a layer's bias
 * gradients (plugin.h's bias_grad_elems and bias_grad_sums: an expanded bias's gradient, its
 * output's gradient summed over the rows) where the framework prices them ([framework]
 * bias_grad_*): each sum's fixed clocks (its partial sums' pass and the final one) and their
 * elements at the SMs' pace, which an H200 kept under half its DRAM's rate
 * (tools/bias_grad_rates.py), or their read at the DRAM's rate where that is slower; half:
 * 16-bit gradients. 0: forward, no such elements, no rate, or a framework that fuses
 * epilogues (cuBLASLt sums them in the weight gradient's). */
static double bias_grad_seconds(const sm_device *v, const sm_layer *l, int64_t batch, int backward,
                                int half)
{
    double rate = v->bias_grad_rate[half && v->bias_grad_rate[1] > 0];
    double per_second = sm_clocks_per_second(v);
    if (!backward || l->m.bias_grad_elems <= 0 || !(rate > 0) || !(per_second > 0) ||
        v->fuse_epilogues)
        return 0;
    double elements = (double)batch * (double)l->m.bias_grad_elems;
    double dram = sm_device_dram_stream(v);
    double read = dram > 0 ? elements * (half ? 2 : 4) / dram : 0;
    double sums = (double)l->m.bias_grad_sums * v->bias_grad_sum_clocks / per_second;
    return sums + fmax(elements / (rate * per_second), read);
}

/* Seconds a dense convolution's kernels take beyond their arithmetic ([framework]
 * conv_pass_us): each runs its K loop (input channels x taps) tile by tile, and the
 * pipeline's fill and drain cost the same whatever the tiles; a large convolution hides them
 * over many waves of tiles, a small one's single wave does not. On an H100 at bf16, dense
 * 3 x 3 ones of 2^24 to 2^28 multiply-accumulates ran 13 to 27 us where their arithmetic at
 * one efficiency fitted over every convolution priced 7 to 15, and the largest (VGG's) 0.7
 * of their price (docs/devices.md, tools/conv_pass.py). Forward one kernel, backward two
 * (the data and the weight gradients). 0: a stem (a direct kernel), a grouped or depthwise
 * convolution, a layer of another kind, or no key. */
static double conv_pass_seconds(const sm_device *v, const sm_layer *l, int backward)
{
    if (!(v->conv_pass > 0) || !has_trait(l, SM_TRAIT_CONVOLUTION) || l->m.group_channels != 0 ||
        sm_layer_is_stem(l))
        return 0;
    return v->conv_pass * (backward ? 2 : 1);
}

/* Seconds of one pass of a pooling (plugin.h's SM_TRAIT_POOLING) where the framework prices
 * its kernels per SM and clock ([framework] pooling_*): its input elements at the pass's rate
 * over every SM at the part's light clock. On an H200 PyTorch's max and average pooling
 * and its global means went through 1.2 to 1.8 input elements per SM and clock forward
 * whatever the precision, moving their bytes at a fifth of the DRAM's rate; a windowed
 * pooling's backward pass (a zeroing and a scatter, or a spread of each window) at 0.2 to 0.4
 * (docs/ops-h200.md, "Direct convolutions"). A global pooling's backward pass (one element a
 * channel: a mean's, PyTorch's MeanBackward) is a broadcast the DRAM bounds. 0: not such a
 * layer, no rate given, or a part without SMs and a clock. */
static double pooling_seconds(const sm_device *v, const sm_layer *l, int64_t batch, int backward)
{
    double rate = v->pooling_rate[backward != 0], per_second = sm_clocks_per_second(v);
    if (!has_trait(l, SM_TRAIT_POOLING) || !(rate > 0) || !(per_second > 0))
        return 0;
    if (backward && l->out.ndim >= 1 && l->m.output_elems <= l->out.dim[0])
        return 0;
    return (double)batch * (double)l->m.input_elems / (rate * per_second);
}

/* Seconds of one pass of a layer norm (plugin.h's norm_rows) where the framework prices its
 * kernels per SM and clock ([framework] rownorm_*): its rows at their clocks each and its input
 * elements at their rate, one after the other, over every SM at the part's light clock.
 * PyTorch's layer norm runs a block of 128 threads per row, forward and for the input's
 * gradient, so at a few hundred elements a row each row's reduction, not the DRAM, bounds it:
 * ConvNeXt-T's, 96 channels a position, took 1.6 ns a row on an H100 and on an H200 alike, a
 * fifth of the DRAM's rate (tools/rownorm_rates.py). A norm of 16-bit input and output (half:
 * a model cast to fp16, not autocast's fp32 norm) streams its elements at their bytes, its
 * rows' reductions unchanged: BERT's on the H200 (rownorm_half_*). 0: no rows declared, no
 * rate given, or a part without SMs and a clock. */
static double rownorm_seconds(const sm_device *v, const sm_layer *l, int64_t batch, int backward,
                              int half)
{
    double per_row = v->rownorm_row_clocks[backward != 0];
    double per_clock = v->rownorm_elements[backward != 0], per_second = sm_clocks_per_second(v);
    if (half && v->rownorm_half_elements[backward != 0] > 0)
        per_clock = v->rownorm_half_elements[backward != 0];
    /* a compiler's norm kernels (inductor's persistent reductions) stream at the DRAM's rate */
    if (l->m.norm_rows <= 0 || !(per_second > 0) || (!(per_row > 0) && !(per_clock > 0)) ||
        v->fuse_pointwise)
        return 0;
    double clocks = (double)batch * (double)l->m.norm_rows * per_row +
                    (per_clock > 0 ? (double)batch * (double)l->m.input_elems / per_clock : 0);
    return clocks / per_second;
}

/* Seconds eager PyTorch's TensorIterator takes over elements output elements in its
 * non-vectorized loop (an operand broadcast, a strided copy), which the SMs' issue paces at
 * [framework] broadcast_elements_per_sm_clock on every SM at the part's light clock,
 * whatever the elements' bytes; 0 without the rate, or on a part without SMs and a clock. */
static double loop_seconds(const sm_device *v, double elements)
{
    if (v->fuse_pointwise) /* a compiler's kernels vectorize broadcasts and strided copies */
        return 0;
    double per_second = sm_clocks_per_second(v);
    return v->broadcast_rate > 0 && per_second > 0 ? elements / (v->broadcast_rate * per_second)
                                                   : 0;
}

/* Seconds of an element-wise layer's forward pass over a broadcast input (sm_layer's
 * broadcast): its output elements in the loop. An H200 ran the squeeze-and-excitation products
 * of EfficientNet-B0, MobileNet v3 and RegNetY at 1.4-1.6 output elements a SM clock at fp16,
 * twice their bytes at the DRAM's rate (tools/broadcast_rates.py). Its backward pass, a
 * broadcast product and a sum over the positions of the scale's gradient beside a plain
 * product, is left to the DRAM. 0: not such a layer, or no loop's pace. */
static double broadcast_seconds(const sm_device *v, const sm_layer *l, int64_t batch, int backward)
{
    if (backward || !l->broadcast)
        return 0;
    return loop_seconds(v, (double)batch * (double)l->m.output_elems);
}

/* Bytes at the DRAM's stream that a kernel of the loop costs: one pass over the scores reading
 * a broadcast operand (plugin.h's scores_broadcast_passes; an H200 ran BERT's mask addition at
 * 1.4 an SM clock at fp16 and 1.15 at fp32, 0.3 and 0.5 of its DRAM's rate,
 * docs/ops-bert-h200.md), or a copy of a non-contiguous view (copy_elems_*): its elements at
 * the loop's pace, or its read and write at the DRAM's rate, whichever is slower. once: bytes
 * of one read or write of every element; elem: bytes of one. */
static double loop_pass_bytes(const sm_device *v, double once, double elem)
{
    double dram = sm_device_dram_stream(v), bytes = 2 * once;
    if (!(dram > 0) || !(elem > 0))
        return bytes;
    return fmax(bytes, loop_seconds(v, once / elem) * dram);
}

int sm_layer_fp8(const sm_device *v, const sm_layer *l)
{
    return v->fp8_products && v->peak_fp8 > 0 && l->m.linear_products > 0 && !l->output_projection;
}

/* The casts of a float8 recipe as torchao models its own (torchao/float8/roofline_utils.py,
 * dynamic tensorwise scaling, Float8Linear's default): each tensor cast takes the amax of its
 * 16-bit elements (a read, and a second stage over the partial maxima: a small kernel) and
 * then reads them again and writes them in fp8 in the two layouts the products take (2 + 2 x 1
 * bytes). Forward, each product's input and its weight; backward, its output's gradient (the
 * inputs and weights cast forward serve the gradients' products). A compiler computes an
 * activation's amax in the kernel that produces it (torchao's fuse_with_prev); a weight's
 * amax reads it. */
int sm_layer_fp8_kernels(const sm_device *v, const sm_layer *l, int backward)
{
    if (!sm_layer_fp8(v, l))
        return 0;
    int activation = v->fuse_pointwise ? 2 : 3, weight = 3;
    return l->m.linear_products * (backward ? activation : activation + weight);
}

static double fp8_cast_bytes(const sm_device *v, const sm_layer *l, int64_t batch, int backward)
{
    double activation = v->fuse_pointwise ? 4 : 6, weight = 6;
    if (backward)
        return activation * (double)batch * (double)l->m.linear_output_elems;
    return activation * (double)batch * (double)l->m.linear_input_elems +
           weight * (double)l->m.weights;
}

sm_layer_work sm_layer_pass_work(const sm_device *v, const sm_layer *l, const sm_metrics *m,
                                 int64_t batch, sm_precision p, int backward, int train)
{
    double share = m->flops > 0 ? (double)m->matmul_flops / (double)m->flops : 0;
    double flops = (double)(backward ? m->bwd_flops : m->flops);
    double half =
        sm_precision_is_half(p) && !sm_layer_autocast_fp32(l, v->autocast_casts > 0) ? 0.5 : 1.0;
    double scores = (double)m->scores_bytes * half;
    int fused = sm_scores_fused(l, v->fused_attention, !v->fused_attention_dropout, train);
    double redo = fused && backward ? (double)m->scores_flops : 0;
    double serial = (double)m->serial_bytes * half;
    /* a layer computing in fp32 moves its casts and fp32 temporaries at 16 bits too: kernels
     * of their own, beside no arithmetic */
    double upcast = half < 1 && !v->fuse_pointwise ? (double)m->upcast_bytes : 0;
    sm_layer_work w = {.matmul_flops = share * flops + redo,
                       .vector_flops = (1 - share) * flops,
                       .bytes = (double)m->bytes * half - scores - serial,
                       .serial_bytes = serial + upcast,
                       .sm_stream = batchnorm_sm_stream(v, l, p, train)};
    /* an activation, a residual addition or a product of same-shaped inputs: plain
     * element-wise kernels, streaming at the part's stream_efficiency (a broadcast one runs
     * TensorIterator's non-vectorized loop, which the SMs bound: sm_seconds) */
    w.elementwise = has_trait(l, SM_TRAIT_ACTIVATION | SM_TRAIT_RESIDUAL) ||
                    (has_trait(l, SM_TRAIT_ELEMENTWISE) && !l->broadcast);
    /* a compiler fuses an element-wise layer's kernels into one that reads its input and
     * writes its output once (GPT-2's composite GELU: 8 kernels of 72 bytes an fp32 element
     * eager, 8 bytes compiled) */
    if (v->fuse_pointwise && has_trait(l, SM_TRAIT_ACTIVATION | SM_TRAIT_RESIDUAL))
        w.bytes = fmin(w.bytes,
                       4.0 * (double)batch * (double)(l->m.input_elems + l->m.output_elems) * half);
    /* one read or one write of every score */
    double once = scores / sm_scores_touches(&l->m);
    if (!fused) {
        /* the softmax's read and write are a kernel of their own, and so are the score
         * product, which writes the scores, and the context product, which reads the
         * probabilities: batched products of head-dimension depth (2 d FLOPs a score, so at
         * most 64 to 128 FLOPs a byte at 16 bits, below every GPU's ridge), which wait on
         * their score matrix, not on the projections' arithmetic beside them */
        w.serial_bytes += 2 * once;
        w.score_bytes = 2 * once;
        w.score_flops = fmin(w.matmul_flops, 2.0 * (double)m->scores_flops);
        w.matmul_flops -= w.score_flops;
    }
    /* a float8 recipe runs the layer's linear products on the fp8 tensor cores (twice the
     * forward FLOPs backward: each product's two gradients); its casts below */
    int fp8 = sm_layer_fp8(v, l);
    if (fp8) {
        double linear = (double)batch * (double)l->m.linear_flops * (backward ? 2 : 1);
        w.fp8_flops = fmin(w.matmul_flops, linear);
        w.matmul_flops -= w.fp8_flops;
    }
    if (has_trait(l, SM_TRAIT_CONVOLUTION)) {
        w.conv_flops = w.matmul_flops;
        w.matmul_flops = 0;
        /* a dense 1 x 1 convolution is a plain matrix product to cuDNN, and each kind's
         * gradients run other kernels than its forward pass (docs/ops-h100-h200.md) */
        int pointwise = l->kernel_taps == 1 && l->m.group_channels == 0;
        w.conv_efficiency = v->conv_kind_efficiency[p][pointwise][backward != 0];
    }
    if (backward) {
        /* each product's two gradients: twice its FLOPs, its score matrix read or written
         * twice */
        double moved = fmin(w.score_flops, w.matmul_flops);
        w.score_flops += moved;
        w.matmul_flops -= moved;
        /* an activation's gradient reads the output's gradient and the input (or output) it
         * kept and writes the input's: three tensors to the forward pass's two (PyTorch's
         * threshold_backward, silu_backward, gelu_backward). A residual sum's gradient is its
         * output's, passed on to each input without a kernel; what it costs is autograd's sum
         * of the two gradients its shortcut's tensor receives (read two, write one: the
         * forward pass's traffic), which an H100's profiles show under the layer that
         * returns the second (ResNet-50's 1 x 1 convolutions) and never as a kernel of the
         * sum's own. The others read and write twice their forward traffic. */
        double again = has_trait(l, SM_TRAIT_RESIDUAL)     ? 1
                       : has_trait(l, SM_TRAIT_ACTIVATION) ? 1.5
                                                           : 2;
        w.bytes *= again;
        w.serial_bytes *= 2;
        w.score_bytes *= 2;
    }
    /* the casts to fp8, kernels of their own between the products, as counted for the pass */
    if (fp8)
        w.serial_bytes += fp8_cast_bytes(v, l, batch, backward);
    if (!fused) {
        /* each pass a kernel of its own, as many in either pass as the plugin declares; those
         * over a broadcast operand (forward only: the mask's gradient is the scores') at the
         * SMs' pace where it is slower than the DRAM's */
        int passes = backward ? l->m.scores_passes_bwd : l->m.scores_passes_fwd;
        int broadcast = backward ? 0 : (int)l->m.scores_broadcast_passes;
        /* compiled, the scaling, the mask and the casts ride in the softmax's one read and
         * write of the scores (inductor fuses them into its kernel) */
        if (v->fuse_pointwise)
            passes = broadcast = 0;
        w.serial_bytes += 2 * (passes - broadcast) * once;
        w.serial_bytes += broadcast * loop_pass_bytes(v, once, 4 * half);
        /* once is 2 bytes a score at 16-bit activations */
        if (!v->fuse_pointwise)
            w.serial_bytes += softmax_upcast_per_score(v, l, p, backward) * once / 2;
        /* the dropout eager attention runs on its probabilities (scores_mask_elems), of a
         * layer that has scores */
        if (train && l->m.scores_bytes > 0)
            w.serial_bytes += dropout_bytes(v, l->saved.scores_mask_elems, batch, 4 * half);
    }
    /* the copies eager code makes of non-contiguous views (plugin.h's copy_elems_*): their
     * read and write leave the pass's streamed bytes for kernels of their own in
     * TensorIterator's loop, at the SMs' pace where that is slower than the DRAM's; an
     * attention layer run as one fused kernel makes none */
    double copies = (double)batch * (double)(backward ? l->m.copy_elems_bwd : l->m.copy_elems_fwd);
    if (copies > 0 && !(fused && l->m.scores_bytes > 0)) {
        double elem = 4 * half, copy_once = copies * elem;
        w.bytes -= fmin(2 * copy_once, w.bytes);
        w.serial_bytes += loop_pass_bytes(v, copy_once, elem);
    }
    /* a dropout over the layer's own activations: the masks it keeps beside its scores' */
    if (train)
        w.serial_bytes +=
            dropout_bytes(v, l->saved.mask_elems - l->saved.scores_mask_elems, batch, 4 * half);
    /* a direct convolution's, a pooling's, a layer norm's or a broadcast's SM time as the rate
     * its bytes stream at: the roofline, the fit and the pass's load then take it as they take
     * a batch norm's */
    double direct =
        direct_conv_seconds(v, l, m, batch, p, backward) + pooling_seconds(v, l, batch, backward) +
        rownorm_seconds(v, l, batch, backward, half < 1) + broadcast_seconds(v, l, batch, backward);
    if (direct > 0 && w.bytes > 0)
        w.sm_stream = w.bytes / direct;
    w.sm_seconds = conv_bias_seconds(v, l, batch, p, backward) + conv_pass_seconds(v, l, backward) +
                   bias_grad_seconds(v, l, batch, backward, half < 1);
    return w;
}

double sm_layer_stream(const sm_device *v, sm_layer_work w)
{
    double dram = w.elementwise && v->stream_efficiency > 0
                      ? v->memory_bandwidth * v->stream_efficiency
                      : sm_device_dram_stream(v);
    return w.sm_stream > 0 && w.sm_stream < dram ? w.sm_stream : dram;
}

double sm_layer_roofline_seconds(const sm_device *v, sm_precision p, sm_layer_work w)
{
    double stream = sm_device_dram_stream(v);
    return fmax(sm_layer_compute_seconds(v, p, w), w.bytes / sm_layer_stream(v, w)) +
           w.serial_bytes / stream + sm_layer_score_seconds(v, p, w) + w.sm_seconds;
}

/* Eager attention's score and context products are as deep as a head (64 to 128): at fp32, 2
 * d FLOPs over 4 bytes a score, where the CUDA cores meet the DRAM. There every multiply-add is
 * an instruction of its own, so the SMs' issue slots stay full and a tile's loads and stores
 * wait for its arithmetic: NeuSight's products timed alone on seven GPUs ran 1.07-1.99 times
 * the larger of the two and 0.69-1.34 times their sum (docs/ops-neusight.md, "The scores'
 * batched products"). On tensor cores one instruction does a tile's step and copies run beside
 * it: an H200's BERT at fp16 and TF32 ran its products nearer the larger
 * (docs/ops-bert-h200.md). A CPU's (no SMs) keep the roofline's. */
int sm_scores_unhidden(const sm_device *v, sm_precision p)
{
    return p == SM_FP32 && v->sm_count > 0;
}

double sm_layer_score_seconds(const sm_device *v, sm_precision p, sm_layer_work w)
{
    if (!(w.score_flops > 0) && !(w.score_bytes > 0))
        return 0;
    double stream = sm_device_dram_stream(v);
    double c = sm_layer_compute_seconds(v, p, (sm_layer_work){.matmul_flops = w.score_flops});
    double m = w.score_bytes / stream;
    return sm_scores_unhidden(v, p) ? c + m : fmax(c, m);
}

double sm_layer_compute_seconds(const sm_device *v, sm_precision p, sm_layer_work w)
{
    sm_precision vec = v->peak[SM_FP32] > 0 ? SM_FP32 : p;
    double t = 0;
    if (w.matmul_flops > 0)
        t += w.matmul_flops / (v->peak[p] * v->efficiency[p]);
    /* fp8 products reach the fraction of their peak the run's 16-bit ones reach of theirs
     * unless the description says (torchao's roofline takes one fraction for both) */
    if (w.fp8_flops > 0)
        t += w.fp8_flops /
             (v->peak_fp8 * (v->fp8_efficiency > 0 ? v->fp8_efficiency : v->efficiency[p]));
    if (w.conv_flops > 0)
        t += w.conv_flops /
             (v->peak[p] * (w.conv_efficiency > 0 ? w.conv_efficiency : v->conv_efficiency[p]));
    if (w.vector_flops > 0)
        t += w.vector_flops / (v->peak[vec] * v->efficiency[vec]);
    return t;
}

int sm_device_transposes_nchw(const sm_device *v)
{
    /* a part without tensor cores (P100's fp16 runs on its FP16x2 lanes) keeps NCHW */
    return !v->channels_last && strcmp(v->tensor_cores, "none") != 0;
}

/* 1: a convolution cuDNN runs on the NCHW tensors themselves, no transposes around it. Where a
 * sample's output has one position, NCHW and NHWC are one layout (squeeze-excitation's 1 x 1
 * convolutions). A dense 1 x 1 convolution of stride 1 is a plain matrix product on NCHW, the
 * channels its depth and the positions its columns; cuDNN 9 runs it so from enough positions
 * a sample (nchw_matmul_1x1_positions): an H100's profiles under cuDNN 9.19 transposed every
 * dense k x k and strided convolution and the 1 x 1 ones over 7 x 7, not those over 28 x 28 and
 * more, and a third of those over 14 x 14 (docs/ops-h100-h200.md). */
static int runs_on_nchw(const sm_device *v, const sm_layer *l)
{
    if (l->out.ndim < 1 || l->out.dim[0] <= 0 || l->conv_channels <= 0)
        return 0;
    int64_t out_positions = l->m.output_elems / l->out.dim[0];
    int64_t in_positions = l->m.input_elems / l->conv_channels;
    if (out_positions == 1 && in_positions == 1)
        return 1;
    return v->nchw_matmul_positions > 0 && l->kernel_taps == 1 && l->m.group_channels == 0 &&
           in_positions == out_positions && out_positions >= v->nchw_matmul_positions;
}

double sm_layer_transpose_bytes(const sm_device *v, const sm_layer *l, const sm_metrics *m,
                                sm_precision p, int backward)
{
    /* PyTorch runs depthwise convolutions in kernels of its own, on NCHW, and a convolution
     * whose input a permute left channels-last in cuDNN's NHWC kernels: an H200's bf16 profiles
     * show no transpose around either (docs/ops-h200.md: MobileNet's, ConvNeXt-T's) */
    if (!sm_device_transposes_nchw(v) || !sm_precision_is_half(p) ||
        !has_trait(l, SM_TRAIT_CONVOLUTION) || l->m.group_channels == 1 || l->input_channels_last)
        return 0;
    /* a stem's kernels run on the SMs' lanes, whose price (stem_*) holds what cuDNN does
     * around them */
    if (sm_layer_is_stem(l) &&
        v->direct_conv_rate[3][backward != 0][0] + v->direct_conv_rate[3][backward != 0][1] > 0)
        return 0;
    if (runs_on_nchw(v, l))
        return 0;
    /* read and write (2) of 2-byte elements; the backward pass's two calls transpose twice;
     * of those, the share cuDNN's heuristics transpose (the rest run on NCHW) */
    return v->nchw_transpose_share * 2.0 * 2.0 * ((double)m->inputs + (double)m->outputs) *
           (backward ? 2 : 1);
}

int sm_transpose_sm_bound(const sm_device *v)
{
    double per_second = sm_clocks_per_second(v);
    /* 4 bytes an element: 2 read, 2 written */
    return v->transpose_sm_elements > 0 && per_second > 0 &&
           4 * v->transpose_sm_elements * per_second < sm_device_dram_stream(v);
}

double sm_transpose_seconds(const sm_device *v, double bytes)
{
    if (sm_transpose_sm_bound(v))
        return bytes / (4 * v->transpose_sm_elements * sm_clocks_per_second(v));
    return bytes / sm_device_dram_stream(v);
}

/* Whether layer i returns its input as it is and launches nothing (nn.Identity, a dropout of
 * p = 0): no kernel between a convolution and what fuses into it. */
static int is_identity(const sm_network *net, int i)
{
    const sm_layer *l = &net->layers[i];
    if (l->n_inputs != 1 || !l->saved.aliases_input || l->m.kernels_fwd || l->m.kernels_bwd)
        return 0;
    const sm_shape *in = sm_input_shape(net, l, 0);
    return in->ndim == l->out.ndim &&
           !memcmp(in->dim, l->out.dim, (size_t)in->ndim * sizeof *in->dim);
}

/* src[j]: the layer whose tensor layer j hands on, past identities; below 0 the input's. */
static int source(const int *src, int j) { return j < 0 ? -1 : src[j]; }

/* A framework that fuses (cuDNN's fused convolutions, as NVIDIA's MLPerf ResNet-50 runs them on
 * one node) computes a batch norm's statistics in the epilogue of the convolution that feeds it
 * and applies it, with the activation after it, in the prologue or epilogue of a neighbouring
 * kernel; an activation rides in the epilogue of the convolution, matrix product or residual
 * addition (BN-add-ReLU) that produces its input. With fuse_bn_relu (the same code across
 * nodes) the norms run as kernels of their own, and the activation after a norm, and an
 * addition of a norm's output with the ReLU after it, ride in them (BN-ReLU and BN-add-ReLU),
 * whatever feeds the norm. With both, each does what it says: a norm a convolution feeds
 * fuses into it as fuse_epilogues says, and one that runs (fed by a concatenation, a pool)
 * takes the activation or addition after it as fuse_bn_relu says.
 * Only the plugins' traits decide. Layers come after their inputs, so one pass in order decides
 * each layer from its input's verdict: a chain of a million activations costs a million steps,
 * not a million squared (or a recursion as deep). */
static int layer_fused(const sm_device *v, const sm_network *net, int i, const int *src,
                       const unsigned char *fused)
{
    const unsigned batch_norm = SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS;
    const sm_layer *l = &net->layers[i];
    int from = l->n_inputs < 1 ? -1 : source(src, l->inputs[0]);
    if (from < 0)
        return 0;
    const sm_layer *in = &net->layers[from];
    int act = has_trait(l, SM_TRAIT_ACTIVATION);
    if (v->fuse_epilogues && l->n_inputs == 1) {
        if ((l->type->traits & batch_norm) == batch_norm)
            return has_trait(in, SM_TRAIT_CONVOLUTION);
        if (act && has_trait(in, SM_TRAIT_RESIDUAL) && !fused[from])
            return SM_FUSED_GRADIENT;
        if (act && (has_trait(in, SM_TRAIT_CONVOLUTION | SM_TRAIT_MATMUL) || fused[from]))
            return SM_FUSED;
    }
    /* a norm that runs as a kernel of its own (with both flags: one no convolution feeds, as
     * DenseNet's after a concatenation) takes the activation after it, and an addition of its
     * output, whatever feeds the norm */
    if (!v->fuse_bn_relu)
        return 0;
    if (has_trait(l, SM_TRAIT_RESIDUAL))
        for (int k = 0; k < l->n_inputs; k++) {
            int s = source(src, l->inputs[k]);
            if (s >= 0 && (net->layers[s].type->traits & batch_norm) == batch_norm && !fused[s])
                return 1;
        }
    return l->n_inputs == 1 && act &&
           (((in->type->traits & batch_norm) == batch_norm && !fused[from]) || fused[from]);
}

int sm_network_fused(const sm_device *v, const sm_network *net, unsigned char *fused)
{
    int *src = malloc(((size_t)net->n_layers + 1) * sizeof *src);
    if (!src)
        return -1;
    for (int i = 0; i < net->n_layers; i++) {
        src[i] = is_identity(net, i) ? source(src, net->layers[i].inputs[0]) : i;
        fused[i] = (unsigned char)layer_fused(v, net, i, src, fused);
    }
    free(src);
    return 0;
}

/* The fusing frameworks (fuse_epilogues, fuse_bn_relu) describe NVIDIA's MLPerf MXNet code,
 * whose batch norm updates no num_batches_tracked and whose convolutions add their bias in
 * cuDNN's epilogue: one kernel per working layer and pass, as before plugins counted them. */
int64_t sm_layer_kernels(const sm_device *v, const sm_metrics *m, int phase)
{
    /* ... but a layer of training alone (a dropout, the loss) runs none at inference there
     * too */
    if (v->fuse_epilogues || v->fuse_bn_relu)
        return phase == 0 && m->kernels_infer <= 0 ? 0 : m->kernels;
    return phase == 0 ? m->kernels_infer : phase == 1 ? m->kernels_fwd : m->kernels_bwd;
}
