/* Shape inference and metrics of whole networks, against counts derived by hand. */
#include <string.h>

#include "check.h"
#include "net_file.h"

/* examples/tiny_resnet.ini, counted by hand at 3x32x32:
 * MACs (conv: out*Ho*Wo*Cin*k*k; linear: in*out)
 *   conv1                16*32*32*3*9   =    442,368
 *   layer1.{0,1}.conv{1,2} 4 * 16*32*32*16*9 = 9,437,184
 *   layer2.0.conv1       32*16*16*16*9  =  1,179,648
 *   layer2.0.conv2       32*16*16*32*9  =  2,359,296
 *   layer2.0.downsample.0 32*16*16*16   =    131,072
 *   fc                   32*10          =        320   -> 13,549,888
 * I (conv inputs):  3072 + 4*16384 + 16384 + 8192 + 16384 = 109,568
 * O (conv outputs): 16384 + 4*16384 + 3*8192              = 106,496
 * W: conv1 432, bn1 32, layer1.x 2*2304+2*32 = 4672 each, layer2.0 4608+9216+512+3*64 = 14,528,
 *    fc 330 -> 432+32+2*4672+14528+330 = 24,666
 * L: 8 convs + 8 batch norms + fc = 17; parameter tensors: 8 + 16 + 2 = 26
 * FLOPs: 2*MACs + fc bias 10 = 27,099,786; batch norm 2/element over 106,496 elements = 212,992;
 *   relu 1/element over 16384 + 4*16384 + 2*8192 = 98,304; adds 2*16384 + 8192 = 40,960;
 *   adaptive average pool: 8192 reads + 32 divides = 8,224 -> 27,460,266 */
static void tiny_resnet(const sm_registry *reg)
{
    sm_status st;
    sm_network *net;
    sm_network_options opt = {0};
    CHECK_EQ(sm_network_load(reg, "examples/tiny_resnet.ini", &opt, &net, &st), 0);
    sm_metrics m;
    CHECK_EQ(sm_network_metrics(net, 1, &m, &st), 0);
    CHECK_EQ(m.macs, 13549888);
    CHECK_EQ(m.inputs, 109568);
    CHECK_EQ(m.outputs, 106496);
    CHECK_EQ(m.weights, 24666);
    CHECK_EQ(m.layers, 17);
    CHECK_EQ(m.param_tensors, 26);
    CHECK_EQ(m.flops, 27460266);
    CHECK_EQ(net->n_layers, 29);
    CHECK_EQ(net->n_blocks, 9); /* conv1 bn1 relu layer1.0 layer1.1 layer2.0 avgpool flatten fc */

    const sm_layer *ds = sm_network_layer(net, "layer2.0.downsample.0");
    CHECK(ds != NULL);
    if (ds) { /* its from=@in is the block's input: layer1.1's output */
        CHECK_EQ(ds->out.ndim, 3);
        CHECK_EQ(ds->out.dim[0], 32);
        CHECK_EQ(ds->out.dim[1], 16);
        CHECK(strcmp(net->layers[ds->inputs[0]].name, "layer1.1.relu2") == 0);
    }
    const sm_layer *fc = sm_network_layer(net, "fc");
    CHECK(fc && fc->out.ndim == 1 && fc->out.dim[0] == 10);

    /* batch 8: per-sample counts scale, weights do not; bytes = 8 * activations + 4 * W */
    sm_metrics b8;
    CHECK_EQ(sm_network_metrics(net, 8, &b8, &st), 0);
    CHECK_EQ(b8.macs, 8 * 13549888LL);
    CHECK_EQ(b8.inputs, 8 * 109568LL);
    CHECK_EQ(b8.weights, 24666);
    CHECK_EQ(b8.layers, 17);
    CHECK_EQ(b8.bytes - 4 * 24666, 8 * (m.bytes - 4 * 24666));

    /* blocks add up to the whole, and the one-pass totals of every block are each block's */
    sm_metrics sum = {0}, blk, all[64];
    CHECK(net->n_blocks <= 64);
    CHECK_EQ(sm_blocks_metrics(net, 1, all, &st), 0);
    for (int b = 0; b < net->n_blocks && b < 64; b++) {
        CHECK_EQ(sm_block_metrics(net, b, 1, &blk, &st), 0);
        sum.macs += blk.macs;
        sum.weights += blk.weights;
        CHECK(memcmp(&all[b], &blk, sizeof blk) == 0);
    }
    CHECK_EQ(sum.macs, m.macs);
    CHECK_EQ(sum.weights, m.weights);
    /* a block past the last is an error, not totals of 0 (the C API's index errors are values) */
    CHECK_EQ(sm_block_metrics(net, net->n_blocks, 1, &blk, &st), -1);
    CHECK_CONTAINS(st.msg, "has no block");
    CHECK(sm_registry_type(reg, -1) == NULL && sm_registry_type(reg, 1 << 20) == NULL);
    CHECK(sm_registry_path(reg, sm_registry_count(reg)) == NULL);
    sm_network_free(net);

    /* --image 64: every spatial size doubles, so conv MACs, I and O grow 4x; fc stays 320 */
    opt.image = 64;
    CHECK_EQ(sm_network_load(reg, "examples/tiny_resnet.ini", &opt, &net, &st), 0);
    CHECK_EQ(sm_network_metrics(net, 1, &m, &st), 0);
    CHECK_EQ(m.macs, 4 * (13549888LL - 320) + 320);
    CHECK_EQ(m.inputs, 4 * 109568LL);
    CHECK_EQ(m.outputs, 4 * 106496LL);
    CHECK_EQ(m.weights, 24666);
    sm_network_free(net);
}

