/*
 * test_lm_memory: what a language model's training keeps under a fused attention kernel and
 * torchtitan's selective checkpointing (plugin.h's ABI 4 fields), on a network small enough
 * to count by hand, at fp32, per sample (S 16, E 8, two heads of d 4, one key/value head:
 * kvE 4, SwiGLU hidden F 12, 50 classes):
 *
 *   input 16x8 -> [block b.0: attn = gqa_attention, mlp = swiglu] -> head = linear 50
 *   -> loss = cross_entropy (fp32)
 *
 * Eager, no checkpointing. Storages kept: the input (attn's), attn's output (mlp's) and
 * mlp's (head's), 3 x 128 elements = 1536 B. Of their own: attn without rotation 4 S E +
 * h S^2 = 512 + 512 elements = 4096 B; mlp 4 S F = 768 elements = 3072 B; the loss its fp32
 * log-probabilities 4 x 16 x 50 = 3200 B. Its backward pass then allocates 8 x 800 = 6400 B
 * more: 1536 + 4096 + 3072 + 3200 + 6400 = 18304 B.
 * Fused attention: attn keeps no S x S probabilities (-512 elements, -2048 B) and the fp32
 * log-sum-exp of its h S rows (+128 B): 18304 - 1920 = 16384 B.
 * Fused and selective: in the block, attn keeps what the policy keeps, q_proj's and
 * v_proj's outputs and the kernel's (S E + S kvE + S E = 320 elements, 1280 B, and the
 * 128 B log-sum-exp); mlp gate_proj's output (S F = 192 elements, 768 B) and its own
 * output; the block keeps its input. Storages: the input and mlp's output, 1024 B. Kept:
 * 1408 + 768 + 1024 + 3200 = 6400 B. The block's backward pass recomputes the rest, attn
 * 2176 - 1408 = 768 B and mlp 3072 - 768 = 2304 B and attn's output (512 B): 3584 B, less
 * than the loss's 6400: 6400 + 6400 = 12800 B.
 */
#include <stdio.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/memory.h"

static const char *const lm =
    "[network]\nname = tiny_lm\ninput = 16x8\n"
    "[template blk]\n"
    "attn = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=0 max_len=64\n"
    "mlp = swiglu hidden=12\n"
    "[block b.{0..0}]\nuse = blk\n"
    "[layers]\nhead = linear out=50 bias=false\nloss = cross_entropy\n";

static double activations(const sm_network *net, int64_t batch, int fused, sm_checkpoint ck)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    c.fused_attention = fused;
    c.checkpoint = ck;
    sm_memory m;
    sm_status st;
    if (sm_network_memory(net, batch, 1, 1, &c, &m, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return -1;
    }
    return m.activations;
}

int main(void)
{
    sm_registry *reg;
    sm_network *net;
    sm_status st;
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, net_file(lm), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    CHECK_EQ(activations(net, 1, 0, SM_CHECKPOINT_NONE), 18304);
    CHECK_EQ(activations(net, 1, 1, SM_CHECKPOINT_NONE), 16384);
    CHECK_EQ(activations(net, 1, 1, SM_CHECKPOINT_SELECTIVE), 12800);
    CHECK_EQ(activations(net, 3, 1, SM_CHECKPOINT_SELECTIVE), 3 * 12800);
    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
