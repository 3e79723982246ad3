/* Fuzz target: the network description parser (sections, blocks, templates, repetition, ${...}
 * expressions), shape inference and the metrics of every layer, with every shipped plugin; then
 * the memory model over what loads: inference, and training under each checkpointing policy
 * (whose refusals, a network without units or an in-place write over what is kept, are
 * errors, not faults), sharded on 8 devices at 16-bit activations. */
#include "fuzz_common.h"
#include "scalemeter/memory.h"
#include "scalemeter/scalemeter.h"

static sm_registry *reg;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* a hostile file may ask for millions of layers: the limit, not memory, must stop it */
    setenv("SCALEMETER_MAX_LAYERS", "20000", 1);
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "fuzz_network: %s\n", st.msg);
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    sm_status st;
    sm_network *net = NULL;
    sm_network_options opt = {0};
    if (sm_network_load(reg, path, &opt, &net, &st) == 0) {
        sm_metrics m;
        sm_network_metrics(net, 2, &m, &st);
        for (int b = 0; b < net->n_blocks; b++)
            sm_block_metrics(net, b, 2, &m, &st);
        sm_memory_config c = {.half = 1,
                              .optimizer = SM_OPTIMIZER_ADAMW,
                              .mask_bytes = 1,
                              .capacity_bytes = 80.0 * (1 << 30),
                              .shard = SM_SHARD_FULL};
        sm_memory mem;
        sm_network_memory(net, 2, 8, 0, &c, &mem, &st);
        for (int k = 0; k < SM_N_CHECKPOINTS; k++) {
            c.checkpoint = (sm_checkpoint)k;
            sm_network_memory(net, 2, 8, 1, &c, &mem, &st);
        }
        sm_network_free(net);
    }
    return 0;
}
