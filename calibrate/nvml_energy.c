/*
 * GPU energy through NVML loaded with dlopen (nvml_energy.h). The few NVML declarations used
 * are written here from NVIDIA's nvml.h (return codes are an int enum, devices opaque
 * pointers), since building must not need NVML's header either.
 */
#include "nvml_energy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvml_return;   /* nvmlReturn_t */
typedef void *nvml_device; /* nvmlDevice_t */
#define NVML_SUCCESS 0

typedef struct nvml_api {
    void *lib;
    nvml_return (*init)(void);                                /* nvmlInit_v2 */
    nvml_return (*shutdown)(void);                            /* nvmlShutdown */
    const char *(*error_string)(nvml_return);                 /* nvmlErrorString */
    nvml_return (*by_pci)(const char *, nvml_device *);       /* ..GetHandleByPciBusId_v2 */
    nvml_return (*by_index)(unsigned, nvml_device *);         /* ..GetHandleByIndex_v2 */
    nvml_return (*energy)(nvml_device, unsigned long long *); /* ..GetTotalEnergyConsumption */
    nvml_return (*power)(nvml_device, unsigned *);            /* ..GetPowerUsage */
} nvml_api;

struct sm_energy_meter {
    nvml_api api;
    nvml_device dev;
    int use_counter;
    unsigned long long counter_start; /* mJ */
    /* power sampling: the thread integrates while running is set */
    pthread_t thread;
    pthread_mutex_t lock;
    int running, thread_started;
    double joules, last_t, last_w;
    nvml_return sample_error;
};

