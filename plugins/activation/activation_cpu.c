/*
 * CPU kernels of the element-wise activations (kernels.h, struct sm_cpu_kernels), built with the
 * same SM_ACTIVATION_<TYPE> definition as activation.c. Each type is a pair of functions: its
 * value f(x), and its derivative f'(x) given x and y = f(x) (whichever is cheaper). At the kinks
 * the derivative is PyTorch's choice (relu: 0 at 0). Written as selects that GCC turns into
 * vector max, min and blend instructions at -O3 (fmaxf would be a libm call, for its NaN rule),
 * so that no branch on the sign of the data mispredicts.
 */
#include <math.h>

#include "cpu_util.h"

#if defined(SM_ACTIVATION_RELU)
static inline float act(float x) { return x > 0 ? x : 0.0f; }
static inline float grad(float x, float y)
{
    (void)y;
    return (float)(x > 0);
}
#elif defined(SM_ACTIVATION_RELU6)
static inline float clamp(float x, float lo, float hi)
{
    x = x > lo ? x : lo;
    return x < hi ? x : hi;
}
static inline float act(float x) { return clamp(x, 0.0f, 6.0f); }
static inline float grad(float x, float y)
{
    (void)y;
    return (float)(x > 0) * (float)(x < 6);
}
#elif defined(SM_ACTIVATION_HARDSIGMOID)
static inline float clamp(float x, float lo, float hi)
{
    x = x > lo ? x : lo;
    return x < hi ? x : hi;
}
static inline float act(float x) { return clamp(x / 6 + 0.5f, 0.0f, 1.0f); }
static inline float grad(float x, float y)
{
    (void)y;
    return (float)(x > -3) * (float)(x < 3) * (1.0f / 6);
}
#elif defined(SM_ACTIVATION_HARDSWISH)
static inline float clamp(float x, float lo, float hi)
{
    x = x > lo ? x : lo;
    return x < hi ? x : hi;
}
static inline float act(float x) { return x * clamp(x + 3, 0.0f, 6.0f) / 6; }
static inline float grad(float x, float y)
{
    (void)y;
    float mid = x / 3 + 0.5f;
    return x < -3 ? 0.0f : x <= 3 ? mid : 1.0f;
}
#elif defined(SM_ACTIVATION_SIGMOID)
static inline float act(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline float grad(float x, float y)
{
    (void)x;
    return y * (1 - y);
}
#elif defined(SM_ACTIVATION_SILU)
static inline float act(float x) { return x / (1.0f + expf(-x)); }
static inline float grad(float x, float y)
{
    (void)y;
    float s = 1.0f / (1.0f + expf(-x));
    return s * (1 + x * (1 - s));
}
#elif defined(SM_ACTIVATION_TANH)
static inline float act(float x) { return tanhf(x); }
static inline float grad(float x, float y)
{
    (void)x;
    return 1 - y * y;
}
#elif defined(SM_ACTIVATION_GELU)
/* nn.GELU's exact form: x Phi(x), Phi the standard normal distribution function. */
static inline float act(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678f)); }
static inline float grad(float x, float y)
{
    (void)y;
    return 0.5f * (1.0f + erff(x * 0.70710678f)) + x * 0.39894228f * expf(-0.5f * x * x);
}
#else
#error "build activation_cpu.c with one SM_ACTIVATION_<TYPE> definition"
#endif

static int activation_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const float *restrict x = l->in[0].data;
    float *restrict y = l->out->data;
    int64_t n = sm_tensor_elems(l->out);
    for (int64_t i = 0; i < n; i++)
        y[i] = act(x[i]);
    return 0;
}

static int activation_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const float *restrict x = l->in[0].data, *restrict y = l->out->data,
                          *restrict dy = l->dout->data;
    float *restrict dx = l->din[0].data;
    int64_t n = sm_tensor_elems(l->out);
    if (dx)
        for (int64_t i = 0; i < n; i++)
            dx[i] += dy[i] * grad(x[i], y[i]);
    return 0;
}

const struct sm_cpu_kernels activation_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = activation_forward,
    .backward = activation_backward,
};

SM_DEFINE_CPU_KERNELS(activation_cpu_kernels)
