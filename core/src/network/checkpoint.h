/* Activation checkpointing's units and what it recomputes (checkpoint.c). Internal. */
#ifndef SCALEMETER_CHECKPOINT_H
#define SCALEMETER_CHECKPOINT_H

#include "scalemeter/memory.h"
#include "scalemeter/plugin.h"

/* unit[i] for each layer: its block where that block has more than one layer (a checkpointed
 * unit), else -1. malloc'd; NULL when out of memory. */
int *sm_checkpoint_units(const sm_network *net);

/* 1 when checkpointing c drops what layer l (of that unit) keeps and recomputes its forward
 * pass in the backward pass: every layer of a unit under full, those that neither multiply
 * matrices nor attend under selective. */
int sm_checkpoint_recomputes(const sm_layer *l, int unit, sm_checkpoint c);

#endif
