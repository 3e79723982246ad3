/*
 * The kernels a convolution's bias adds in eager PyTorch's training (plugin.h, ABI 5): cuDNN's
 * convolution leaves the bias to a kernel of its own and sums its gradient in another
 * (aten/src/ATen/native/Convolution.cpp), except a depthwise one at fp32 (conv_depthwise2d/3d),
 * which adds it inside; a transposed convolution always takes both. Shared by conv1d, conv2d,
 * conv3d and conv_transpose2d.
 */
#ifndef SCALEMETER_PLUGINS_CONV_BIAS_KERNELS_H
#define SCALEMETER_PLUGINS_CONV_BIAS_KERNELS_H

#include <scalemeter/plugin.h>

static inline void conv_bias_kernels(int bias, int transposed, int64_t groups, int64_t in_channels,
                                     sm_layer_metrics *m)
{
    if (!bias)
        return;
    int depthwise = !transposed && groups > 1 && groups == in_channels;
    m->kernels_fwd = depthwise ? 1 : 2;
    m->kernels_bwd = 2;
}

#endif /* SCALEMETER_PLUGINS_CONV_BIAS_KERNELS_H */
