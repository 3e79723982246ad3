/*
 * The energy a GPU uses while a benchmark runs, read through NVML (the library nvidia-smi uses),
 * which is loaded at run time with dlopen: building needs no NVML, and a machine without it
 * only loses the energy column.
 *
 * Two methods, as the energy thesis (papers/nicolai-energy-thesis.txt, section 4.3) measures
 * energy per iteration over runs of seconds:
 *   counter  nvmlDeviceGetTotalEnergyConsumption (millijoules since the driver loaded, Volta
 *            and later), read at start and stop;
 *   power    where the counter is unsupported: nvmlDeviceGetPowerUsage (milliwatts) sampled by
 *            a thread every SM_ENERGY_SAMPLE_MS and integrated (trapezoids), from a sample at
 *            start to one at stop.
 * NVML updates both every 20 to 100 ms, so a measurement should span a second or more.
 *
 * The library is $SCALEMETER_NVML_LIBRARY when set (another install, or the tests' fake one),
 * else libnvidia-ml.so.1 from the loader's search path.
 */
#ifndef SCALEMETER_NVML_ENERGY_H
#define SCALEMETER_NVML_ENERGY_H

#include "scalemeter/scalemeter.h"

#define SM_ENERGY_SAMPLE_MS 10

typedef struct sm_energy_meter sm_energy_meter;

/* Opens NVML and the device with PCI bus id pci ("0000:3b:00.0"; NULL: NVML's device 0), and
 * chooses the method: 0, or -1 saying why energy cannot be measured here. */
int sm_energy_open(const char *pci, sm_energy_meter **out, sm_status *st);
/* "counter" or "power". */
const char *sm_energy_method(const sm_energy_meter *m);
/* Starts a measurement; stop ends it with the joules used in between. */
int sm_energy_start(sm_energy_meter *m, sm_status *st);
int sm_energy_stop(sm_energy_meter *m, double *joules, sm_status *st);
void sm_energy_close(sm_energy_meter *m);

#endif
