/* Fuzz target: the fit and validate paths (`fit`, `fit --device-out`, `validate`) on a
 * measurement CSV built from the input: rows of three small networks at batches, layouts and
 * times the input chooses (ordinary, extreme, zero, negative or unmeasured), under options it
 * chooses; then the least-squares fit, its coefficient file written and read back,
 * leave-one-model-out, and the device description fitted and written. A raw CSV seldom gets
 * past the reader (fuzz_runs_csv fuzzes that); these rows always do, so the fits are reached. */
#include <math.h>

#include "fuzz_common.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

static sm_registry *reg;
static char dir[64]; /* written files: coefficients, a device description */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "fuzz_fit: %s\n", st.msg);
        exit(2);
    }
    /* tmpfs where there is one: the coefficient file and description are fsync'ed */
    snprintf(dir, sizeof dir, "%s/sm_fuzz_fit_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_fit: mkdtemp");
        exit(2);
    }
    return 0;
}

/* A time from two bytes: mostly milliseconds to seconds, sometimes an edge. */
static void put_time(FILE *f, const uint8_t *b)
{
    unsigned v = (unsigned)b[0] << 8 | b[1];
    static const char *const edges[] = {"",       "0",   "-0.01", "1e308",
                                        "1e-308", "nan", "inf",   "5e-324"};
    if (v >= 0xfff8)
        fprintf(f, ",%s", edges[v - 0xfff8]);
    else
        fprintf(f, ",%.6g", (v + 1) * 1e-4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { ROW = 11, MAX_ROWS = 24 };
    if (size < 2)
        return 0;
    static const char *const models[] = {"tests/data/fit/tiny_a.ini", "tests/data/fit/tiny_b.ini",
                                         "tests/data/fit/tiny_c.ini"};
    static const char *const precisions[] = {"fp32", "bf16", "fp16", "tf32"};
    uint8_t flags = data[0], layout = data[1];
    const char *precision = precisions[layout & 3];
    char path[96];
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(2);
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,"
               "precision,energy_j\n");
    int rows = 0;
    for (size_t at = 2; at + ROW <= size && rows < MAX_ROWS; at += ROW, rows++) {
        const uint8_t *r = data + at;
        /* model, image, batch, nodes, devices per node */
        fprintf(f, "%s,%d,%d,%d,%d", models[r[0] % 3], (r[0] / 3 % 4 + 1) * 8, r[1] % 64 + 1,
                r[2] % 4 + 1, r[2] / 4 % 8 + 1);
        for (int k = 0; k < 4; k++)
            put_time(f, r + 3 + 2 * k);
        fprintf(f, ",,%s,", precision); /* t_step: left to the columns' sum */
        if (layout & 4)
            fprintf(f, "%d", r[1]);
        fputc('\n', f);
    }
    fclose(f);

    sm_status st;
    sm_runs *runs = NULL;
    if (sm_runs_read(path, &runs, &st) || sm_runs_select_precision(runs, NULL, &st) ||
        sm_runs_metrics(runs, reg, &st)) {
        sm_runs_free(runs);
        return 0;
    }
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = flags & 1 ? SM_FORM_CONVMETER : SM_FORM_DISPATCH;
    opt.relative = !(flags & 2);
    opt.nonneg = !(flags & 4);
    opt.weight_term = !!(flags & 8);
    opt.update_term = !!(flags & 16);
    opt.grad_form = flags & 32 ? SM_GRAD_LINEAR : SM_GRAD_RING;
    opt.contention = !(flags & 64);
    opt.grad_column = !!(flags & 128);
    opt.idle_watts = layout >> 4;

    sm_fit fit;
    if (sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0) {
        /* the coefficient file must read back as it was written */
        sm_fit_meta meta = {.device = "fuzz", .date = "2026-01-01", .source = "fuzz"};
        char coeffs[96];
        snprintf(coeffs, sizeof coeffs, "%s/coeffs.ini", dir);
        sm_fit back;
        sm_fit_meta meta_back;
        if (sm_fit_write(&fit, &meta, coeffs, &st) == 0 &&
            sm_fit_read(coeffs, &back, &meta_back, &st)) {
            fprintf(stderr, "fuzz_fit: a coefficient file written is refused: %s\n", st.msg);
            abort();
        }
    }
    if (sm_runs_models(runs) >= 2) {
        sm_loo loo;
        if (sm_fit_loo(runs, &opt, &loo, &st) == 0)
            sm_loo_free(&loo);
    }
    if (layout & 8) {
        sm_device_fit_result d;
        char out[96];
        snprintf(out, sizeof out, "%s/device.ini", dir);
        if (sm_device_fit(runs, reg, "h100", &d, &st) == 0 &&
            sm_device_fit_write(&d, path, out, &st) == 0) {
            sm_predictor *p = NULL;
            sm_device_options none = {0};
            if (sm_predictor_from_device_opts(out, &none, &p, &st)) {
                fprintf(stderr, "fuzz_fit: a device description written is refused: %s\n", st.msg);
                abort();
            }
            sm_predictor_free(p);
        }
    }
    sm_runs_free(runs);
    return 0;
}