/* Layers may be written before their inputs; the order becomes one where inputs come first. */
static void forward_references(const sm_registry *reg)
{
    sm_status st;
    sm_network *net = net_load(reg,
                               "[network]\ninput = 4x8x8\n[layers]\n"
                               "b = relu from=a\n"
                               "a = conv2d out=4 kernel=1 from=@input\n"
                               "c = add from=a,b\n",
                               0, &st);
    CHECK(net != NULL);
    if (!net) {
        fprintf(stderr, "%s\n", st.msg);
        return;
    }
    CHECK(strcmp(net->layers[0].name, "a") == 0);
    CHECK(strcmp(net->layers[1].name, "b") == 0);
    CHECK(strcmp(net->layers[2].name, "c") == 0);
    CHECK_EQ(net->layers[2].inputs[0], 0);
    CHECK_EQ(net->layers[2].inputs[1], 1);
    sm_network_free(net);
}

/* A block's from, inline blocks, repetition with ${i} and expressions in templates. */
static void blocks_and_templates(const sm_registry *reg)
{
    sm_status st;
    sm_network *net = net_load(reg,
                               "[network]\ninput = 2x4x4\n"
                               "[layers]\nstem = conv2d out=4 kernel=1\n"
                               "side = conv2d out=4 kernel=1 from=@input\n"
                               "[block branch]\nfrom = stem\nact = relu\n"
                               "[block merge]\ncat = concat from=side,branch.act\n"
                               "[template widen]\nconv = conv2d out=${w*2+i} kernel=1\n"
                               "[block rep{1..3}]\nuse = widen\nw = 4\n"
                               "[block tail{0..1}]\nc = conv2d out=${i+1} kernel=1\n",
                               0, &st);
    CHECK(net != NULL);
    if (!net) {
        fprintf(stderr, "%s\n", st.msg);
        return;
    }
    const sm_layer *act = sm_network_layer(net, "branch.act");
    CHECK(act && strcmp(net->layers[act->inputs[0]].name, "stem") == 0);
    const sm_layer *cat = sm_network_layer(net, "merge.cat");
    CHECK(cat && cat->out.dim[0] == 8 && cat->out.dim[1] == 4);
    const sm_layer *r1 = sm_network_layer(net, "rep1.conv"),
                   *r3 = sm_network_layer(net, "rep3.conv");
    CHECK(r1 && r1->out.dim[0] == 9);  /* 4*2 + 1 */
    CHECK(r3 && r3->out.dim[0] == 11); /* 4*2 + 3 */
    /* each repetition takes the previous one's output; rep1 takes merge.cat (8 channels) */
    CHECK(r1 && r1->m.weights == 9 * 8 + 9);
    CHECK(r3 && r3->m.weights == 11 * 10 + 11);
    const sm_layer *t1 = sm_network_layer(net, "tail1.c");
    CHECK(t1 && t1->out.dim[0] == 2 && t1->m.weights == 2 * 1 + 2);
    CHECK_EQ(net->n_blocks, 2 + 2 + 3 + 2);
    sm_network_free(net);
}

/* A sequence input: --image sets its length. */
static void sequence_input(const sm_registry *reg)
{
    sm_status st;
    sm_network *net =
        net_load(reg, "[network]\ninput = 16x32\n[layers]\nfc = linear out=8\n", 50, &st);
    CHECK(net != NULL);
    if (!net) {
        fprintf(stderr, "%s\n", st.msg);
        return;
    }
    CHECK_EQ(net->input.dim[0], 50);
    CHECK_EQ(net->layers[0].out.dim[0], 50);
    CHECK_EQ(net->layers[0].out.dim[1], 8);
    CHECK_EQ(net->layers[0].m.macs, 50 * 32 * 8);
    sm_network_free(net);
}

/* The family of a network follows its layer types: attention of any kind (Swin's
 * window_attention too) makes a transformer, a recurrent layer a recurrent network, a 2-D
 * convolution alone a CNN, and anything else an MLP. */
static void families(const sm_registry *reg)
{
    static const struct {
        const char *input, *layers;
        sm_family want;
    } cases[] = {
        {"3x8x8", "c = conv2d out=4 kernel=3\n", SM_FAMILY_CNN},
        {"6x8", "a = attention dim=8 heads=2\n", SM_FAMILY_TRANSFORMER},
        {"7x7x8", "w = window_attention dim=8 heads=2 window=7\n", SM_FAMILY_TRANSFORMER},
        {"5x8", "r = lstm hidden=4\n", SM_FAMILY_RECURRENT},
        {"5x8", "r = gru hidden=4\n", SM_FAMILY_RECURRENT},
        {"5x8", "r = rnn hidden=4\n", SM_FAMILY_RECURRENT},
        {"3x8x8", "c = conv2d out=4 kernel=3\nf = flatten\nr = linear out=4\n", SM_FAMILY_CNN},
        {"8", "fc = linear out=4\n", SM_FAMILY_MLP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "[network]\ninput = %s\n[layers]\n%s", cases[i].input,
                 cases[i].layers);
        sm_status st;
        sm_network *net = net_load(reg, text, 0, &st);
        if (!net) {
            fprintf(stderr, "%s: %s\n", cases[i].layers, st.msg);
            CHECK(net != NULL);
            continue;
        }
        CHECK_EQ(sm_network_family(net), cases[i].want);
        sm_network_free(net);
    }
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    tiny_resnet(reg);
    forward_references(reg);
    blocks_and_templates(reg);
    sequence_input(reg);
    families(reg);
    sm_registry_free(reg);
    return check_summary();
}
