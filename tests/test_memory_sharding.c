/*
 * test_memory_sharding: sharded data parallelism and activation checkpointing in one device's
 * memory (memory.h), derived by hand on a network of two checkpointed units (blocks of three
 * layers) between two single layers. PyTorch keeps: linear its input, GELU its input
 * (derivatives.yaml's gelu_backward(grad, self)).
 *
 *   input 8 (s0) -> embed linear 8 (s1) -> [b0: fc1 linear 16 (s2), act gelu (s3),
 *   fc2 linear 8 (s4)] -> [b1: fc1 (s5), act (s6), fc2 (s7)] -> head linear 4 (s8)
 *
 * Weights (with biases): embed 72, fc1 144, fc2 136, head 36: 668; the largest layer 144.
 * Kept per sample at the end of the forward pass, in elements, and always the network's output
 * s8, 4, which the loss reads:
 *   none: s0 8, b0 s1 8 + s2 16 + s3 16, b1 s4 8 + s5 16 + s6 16, head s7 8: 96, with s8 100
 *     (400 B fp32)
 *   full: the single layers' s0 and s7 and the units' inputs s1 and s4: 32, with s8 36 (144 B)
 *   selective: every second matrix product (fc2) is recomputed and GELU, and the first (fc1)
 *     keeps its output alone: s0, the units' inputs s1 and s4, fc1's outputs s2 and s5, s7:
 *     64, with s8 68 (272 B)
 * The backward pass runs the layers from the last: it holds what the layers up to the one
 * running keep, the gradients made and not yet used up (from the output's, s8's 4), the
 * gradients the running layer makes (none for the input s0), and a unit's recomputed tensors
 * from its last layer's backward pass until the first of its layers that keeps them is done.
 *   none: head 100 + 4 + 8 = 112, fc2 of b1 88 + 8 + 16 = 112, the most (448 B: 48 more)
 *   full: b1 recomputes s5 and s6 (s4 is held): fc2 24 + 32 + 8 + 16 = 80, the most (320 B:
 *     176 more); gelu 24 + 16 + 16 + 16 = 72; b0 likewise, 16 + 32 + 8 + 16 = 72
 *   selective: b1 recomputes s6 (s4 and s5 are held): fc2 56 + 16 + 8 + 16 = 96, the most
 *     (384 B: 112 more); gelu 56 + 16 + 16 = 88; head 68 + 4 + 8 = 80
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/memory.h"

static const char *const two = "[network]\nname = two\ninput = 8\n"
                               "[layers]\nembed = linear out=8\n"
                               "[block b0]\nfc1 = linear out=16\nact = gelu\nfc2 = linear out=8\n"
                               "[block b1]\nfc1 = linear out=16\nact = gelu\nfc2 = linear out=8\n"
                               "[layers]\nhead = linear out=4\n";

static void test_checkpoint(const sm_network *net)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 400);
    CHECK_EQ(m.backward, 48);
    c.checkpoint = SM_CHECKPOINT_FULL;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 144);
    CHECK_EQ(m.backward, 176);
    CHECK(sm_network_memory(net, 10, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 1440);
    CHECK_EQ(m.backward, 1760);
    c.checkpoint = SM_CHECKPOINT_SELECTIVE;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 272);
    CHECK_EQ(m.backward, 112);
    /* inference recomputes nothing: the live peak while a block's GELU runs, its fc1's output
     * and its own (32 elements) beside the batch, which the caller holds, and the block's
     * input, which the block's call holds (16) */
    CHECK(sm_network_memory(net, 1, 1, 0, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 192);
}

/* Adam on 4 devices at fp32: weights 4 x 668 = 2672, gradients 2672 and DDP's bucket copy,
 * the two moments 5344. */
/* A third block: 948 weights, a quarter of them each; gathered, the root's 108 and two of the
 * three blocks' 280, the one computing and the one prefetched, at 4 bytes: 948 + 2672. */
