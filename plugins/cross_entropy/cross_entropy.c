/*
 * cross_entropy: the language-model loss, F.cross_entropy(logits.float(), labels) as Hugging
 * Face's LlamaForCausalLM and torchtitan's train step compute it on the LM head's output: a
 * log-softmax over the last axis (V classes) of each row, then the negative log-likelihood of
 * each row's label. The per-sample input is S x V (or V); the output is one loss per row
 * (reduction='none': S, or 1), whose mean the framework takes. upcast=true (the default, as
 * both do) computes in fp32 whatever the training precision.
 *
 *   flops     = 3 per element (exp, sum, subtracting the row's log-sum: the softmax plugin's
 *               count) + 1 per row (the label's log-probability, negated)
 *   bwd_flops = 2 per element (dx = softmax(x) - onehot(label): an exp and a subtraction)
 *   bytes     = 4 (3 per element + 1 per row): logits read, log-probabilities written and read
 *               by the NLL, the losses written (at fp32 counts, as every plugin's)
 *   upcast_bytes = 12 per element + 10 per row with upcast (plugin.h ABI 7): at 16-bit logits
 *               the cast reads 2 and writes 4, the log-softmax and the NLL read and write fp32
 *               (4 + 2 more), and the int64 labels and fp32 losses do not halve. Measured with
 *               tools/torch_eager_bytes.py on the module of cases.ini's first case in bf16
 *               (test_conformance_torch.py: 210 per sample of 3 x 5).
 *
 * Inference computes no loss: its one forward kernel is of training alone (kernels_train_only).
 *
 * No kernels: it declares SM_TRAIT_LOSS (plugin ABI 17), and the executors bench and calibrate
 * run compute this very loss themselves on its input (calibrate/executor_cpu.c's
 * sm_executor_loss and the GPU executor's: a softmax cross-entropy of each row against seeded
 * labels, the mean over rows, and the logits' gradient), so a network that ends in it runs
 * without kernels for it, and its time is in every step measured.
 *
 * What training keeps (PyTorch's derivatives.yaml): log_softmax keeps its output, nll_loss
 * the log-probabilities and the labels; the logits themselves are not kept (torchtitan frees
 * them, `del pred`, before the backward pass). With upcast the log-probabilities are fp32:
 * 4 bytes per element whatever the activations' precision. Its backward pass allocates, beside
 * them, nll_loss's gradient of the log-probabilities and log_softmax's of the logits, dense and
 * fp32 with upcast: 8 bytes per element, which for Llama 3's 128256 classes is the largest
 * transient tensor of a training step. Without upcast the log-probabilities are kept at the
 * activations' precision, and the gradients (then at that precision too) are not declared.
 */
#include <string.h>

#include <scalemeter/plugin.h>

typedef struct ce_params {
    int upcast;
} ce_params;

static void ce_parse(void *params, sm_args *args)
{
    ce_params *p = params;
    p->upcast = sm_arg_bool(args, "upcast", 1);
}

static int ce_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)params, (void)n_in;
    char s[64];
    if (in->ndim > 2 || in->dim[in->ndim - 1] < 2) {
        sm_error_set(err, "cross_entropy takes logits S x V or V of at least 2 classes, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->ndim = 1;
    out->dim[0] = in->ndim == 2 ? in->dim[0] : 1;
    return 0;
}

static int ce_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                      sm_layer_metrics *m, sm_error *err)
{
    (void)n_in, (void)err;
    const ce_params *p = params;
    int64_t n = sm_shape_elems(in), rows = sm_shape_elems(out);
    m->flops = sm_add(sm_mul(3, n), rows);
    m->bwd_flops = sm_mul(2, n);
    m->bytes = sm_mul(4, sm_add(sm_mul(3, n), rows));
    if (p->upcast)
        m->upcast_bytes = sm_add(sm_mul(12, n), sm_mul(10, rows));
    /* the loss of training: inference (serving, generation) computes none, so a network that
     * ends in it takes no inference time for it, as for a dropout */
    m->kernels_fwd = m->kernels_bwd = 1;
    m->kernels_train_only = 1;
    return 0;
}

static int ce_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                    sm_layer_saved *s, sm_error *err)
{
    const ce_params *p = params;
    (void)n_in, (void)out, (void)err;
    int64_t n = sm_shape_elems(in);
    if (p->upcast) {
        s->extra_bytes = sm_mul(4, n);
        s->backward_bytes = sm_mul(8, n);
    } else {
        s->extra_elems = n;
    }
    return 0;
}

static const sm_layer_type cross_entropy_type = {
    SM_LAYER_TYPE_INIT,
    .name = "cross_entropy",
    .summary = "the training loss over logits (F.cross_entropy, reduction='none'), which the "
               "executors compute: upcast",
    .params_size = sizeof(ce_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = ce_parse,
    .infer = ce_infer,
    .metrics = ce_metrics,
    .saved = ce_saved,
    .traits = SM_TRAIT_LOSS,
};

SM_DEFINE_PLUGIN(cross_entropy_type)
