/* The two layer types the zoo brought: chunk (ShuffleNetV2's channel split) and layer_scale
 * (ConvNeXt's per-channel scale), against torch.chunk's and nn.Parameter's counts by hand. */
#include <string.h>

#include "check.h"
#include "net_file.h"

/* torch.chunk(x, 2, dim=1) of 5 channels gives 3 and 2 (pieces of ceil(5 / 2)); chunk 3 of 7
 * along the width (dim 3) gives 3, 3, 1; 2 channels in 4 chunks give 2 pieces of 1, so piece 2
 * does not exist and is refused, as are an index >= chunks and an axis out of range. */
static void chunk(const sm_registry *reg)
{
    sm_status st;
    sm_network *net = net_load(reg,
                               "[network]\ninput = 5x4x7\n[layers]\n"
                               "a = chunk chunks=2 index=0\n"
                               "b = chunk chunks=2 index=1 from=@input\n"
                               "w = chunk chunks=3 index=2 axis=-1 from=@input\n"
                               "cat = concat from=a,b\n",
                               0, &st);
    CHECK(net != NULL);
    if (!net) {
        fprintf(stderr, "%s\n", st.msg);
        return;
    }
    const sm_layer *a = sm_network_layer(net, "a"), *b = sm_network_layer(net, "b"),
                   *w = sm_network_layer(net, "w");
    const sm_layer *cat = sm_network_layer(net, "cat");
    CHECK(a && b && w && cat);
    if (a && b && w && cat) {
        CHECK_EQ(a->out.dim[0], 3);
        CHECK_EQ(b->out.dim[0], 2);
        CHECK_EQ(b->out.dim[2], 7);
        CHECK_EQ(w->out.dim[0], 5);
        CHECK_EQ(w->out.dim[2], 1);
        CHECK_EQ(cat->out.dim[0], 5);
        CHECK_EQ(a->m.flops, 0);
        CHECK_EQ(a->m.weights, 0);
        CHECK_EQ(a->m.bytes, 0); /* a view */
    }
    sm_network_free(net);

    CHECK(net_load(reg, "[network]\ninput = 2x4x4\n[layers]\nc = chunk chunks=4 index=2\n", 0,
                   &st) == NULL);
    CHECK_CONTAINS(st.msg, "piece 2 of 4 is empty");
    CHECK_CONTAINS(st.msg, ":4");
    CHECK(net_load(reg, "[network]\ninput = 8x4x4\n[layers]\nc = chunk chunks=2 index=2\n", 0,
                   &st) == NULL);
    CHECK_CONTAINS(st.msg, "index 2 must be below chunks 2");
    CHECK(net_load(reg, "[network]\ninput = 8x4x4\n[layers]\nc = chunk chunks=2 index=0 axis=3\n",
                   0, &st) == NULL);
    CHECK_CONTAINS(st.msg, "axis 3 out of range");
    CHECK(net_load(reg, "[network]\ninput = 8x4x4\n[layers]\nc = chunk index=0\n", 0, &st) == NULL);
    CHECK_CONTAINS(st.msg, "chunks");
}

/* ConvNeXt-T's first stage: layer_scale = nn.Parameter of shape 96 x 1 x 1 on 96 x 56 x 56:
 * 96 weights in 1 tensor, 96 * 56 * 56 = 301,056 multiplies, no MACs. On a sequence 197 x 768
 * with axis=-1 (a scale per embedding feature): 768 weights, 151,296 multiplies. */
static void layer_scale(const sm_registry *reg)
{
    sm_status st;
    sm_network *net =
        net_load(reg, "[network]\ninput = 96x56x56\n[layers]\ns = layer_scale\n", 0, &st);
    CHECK(net != NULL);
    if (net) {
        sm_metrics m;
        CHECK_EQ(sm_network_metrics(net, 1, &m, &st), 0);
        CHECK_EQ(m.weights, 96);
        CHECK_EQ(m.param_tensors, 1);
        CHECK_EQ(m.layers, 1);
        CHECK_EQ(m.flops, 301056);
        CHECK_EQ(m.macs, 0);
        CHECK_EQ(m.inputs, 0); /* not a convolution: no part of ConvMeter's I and O */
        CHECK_EQ(net->layers[0].out.dim[0], 96);
        CHECK_EQ(net->layers[0].out.dim[2], 56);
        sm_network_free(net);
    }
    net = net_load(reg, "[network]\ninput = 197x768\n[layers]\ns = layer_scale axis=-1\n", 0, &st);
    CHECK(net != NULL);
    if (net) {
        sm_metrics m;
        CHECK_EQ(sm_network_metrics(net, 1, &m, &st), 0);
        CHECK_EQ(m.weights, 768);
        CHECK_EQ(m.flops, 151296);
        sm_network_free(net);
    }
    CHECK(net_load(reg, "[network]\ninput = 96x56x56\n[layers]\ns = layer_scale axis=3\n", 0,
                   &st) == NULL);
    CHECK_CONTAINS(st.msg, "axis 3 out of range for input 96x56x56");
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    chunk(reg);
    layer_scale(reg);
    sm_registry_free(reg);
    return check_summary();
}