static void test_gathered_units(void)
{
    char text[512];
    snprintf(text, sizeof text, "%s",
             "[network]\nname = three\ninput = 8\n[layers]\nembed = linear out=8\n"
             "[template u]\nfc1 = linear out=16\nact = gelu\nfc2 = linear out=8\n"
             "[block b.{0..2}]\nuse = u\n[layers]\nhead = linear out=4\n");
    sm_registry *reg;
    sm_network *net = NULL;
    sm_status st;
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_ADAM, .mask_bytes = 1};
    c.shard = SM_SHARD_FULL;
    sm_memory m;
    CHECK(sm_registry_open(&reg, &st) == 0);
    CHECK(sm_network_load(reg, net_file(text), NULL, &net, &st) == 0);
    CHECK(net && sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.weights, 948 + 2672);
    sm_network_free(net);
    sm_registry_free(reg);
}

static void test_shard(const sm_network *net)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_ADAM, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.weights, 2672);
    CHECK_EQ(m.gradients, 5344);
    CHECK_EQ(m.optimizer, 5344);
    c.shard = SM_SHARD_OPTIMIZER; /* a quarter of the moments */
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.weights, 2672);
    CHECK_EQ(m.gradients, 5344);
    CHECK_EQ(m.optimizer, 1336);
    c.shard = SM_SHARD_GRADIENTS; /* 668 of gradient, fc1's 144 x 4 whole */
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.gradients, 668 + 576);
    CHECK_EQ(m.optimizer, 1336);
    CHECK_EQ(m.weights, 2672);
    /* gradients kept at 2 bytes in the buckets themselves (Megatron's bf16 gradient buffer):
     * the shard and the largest layer's whole gradient at 2 bytes each, 334 + 288, below the
     * 1336 unsharded (they were taken at 4 bytes, 1244, more than not sharding) */
    c.grad_is_bucket = 1, c.grad_bytes = 2;
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.gradients, 334 + 288);
    c.shard = SM_SHARD_NONE;
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.gradients, 1336);
    c.shard = SM_SHARD_GRADIENTS, c.grad_is_bucket = 0, c.grad_bytes = 0;
    /* 668 of weights and, gathered by FSDP unit, the root's (embed and head, 108 weights)
     * and the two blocks' (280 each): all 668, x 4 */
    c.shard = SM_SHARD_FULL;
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.weights, 668 + 2672);
    CHECK_EQ(m.peak, 3340 + 1244 + 1336 + 448);
    /* bf16: gathered at 2 bytes (668 + 2 x 668), activations at 2 bytes (100 x 2, and the
     * backward pass's 12 x 2) and no autocast copies of the weights: the gathered ones are
     * what the layers keep */
    c.half = 1;
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.weights, 668 + 1336);
    CHECK_EQ(m.activations, 200);
    CHECK_EQ(m.backward, 24);
    /* the copies: 2 x 668, each freed after its layer's backward pass; the peak stays head's,
     * with all of them */
    c.shard = SM_SHARD_NONE;
    CHECK(sm_network_memory(net, 1, 4, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 200 + 1336);
    CHECK_EQ(m.backward, 24);
    /* one device: nothing to shard across */
    c.shard = SM_SHARD_FULL;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "shard full on one device");
    /* nor is there for ZeRO-1 or -2 (they were taken and divided nothing): refused alike */
    c.shard = SM_SHARD_GRADIENTS, c.half = 0;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "shard gradients on one device");
    c.shard = SM_SHARD_OPTIMIZER;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "shard optimizer on one device");
    /* inference is a replica's forward pass: no sharding to refuse */
    CHECK(sm_network_memory(net, 1, 1, 0, &c, &m, &st) == 0);
    /* DDP on one device: no bucket copy (4 x 668), Adam's two moments whole (8 x 668) */
    c.shard = SM_SHARD_NONE;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.gradients, 2672);
    CHECK_EQ(m.optimizer, 5344);
}

static void test_names(void)
{
    CHECK_EQ(sm_shard_parse("gradients"), SM_SHARD_GRADIENTS);
    CHECK_EQ(sm_shard_parse("zero3"), -1);
    CHECK_EQ(sm_checkpoint_parse("selective"), SM_CHECKPOINT_SELECTIVE);
    CHECK_EQ(sm_checkpoint_parse("all"), -1);
    CHECK(!strcmp(sm_shard_name(SM_SHARD_FULL), "full"));
}

int main(void)
{
    sm_registry *reg;
    sm_network *net;
    sm_status st;
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, net_file(two), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_checkpoint(net);
    test_shard(net);
    test_gathered_units();
    test_names();
    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
