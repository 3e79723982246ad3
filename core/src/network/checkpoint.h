/* Activation checkpointing's units and what it recomputes (checkpoint.c), and the refusals of
 * sharding and checkpointing. Internal. */
#ifndef SCALEMETER_CHECKPOINT_H
#define SCALEMETER_CHECKPOINT_H

#include "scalemeter/memory.h"
#include "scalemeter/plugin.h"

/* unit[i] for each layer: its block where that block has more than one layer (a checkpointed
 * unit), else -1. malloc'd; NULL when out of memory. */
int *sm_checkpoint_units(const sm_network *net);

/* 0 where c checkpoints some unit of net (or c is none); else -1 with st saying that the
 * network has no unit, so c would change nothing: a [block] of one layer is not a unit. */
int sm_checkpoint_check(const sm_network *net, sm_checkpoint c, sm_status *st);

/* 0 where s is none or there are devices to shard across; else -1 with st saying so: every
 * sharding (ZeRO-1, -2, -3, FSDP) divides its states across the ranks, and one rank has none to
 * divide with (memory.c). */
int sm_shard_check(sm_shard s, int64_t devices, sm_status *st);

/* What checkpointing c does to a layer of a unit: keeps all it keeps (outside a unit, or no
 * checkpointing); recomputes its forward pass in the backward pass and keeps nothing (every
 * layer of a unit under full; under selective, those that neither multiply matrices nor
 * attend, and every second matrix product); under selective, keeps the part its plugin
 * declares (sm_layer_saved's selective fields) and recomputes the rest; or, under selective,
 * keeps only its output, a matrix product whose result the policy saves (its inputs are
 * recomputed with the layers that make them). */
typedef enum {
    SM_KEEPS_ALL,
    SM_RECOMPUTES_ALL,
    SM_RECOMPUTES_PART,
    SM_KEEPS_OUTPUT
} sm_checkpoint_effect;

/* The effect of c on each layer, given sm_checkpoint_units' unit[]. malloc'd; NULL when out of
 * memory. */
sm_checkpoint_effect *sm_checkpoint_effects(const sm_network *net, const int *unit,
                                            sm_checkpoint c);

#endif
