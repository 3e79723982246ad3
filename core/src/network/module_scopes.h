/* How long eager PyTorch's module calls hold a tensor at inference (module_scopes.c). Internal. */
#ifndef SCALEMETER_MODULE_SCOPES_H
#define SCALEMETER_MODULE_SCOPES_H

#include "scalemeter/scalemeter.h"

/* The storage a layer's output lives in, owner[layer]: its own (layer + 1), or, for a layer
 * whose output aliases its input (in place, a view), its input's, down to the network's input
 * (0). */
static inline int sm_storage_of(const int *owner, int input)
{
    return input == SM_NETWORK_INPUT ? 0 : owner[input];
}

/* hold[s] for each storage s (0: the network's input, i + 1: layer i's output, owner[] as
 * memory.c's): the last layer during which a caller still holds it, or -1. malloc'd; NULL when
 * out of memory. */
int *sm_module_holds(const sm_network *net, const int *owner);

#endif
