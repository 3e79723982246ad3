/*
 * test_nvml_energy: the GPU energy meter (calibrate/nvml_energy.c) against a fake NVML
 * (fake_nvml.c, given as argv[1] and loaded through SCALEMETER_NVML_LIBRARY), so that both
 * methods, counter and power sampling, and every refusal run without a GPU or a driver.
 *
 * The fake draws a constant power (150 W by its counter, 200 W by its power reading), so the
 * joules a measurement reports divided by the seconds it lasted must be that power. The
 * seconds are measured here, around start and stop, so they bound the meter's own interval
 * from above: the power computed may come out a little low, never high. No time is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "nvml_energy.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Opens the meter in a fake mode; start, 0.3 s of sleep, stop; the mean power. */
static double measure(const char *mode, const char *method, sm_status *st)
{
    setenv("FAKE_NVML_MODE", mode, 1);
    sm_energy_meter *m = NULL;
    if (sm_energy_open("00000000:3B:00.0", &m, st)) {
        fprintf(stderr, "%s: %s\n", mode, st->msg);
        CHECK(0);
        return -1;
    }
    CHECK_CONTAINS(sm_energy_method(m), method);
    double joules = -1, t0 = now();
    CHECK(sm_energy_start(m, st) == 0);
    const struct timespec pause = {0, 300000000L};
    nanosleep(&pause, NULL);
    CHECK(sm_energy_stop(m, &joules, st) == 0);
    double seconds = now() - t0;
    sm_energy_close(m);
    printf("%-8s %-7s %.3f J in %.3f s: %.1f W\n", mode, method, joules, seconds, joules / seconds);
    return joules / seconds;
}

static void refuses(const char *mode, const char *message)
{
    sm_status st;
    sm_energy_meter *m = NULL;
    setenv("FAKE_NVML_MODE", mode, 1);
    CHECK(sm_energy_open(NULL, &m, &st) == -1 && m == NULL);
    CHECK_CONTAINS(st.msg, message);
    CHECK_CONTAINS(st.msg, "energy not measured");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_nvml_energy FAKE_NVML_LIBRARY\n");
        return 2;
    }
    sm_status st;
    sm_energy_meter *m = NULL;
    /* no library at all: a message, no crash */
    setenv("SCALEMETER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK(sm_energy_open(NULL, &m, &st) == -1 && m == NULL);
    CHECK_CONTAINS(st.msg, "no NVML (energy not measured)");
    CHECK_CONTAINS(st.msg, "/nonexistent/libnvidia-ml.so.1");
    setenv("SCALEMETER_NVML_LIBRARY", argv[1], 1);
    double w = measure("counter", "counter", &st);
    CHECK(w > 120 && w <= 151); /* 150 W, the counter's mJ truncated */
    w = measure("power", "power", &st);
    CHECK(w > 160 && w <= 200.5); /* 200 W, integrated from samples */
    refuses("nopower", "neither an energy counter nor a power reading");
    refuses("nodevice", "nvmlDeviceGetHandleByIndex_v2 0: Not Found");
    refuses("noinit", "nvmlInit_v2: Driver Not Loaded");
    /* stop without start */
    setenv("FAKE_NVML_MODE", "power", 1);
    if (sm_energy_open(NULL, &m, &st) == 0) {
        double j;
        CHECK(sm_energy_stop(m, &j, &st) == -1);
        CHECK_CONTAINS(st.msg, "was not started");
        sm_energy_close(m);
    }
    return check_summary();
}