static const char *nvml_error(const nvml_api *a, nvml_return r)
{
    const char *s = a->error_string ? a->error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

/* dlsym into a function pointer: through memcpy, since ISO C has no cast from void * to a
 * function pointer. */
static int resolve(void *lib, const char *name, void *fn, size_t size)
{
    void *sym = dlsym(lib, name);
    if (!sym)
        return -1;
    memcpy(fn, &sym, size);
    return 0;
}

static int load(nvml_api *a, sm_status *st)
{
    const char *path = getenv("SCALEMETER_NVML_LIBRARY");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    memset(a, 0, sizeof *a);
    if (!(a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror();
        return sm_fail(st, "no NVML (energy not measured): %s", why ? why : path);
    }
    struct {
        const char *name;
        void *fn;
        size_t size;
    } syms[] = {
        {"nvmlInit_v2", &a->init, sizeof a->init},
        {"nvmlShutdown", &a->shutdown, sizeof a->shutdown},
        {"nvmlErrorString", &a->error_string, sizeof a->error_string},
        {"nvmlDeviceGetHandleByPciBusId_v2", &a->by_pci, sizeof a->by_pci},
        {"nvmlDeviceGetHandleByIndex_v2", &a->by_index, sizeof a->by_index},
        {"nvmlDeviceGetTotalEnergyConsumption", &a->energy, sizeof a->energy},
        {"nvmlDeviceGetPowerUsage", &a->power, sizeof a->power},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (resolve(a->lib, syms[i].name, syms[i].fn, syms[i].size)) {
            sm_fail(st, "%s has no %s (energy not measured)", path, syms[i].name);
            dlclose(a->lib);
            a->lib = NULL;
            return -1;
        }
    return 0;
}

/* The device, and the method: its counter where that reads, else sampling its power. */
static int choose(sm_energy_meter *m, const char *pci, sm_status *st)
{
    nvml_return r = pci ? m->api.by_pci(pci, &m->dev) : m->api.by_index(0, &m->dev);
    if (r != NVML_SUCCESS)
        return sm_fail(st, "%s %s: %s (energy not measured)",
                       pci ? "nvmlDeviceGetHandleByPciBusId_v2" : "nvmlDeviceGetHandleByIndex_v2",
                       pci ? pci : "0", nvml_error(&m->api, r));
    unsigned long long mj = 0;
    unsigned mw = 0;
    if (m->api.energy(m->dev, &mj) == NVML_SUCCESS) {
        m->use_counter = 1;
        return 0;
    }
    if ((r = m->api.power(m->dev, &mw)) != NVML_SUCCESS)
        return sm_fail(st,
                       "the device has neither an energy counter nor a power reading "
                       "(nvmlDeviceGetPowerUsage: %s; energy not measured)",
                       nvml_error(&m->api, r));
    return 0;
}

int sm_energy_open(const char *pci, sm_energy_meter **out, sm_status *st)
{
    *out = NULL;
    sm_energy_meter *m = calloc(1, sizeof *m);
    if (!m)
        return sm_fail(st, "out of memory");
    if (load(&m->api, st)) {
        free(m);
        return -1;
    }
    nvml_return r = m->api.init();
    if (r != NVML_SUCCESS || choose(m, pci, st)) {
        if (r != NVML_SUCCESS)
            sm_fail(st, "nvmlInit_v2: %s (energy not measured)", nvml_error(&m->api, r));
        else
            m->api.shutdown();
        dlclose(m->api.lib);
        free(m);
        return -1;
    }
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return 0;
}

const char *sm_energy_method(const sm_energy_meter *m)
{
    return m->use_counter ? "counter" : "power";
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One power sample, added to the integral as a trapezoid from the last one. */
static void sample(sm_energy_meter *m)
{
    unsigned mw = 0;
    nvml_return r = m->api.power(m->dev, &mw);
    double t = now(), w = (double)mw / 1000.0;
    pthread_mutex_lock(&m->lock);
    if (r != NVML_SUCCESS) {
        m->sample_error = r;
    } else {
        m->joules += 0.5 * (w + m->last_w) * (t - m->last_t);
        m->last_t = t;
        m->last_w = w;
    }
    pthread_mutex_unlock(&m->lock);
}

static void *sampler(void *arg)
{
    sm_energy_meter *m = arg;
    const struct timespec pause = {0, SM_ENERGY_SAMPLE_MS * 1000000L};
    for (;;) {
        pthread_mutex_lock(&m->lock);
        int running = m->running;
        pthread_mutex_unlock(&m->lock);
        if (!running)
            return NULL;
        nanosleep(&pause, NULL);
        sample(m);
    }
}

int sm_energy_start(sm_energy_meter *m, sm_status *st)
{
    if (m->use_counter) {
        nvml_return r = m->api.energy(m->dev, &m->counter_start);
        return r == NVML_SUCCESS
                   ? 0
                   : sm_fail(st, "nvmlDeviceGetTotalEnergyConsumption: %s", nvml_error(&m->api, r));
    }
    if (m->thread_started)
        return sm_fail(st, "the energy measurement is already running");
    unsigned mw = 0;
    nvml_return r = m->api.power(m->dev, &mw);
    if (r != NVML_SUCCESS)
        return sm_fail(st, "nvmlDeviceGetPowerUsage: %s", nvml_error(&m->api, r));
    m->joules = 0;
    m->last_t = now();
    m->last_w = (double)mw / 1000.0;
    m->sample_error = NVML_SUCCESS;
    m->running = 1;
    if (pthread_create(&m->thread, NULL, sampler, m) != 0) {
        m->running = 0;
        return sm_fail(st, "cannot start the power sampling thread");
    }
    m->thread_started = 1;
    return 0;
}

int sm_energy_stop(sm_energy_meter *m, double *joules, sm_status *st)
{
    if (m->use_counter) {
        unsigned long long end = 0;
        nvml_return r = m->api.energy(m->dev, &end);
        if (r != NVML_SUCCESS)
            return sm_fail(st, "nvmlDeviceGetTotalEnergyConsumption: %s", nvml_error(&m->api, r));
        *joules = (double)(end - m->counter_start) / 1000.0;
        return 0;
    }
    if (!m->thread_started)
        return sm_fail(st, "the energy measurement was not started");
    pthread_mutex_lock(&m->lock);
    m->running = 0;
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    m->thread_started = 0;
    sample(m); /* the last trapezoid ends now */
    if (m->sample_error != NVML_SUCCESS)
        return sm_fail(st, "nvmlDeviceGetPowerUsage: %s", nvml_error(&m->api, m->sample_error));
    *joules = m->joules;
    return 0;
}

void sm_energy_close(sm_energy_meter *m)
{
    if (!m)
        return;
    if (m->thread_started) {
        double j;
        sm_status st;
        sm_energy_stop(m, &j, &st);
    }
    pthread_mutex_destroy(&m->lock);
    m->api.shutdown();
    dlclose(m->api.lib);
    free(m);
}
