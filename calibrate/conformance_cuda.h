/*
 * The GPU as a device of the conformance harness (conformance.h): every gradient-checked case
 * also runs on the GPU executor, in fp32, from the CPU's numbers, and must match the CPU's
 * output and gradients within the case's tolerance. Set it in a tally's device field; it needs
 * a CUDA device (the caller probes for one: cuda_device.h).
 */
#ifndef SCALEMETER_CONFORMANCE_CUDA_H
#define SCALEMETER_CONFORMANCE_CUDA_H

#include "conformance.h"

const sm_conformance_device *sm_conformance_cuda(void);

#endif
