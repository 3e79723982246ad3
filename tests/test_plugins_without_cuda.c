/*
 * What counting costs: loading every plugin and computing the metrics of a few networks maps no
 * CUDA library and no GPU companion module (issue 17: a CUDA build linked cudart, cuBLAS and
 * cuDNN into every plugin, so `scalemeter metrics` failed where they are absent and paid
 * 0.1 s and 210 MiB where present). This test links libscalemeter alone, as a program that
 * only counts does, and reads its own /proc/self/maps. Where the GPU modules were built, asking
 * for a type's GPU kernels then maps its module, so the check can see a mapping when there is
 * one. Nor does counting map OpenBLAS, LAPACK(E), gfortran or a CPU companion module (issue
 * 34: they cost every command 2 ms): asking for conv2d's CPU kernels then maps conv2d_cpu.so
 * and OpenBLAS, which the same check must see.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scalemeter/scalemeter.h"

/* The first line of /proc/self/maps naming any of the needles, or "" (into line). */
static const char *mapped(const char *const *needles, int n, char *line, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    line[0] = '\0';
    if (!f)
        return line;
    char buf[4096];
    while (fgets(buf, sizeof buf, f))
        for (int i = 0; i < n; i++)
            if (strstr(buf, needles[i])) {
                snprintf(line, len, "%s", buf);
                fclose(f);
                return line;
            }
    fclose(f);
    return line;
}

int main(void)
{
    static const char *const cuda[] = {"libcudart", "libcudnn",   "libcublas",
                                       "libnccl",   "libcuda.so", "_gpu.so"};
    const int n_cuda = (int)(sizeof cuda / sizeof cuda[0]);
    static const char *const blas[] = {"libopenblas", "liblapack", "libblas", "libgfortran",
                                       "_cpu.so"};
    const int n_blas = (int)(sizeof blas / sizeof blas[0]);
    static const char *const models[] = {"resnet50", "mobilenet_v3_large", "vit_b_16",
                                         "convnext_tiny", "gpt2"};
    char line[4096];
    sm_status st;
    sm_registry *reg = NULL;
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    if (!reg) {
        fprintf(stderr, "registry: %s\n", st.msg);
        return check_summary();
    }
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        sm_network *net = NULL;
        sm_metrics m;
        int ok = sm_network_load(reg, models[i], NULL, &net, &st) == 0 &&
                 sm_network_metrics(net, 32, &m, &st) == 0;
        if (!ok)
            fprintf(stderr, "%s: %s\n", models[i], st.msg);
        CHECK(ok);
        sm_network_free(net);
    }
    mapped(cuda, n_cuda, line, sizeof line);
    if (line[0])
        fprintf(stderr, "mapped after metrics: %s", line);
    CHECK(line[0] == '\0');
    mapped(blas, n_blas, line, sizeof line);
    if (line[0])
        fprintf(stderr, "mapped after metrics: %s", line);
    CHECK(line[0] == '\0');

    /* the CPU backend's first question loads conv2d's CPU module, and with it OpenBLAS */
    const struct sm_cpu_kernels *cpu = NULL;
    CHECK_EQ(sm_registry_cpu_kernels(reg, sm_registry_find(reg, "conv2d"), &cpu, &st), 0);
    CHECK(cpu != NULL);
    static const char *const cpu_module[] = {"conv2d_cpu.so"}, *const openblas[] = {"libopenblas"};
    CHECK(mapped(cpu_module, 1, line, sizeof line)[0] != '\0');
    CHECK(mapped(openblas, 1, line, sizeof line)[0] != '\0');

#ifdef SM_HAVE_CUDA
    /* The cuda backend's first question loads conv2d's module, and with it cuDNN. */
    const struct sm_gpu_kernels *k = NULL;
    CHECK_EQ(sm_registry_gpu_kernels(reg, sm_registry_find(reg, "conv2d"), &k, &st), 0);
    CHECK(k != NULL);
    static const char *const module[] = {"conv2d_gpu.so"};
    CHECK(mapped(module, 1, line, sizeof line)[0] != '\0');
#endif
    sm_registry_free(reg);
    return check_summary();
}
