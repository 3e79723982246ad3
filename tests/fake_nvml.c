/*
 * A stand-in for libnvidia-ml.so.1 with the calls calibrate/nvml_energy.c makes, for testing
 * the energy meter without a GPU (test_nvml_energy.c loads it through
 * SCALEMETER_NVML_LIBRARY). FAKE_NVML_MODE chooses what it pretends:
 *   counter   (default) an energy counter rising at 150 W from the first call
 *   power     no counter (NVML_ERROR_NOT_SUPPORTED), a power reading of 200 W
 *   nopower   neither
 *   nodevice  no device with the asked PCI bus id (NVML_ERROR_NOT_FOUND)
 *   noinit    nvmlInit_v2 fails (NVML_ERROR_DRIVER_NOT_LOADED)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

enum { OK = 0, NOT_SUPPORTED = 3, NOT_FOUND = 6, DRIVER_NOT_LOADED = 9 };

static int is_mode(const char *m)
{
    const char *v = getenv("FAKE_NVML_MODE");
    return strcmp(v && *v ? v : "counter", m) == 0;
}

static double seconds(void)
{
    static double t0 = -1;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double now = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    if (t0 < 0)
        t0 = now;
    return now - t0;
}

static int device_handle; /* any address will do */

EXPORT int nvmlInit_v2(void) { return is_mode("noinit") ? DRIVER_NOT_LOADED : OK; }
EXPORT int nvmlShutdown(void) { return OK; }

EXPORT const char *nvmlErrorString(int r)
{
    return r == NOT_SUPPORTED       ? "Not Supported"
           : r == NOT_FOUND         ? "Not Found"
           : r == DRIVER_NOT_LOADED ? "Driver Not Loaded"
                                    : "Unknown Error";
}

EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **dev)
{
    (void)pci;
    if (is_mode("nodevice"))
        return NOT_FOUND;
    *dev = &device_handle;
    return OK;
}

EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **dev)
{
    if (index != 0 || is_mode("nodevice"))
        return NOT_FOUND;
    *dev = &device_handle;
    return OK;
}

EXPORT int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
    (void)dev;
    if (!is_mode("counter"))
        return NOT_SUPPORTED;
    *mj = 1000000ull + (unsigned long long)(150.0 * 1000.0 * seconds());
    return OK;
}

EXPORT int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    (void)dev;
    if (!is_mode("power"))
        return NOT_SUPPORTED;
    *mw = 200000;
    return OK;
}
