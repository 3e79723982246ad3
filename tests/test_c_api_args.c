/* The C API against a caller's bad arguments (scalemeter.h's pointer contract): every function
 * that reports through an sm_status, called with each required pointer NULL in turn, fails
 * with -1 (or NULL) and "FUNCTION: ARG is NULL" instead of crashing; functions without a
 * status return their documented failure value; the *_free functions take NULL. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "scalemeter/comm.h"
#include "scalemeter/curve.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "scalemeter/memory.h"
#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

static sm_status st;

/* rc is -1 and st.msg is exactly "fn: arg is NULL" (st.msg was set to a marker before). */
static void expect_null_arg(int rc, const char *fn, const char *arg, int line)
{
    char want[256];
    snprintf(want, sizeof want, "%s: %s is NULL", fn, arg);
    CHECK_MSG(rc == -1, "line %d: %s with %s NULL returned %d, expected -1", line, fn, arg, rc);
    CHECK_MSG(strcmp(st.msg, want) == 0, "line %d: message \"%s\", expected \"%s\"", line, st.msg,
              want);
}

/* Marks st.msg, makes the call and checks its answer. */
#define NULL_ARG(fn, arg, call)                                                                    \
    do {                                                                                           \
        snprintf(st.msg, sizeof st.msg, "not set");                                                \
        expect_null_arg((call), fn, arg, __LINE__);                                                \
    } while (0)

int main(void)
{
    sm_registry *reg = NULL;
    sm_network *net = NULL;
    sm_predictor *pred = NULL;
    if (sm_registry_open(&reg, &st))
        check_fatal(__FILE__, __LINE__, "%s", st.msg);
    if (sm_network_load(reg, "examples/tiny_resnet.ini", NULL, &net, &st))
        check_fatal(__FILE__, __LINE__, "%s", st.msg);
    if (sm_predictor_from_device("h100", &pred, &st))
        check_fatal(__FILE__, __LINE__, "%s", st.msg);
    const sm_layer_type *conv = sm_registry_find(reg, "conv2d");
    CHECK(conv != NULL);

    char path[4096], tmp[4096];
    sm_metrics m;
    sm_layout layout = {.batch = 2, .nodes = 1, .gpus_per_node = 1};
    sm_prediction p;
    sm_memory mem;
    sm_memory_config mc;
    CHECK_EQ(sm_predictor_memory_config(pred, &mc), 0);
    double t[64];
    int64_t batch;
    sm_allreduce_estimate est;
    const struct sm_gpu_kernels *gpu;
    const struct sm_cpu_kernels *cpu;

    /* ---- scalemeter.h -------------------------------------------------------------------- */
    snprintf(st.msg, sizeof st.msg, "not set");
    CHECK(sm_atomic_open(NULL, tmp, sizeof tmp, NULL, &st) == NULL);
    CHECK_STR_EQ(st.msg, "sm_atomic_open: path is NULL");
    snprintf(st.msg, sizeof st.msg, "not set");
    CHECK(sm_atomic_open("/dev/null", NULL, sizeof tmp, NULL, &st) == NULL);
    CHECK_STR_EQ(st.msg, "sm_atomic_open: tmp is NULL");
    NULL_ARG("sm_atomic_commit", "f", sm_atomic_commit(NULL, "", "/dev/null", &st));
    /* f is closed whatever else is missing, as on every failure (LeakSanitizer sees a FILE
     * left open) */
    NULL_ARG("sm_atomic_commit", "tmp", sm_atomic_commit(fopen("/dev/null", "w"), NULL, "x", &st));
    NULL_ARG("sm_atomic_commit", "path", sm_atomic_commit(fopen("/dev/null", "w"), "", NULL, &st));

    NULL_ARG("sm_registry_open", "out", sm_registry_open(NULL, &st));
    NULL_ARG("sm_registry_load_all", "reg", sm_registry_load_all(NULL, &st));
    NULL_ARG("sm_registry_load_dir", "reg", sm_registry_load_dir(NULL, ".", &st));
    NULL_ARG("sm_registry_load_dir", "dir", sm_registry_load_dir(reg, NULL, &st));
    NULL_ARG("sm_registry_load_file", "reg", sm_registry_load_file(NULL, "x.so", &st));
    NULL_ARG("sm_registry_load_file", "path", sm_registry_load_file(reg, NULL, &st));
    gpu = (const void *)&st;
    NULL_ARG("sm_registry_gpu_kernels", "reg", sm_registry_gpu_kernels(NULL, conv, &gpu, &st));
    CHECK(gpu == NULL); /* *out cleared before the others are checked */
    NULL_ARG("sm_registry_gpu_kernels", "type", sm_registry_gpu_kernels(reg, NULL, &gpu, &st));
    NULL_ARG("sm_registry_gpu_kernels", "out", sm_registry_gpu_kernels(reg, conv, NULL, &st));
    NULL_ARG("sm_registry_cpu_kernels", "reg", sm_registry_cpu_kernels(NULL, conv, &cpu, &st));
    NULL_ARG("sm_registry_cpu_kernels", "type", sm_registry_cpu_kernels(reg, NULL, &cpu, &st));
    NULL_ARG("sm_registry_cpu_kernels", "out", sm_registry_cpu_kernels(reg, conv, NULL, &st));

    NULL_ARG("sm_network_find", "model", sm_network_find(NULL, path, sizeof path, &st));
    NULL_ARG("sm_network_find", "path", sm_network_find("resnet18", NULL, sizeof path, &st));
    sm_network *loaded = (sm_network *)&st; /* a stale value the call must clear */
    NULL_ARG("sm_network_load", "reg", sm_network_load(NULL, "resnet18", NULL, &loaded, &st));
    CHECK(loaded == NULL);
    NULL_ARG("sm_network_load", "model", sm_network_load(reg, NULL, NULL, &loaded, &st));
    NULL_ARG("sm_network_load", "out", sm_network_load(reg, "resnet18", NULL, NULL, &st));

    NULL_ARG("sm_network_metrics", "net", sm_network_metrics(NULL, 1, &m, &st));
    NULL_ARG("sm_network_metrics", "out", sm_network_metrics(net, 1, NULL, &st));
    NULL_ARG("sm_block_metrics", "net", sm_block_metrics(NULL, 0, 1, &m, &st));
    NULL_ARG("sm_block_metrics", "out", sm_block_metrics(net, 0, 1, NULL, &st));
    NULL_ARG("sm_blocks_metrics", "net", sm_blocks_metrics(NULL, 1, &m, &st));
    NULL_ARG("sm_blocks_metrics", "out", sm_blocks_metrics(net, 1, NULL, &st));
    NULL_ARG("sm_layer_metrics_at", "layer", sm_layer_metrics_at(NULL, 1, &m, &st));
    NULL_ARG("sm_layer_metrics_at", "out", sm_layer_metrics_at(&net->layers[0], 1, NULL, &st));

    /* without a status: the documented failure values */
    CHECK_EQ(sm_registry_count(NULL), -1);
    CHECK(sm_registry_type(NULL, 0) == NULL);
    CHECK(sm_registry_path(NULL, 0) == NULL);
    CHECK(sm_registry_find(NULL, "relu") == NULL);
    CHECK(sm_registry_find(reg, NULL) == NULL);
    CHECK(sm_network_layer(NULL, "conv1") == NULL);
    CHECK(sm_network_layer(net, NULL) == NULL);
    CHECK_EQ(sm_family_parse(NULL), -1);
    errno = 0;
    CHECK_EQ(sm_atomic_rename(NULL), -1); /* rename's result: -1 with errno set */
    CHECK_EQ(errno, EINVAL);

    /* ---- predict.h, memory.h ------------------------------------------------------------- */
    sm_predictor *made = NULL;
    NULL_ARG("sm_predictor_from_coeffs", "path", sm_predictor_from_coeffs(NULL, &made, &st));
    NULL_ARG("sm_predictor_from_coeffs", "out", sm_predictor_from_coeffs("default", NULL, &st));
    NULL_ARG("sm_predictor_from_coeffs_opts", "path",
             sm_predictor_from_coeffs_opts(NULL, 1, &made, &st));
    NULL_ARG("sm_predictor_from_coeffs_opts", "out",
             sm_predictor_from_coeffs_opts("default", 1, NULL, &st));
    NULL_ARG("sm_predictor_from_device", "name_or_path",
             sm_predictor_from_device(NULL, &made, &st));
    NULL_ARG("sm_predictor_from_device", "out", sm_predictor_from_device("h100", NULL, &st));
    CHECK(made == NULL);
    NULL_ARG("sm_predictor_check_precision", "p", sm_predictor_check_precision(NULL, "fp32", &st));
    NULL_ARG("sm_layout_check", "l", sm_layout_check(NULL, &st));

    NULL_ARG("sm_predict", "p", sm_predict(NULL, net, &layout, &p, &st));
    NULL_ARG("sm_predict", "net", sm_predict(pred, NULL, &layout, &p, &st));
    NULL_ARG("sm_predict", "layout", sm_predict(pred, net, NULL, &p, &st));
    NULL_ARG("sm_predict", "out", sm_predict(pred, net, &layout, NULL, &st));
    NULL_ARG("sm_predict_block", "p", sm_predict_block(NULL, net, 0, &layout, t, &st));
    NULL_ARG("sm_predict_block", "net", sm_predict_block(pred, NULL, 0, &layout, t, &st));
    NULL_ARG("sm_predict_block", "layout", sm_predict_block(pred, net, 0, NULL, t, &st));
    NULL_ARG("sm_predict_block", "t_fwd", sm_predict_block(pred, net, 0, &layout, NULL, &st));
    NULL_ARG("sm_predict_blocks", "p", sm_predict_blocks(NULL, net, &layout, t, &st));
    NULL_ARG("sm_predict_blocks", "net", sm_predict_blocks(pred, NULL, &layout, t, &st));
    NULL_ARG("sm_predict_blocks", "layout", sm_predict_blocks(pred, net, NULL, t, &st));
    NULL_ARG("sm_predict_blocks", "t_fwd", sm_predict_blocks(pred, net, &layout, NULL, &st));

    NULL_ARG("sm_network_memory", "net", sm_network_memory(NULL, 1, 1, 1, &mc, &mem, &st));
    NULL_ARG("sm_network_memory", "c", sm_network_memory(net, 1, 1, 1, NULL, &mem, &st));
    NULL_ARG("sm_network_memory", "out", sm_network_memory(net, 1, 1, 1, &mc, NULL, &st));
    NULL_ARG("sm_network_max_batch", "net", sm_network_max_batch(NULL, 1, 1, &mc, &batch, &st));
    NULL_ARG("sm_network_max_batch", "c", sm_network_max_batch(net, 1, 1, NULL, &batch, &st));
    NULL_ARG("sm_network_max_batch", "out", sm_network_max_batch(net, 1, 1, &mc, NULL, &st));
    NULL_ARG("sm_predict_memory", "p", sm_predict_memory(NULL, net, &layout, 1, &mem, &st));
    NULL_ARG("sm_predict_memory", "net", sm_predict_memory(pred, NULL, &layout, 1, &mem, &st));
    NULL_ARG("sm_predict_memory", "layout", sm_predict_memory(pred, net, NULL, 1, &mem, &st));
    NULL_ARG("sm_predict_memory", "out", sm_predict_memory(pred, net, &layout, 1, NULL, &st));

    CHECK(sm_predictor_describe(NULL) == NULL);
    CHECK(sm_predictor_describe_for(NULL, 1) == NULL);
    CHECK(sm_predictor_precision(NULL) == NULL);
    CHECK_EQ(sm_predictor_memory_config(NULL, &mc), -1);
    CHECK_EQ(sm_predictor_memory_config(pred, NULL), -1);
    sm_predictor_set_optimizer(NULL, SM_OPTIMIZER_ADAM); /* nothing to set: no crash */
    CHECK_EQ(sm_optimizer_parse(NULL), -1);
    CHECK_EQ(sm_shard_parse(NULL), -1);
    CHECK_EQ(sm_checkpoint_parse(NULL), -1);

    /* ---- device.h, curve.h, comm.h ------------------------------------------------------- */
    NULL_ARG("sm_device_find", "name_or_path", sm_device_find(NULL, path, sizeof path, &st));
    NULL_ARG("sm_device_find", "path", sm_device_find("h100", NULL, sizeof path, &st));
    NULL_ARG("sm_predictor_from_device_opts", "name_or_path",
             sm_predictor_from_device_opts(NULL, NULL, &made, &st));
    NULL_ARG("sm_predictor_from_device_opts", "out",
             sm_predictor_from_device_opts("h100", NULL, NULL, &st));
    made = (sm_predictor *)&st; /* a stale value the call must clear */
    NULL_ARG("sm_predictor_from_coeffs_device", "coeffs_path",
             sm_predictor_from_coeffs_device(NULL, "h100", NULL, &made, &st));
    CHECK(made == NULL);
    NULL_ARG("sm_predictor_from_coeffs_device", "device",
             sm_predictor_from_coeffs_device("default", NULL, NULL, &made, &st));
    NULL_ARG("sm_predictor_from_coeffs_device", "out",
             sm_predictor_from_coeffs_device("default", "h100", NULL, NULL, &st));
    NULL_ARG("sm_predictor_allreduce", "p", sm_predictor_allreduce(NULL, net, &layout, &est, &st));
    NULL_ARG("sm_predictor_allreduce", "net",
             sm_predictor_allreduce(pred, NULL, &layout, &est, &st));
    NULL_ARG("sm_predictor_allreduce", "layout",
             sm_predictor_allreduce(pred, net, NULL, &est, &st));
    NULL_ARG("sm_predictor_allreduce", "out",
             sm_predictor_allreduce(pred, net, &layout, NULL, &st));
    sm_device_info info;
    NULL_ARG("sm_device_describe", "name_or_path", sm_device_describe(NULL, &info, &st));
    NULL_ARG("sm_device_describe", "out", sm_device_describe("h100", NULL, &st));
    static sm_runs runs;
    static sm_device_fit_result dfit;
    NULL_ARG("sm_device_fit", "runs", sm_device_fit(NULL, reg, "h100", &dfit, &st));
    NULL_ARG("sm_device_fit", "reg", sm_device_fit(&runs, NULL, "h100", &dfit, &st));
    NULL_ARG("sm_device_fit", "base", sm_device_fit(&runs, reg, NULL, &dfit, &st));
    NULL_ARG("sm_device_fit", "out", sm_device_fit(&runs, reg, "h100", NULL, &st));
    NULL_ARG("sm_device_fit_write", "fit", sm_device_fit_write(NULL, "runs.csv", "x.ini", &st));
    NULL_ARG("sm_device_fit_write", "source", sm_device_fit_write(&dfit, NULL, "x.ini", &st));
    NULL_ARG("sm_device_fit_write", "path", sm_device_fit_write(&dfit, "runs.csv", NULL, &st));
    CHECK_EQ(sm_predictor_devices_per_node(NULL), -1);
    CHECK(isnan(sm_predictor_peak_flops(NULL)));
    CHECK(isnan(sm_predictor_power_limit(NULL)));

    /* the warnings of a predictor (a coefficient file's, the kind that has any): -1 for a NULL
     * p, layout, net or buf, with buf emptied where it is given */
    sm_predictor *fitted = NULL;
    if (sm_predictor_from_coeffs("default", &fitted, &st))
        check_fatal(__FILE__, __LINE__, "%s", st.msg);
    char warn[256] = "stale";
    CHECK_EQ(sm_predictor_warning(NULL, &layout, warn, sizeof warn), -1);
    CHECK_STR_EQ(warn, "");
    snprintf(warn, sizeof warn, "stale");
    CHECK_EQ(sm_predictor_warning(fitted, NULL, warn, sizeof warn), -1);
    CHECK_STR_EQ(warn, "");
    CHECK_EQ(sm_predictor_warning(fitted, &layout, NULL, 64), -1);
    CHECK_EQ(sm_predictor_warning(fitted, &layout, NULL, 0), 0); /* nothing to write into */
    CHECK(sm_predictor_warning(fitted, &layout, warn, sizeof warn) >= 0);
    snprintf(warn, sizeof warn, "stale");
    CHECK_EQ(sm_predictor_network_warning(NULL, net, warn, sizeof warn), -1);
    CHECK_STR_EQ(warn, "");
    snprintf(warn, sizeof warn, "stale");
    CHECK_EQ(sm_predictor_network_warning(fitted, NULL, warn, sizeof warn), -1);
    CHECK_STR_EQ(warn, "");
    CHECK_EQ(sm_predictor_network_warning(fitted, net, NULL, 64), -1);
    CHECK(sm_predictor_network_warning(fitted, net, warn, sizeof warn) >= 0);
    sm_predictor_free(fitted);

    const int nodes[] = {1, 2};
    sm_curve_spec spec = {.batch = 2,
                          .gpus_per_node = 1,
                          .nodes = nodes,
                          .n_nodes = 2,
                          .threshold = SM_DEFAULT_THRESHOLD};
    sm_curve curve;
    NULL_ARG("sm_curve_compute", "p", sm_curve_compute(NULL, net, &spec, &curve, &st));
    CHECK(curve.points == NULL && curve.n_points == 0); /* out is emptied first */
    NULL_ARG("sm_curve_compute", "net", sm_curve_compute(pred, NULL, &spec, &curve, &st));
    NULL_ARG("sm_curve_compute", "spec", sm_curve_compute(pred, net, NULL, &curve, &st));
    NULL_ARG("sm_curve_compute", "out", sm_curve_compute(pred, net, &spec, NULL, &st));
    spec.nodes = NULL;
    NULL_ARG("sm_curve_compute", "spec->nodes", sm_curve_compute(pred, net, &spec, &curve, &st));

    static sm_comm_runs comm;
    static sm_comm_fit_result cfit;
    NULL_ARG("sm_comm_runs_read", "runs", sm_comm_runs_read(NULL, "x.txt", 0, NULL, &st));
    NULL_ARG("sm_comm_runs_read", "path", sm_comm_runs_read(&comm, NULL, 0, NULL, &st));
    NULL_ARG("sm_comm_fit", "runs", sm_comm_fit(NULL, 0, NULL, NULL, &cfit, &st));
    NULL_ARG("sm_comm_fit", "out", sm_comm_fit(&comm, 0, NULL, NULL, NULL, &st));
    NULL_ARG("sm_comm_fit_write_device", "fit",
             sm_comm_fit_write_device(NULL, "h100", "a.txt", "x.ini", &st));
    NULL_ARG("sm_comm_fit_write_device", "base",
             sm_comm_fit_write_device(&cfit, NULL, "a.txt", "x.ini", &st));
    NULL_ARG("sm_comm_fit_write_device", "sources",
             sm_comm_fit_write_device(&cfit, "h100", NULL, "x.ini", &st));
    NULL_ARG("sm_comm_fit_write_device", "path",
             sm_comm_fit_write_device(&cfit, "h100", "a.txt", NULL, &st));
    sm_allreduce_layout al = {.nodes = 1, .gpus_per_node = 8};
    const double bytes[] = {1e6};
    NULL_ARG("sm_device_allreduce", "device", sm_device_allreduce(NULL, &al, bytes, 1, &est, &st));
    NULL_ARG("sm_device_allreduce", "layout",
             sm_device_allreduce("h100", NULL, bytes, 1, &est, &st));
    NULL_ARG("sm_device_allreduce", "bytes", sm_device_allreduce("h100", &al, NULL, 1, &est, &st));
    NULL_ARG("sm_device_allreduce", "out", sm_device_allreduce("h100", &al, bytes, 1, NULL, &st));
    /* n = 0 needs neither bytes nor out: the description is still read and checked */
    CHECK_EQ(sm_device_allreduce("h100", &al, NULL, 0, NULL, &st), 0);

    /* ---- fit.h ----------------------------------------------------------------------------- */
    sm_runs *read = NULL;
    NULL_ARG("sm_runs_read", "path", sm_runs_read(NULL, &read, &st));
    NULL_ARG("sm_runs_read", "out", sm_runs_read("tests/data/fit/oom_rows.csv", NULL, &st));
    NULL_ARG("sm_runs_select_precision", "runs", sm_runs_select_precision(NULL, "fp32", &st));
    NULL_ARG("sm_runs_metrics", "runs", sm_runs_metrics(NULL, reg, &st));
    NULL_ARG("sm_runs_metrics", "reg", sm_runs_metrics(&runs, NULL, &st));
    CHECK_EQ(sm_runs_models(NULL), -1);
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    static sm_fit fit; /* large: not on the stack */
    static sm_fit_meta meta;
    NULL_ARG("sm_fit_runs", "runs", sm_fit_runs(NULL, NULL, &opt, &fit, &st));
    NULL_ARG("sm_fit_runs", "opt", sm_fit_runs(&runs, NULL, NULL, &fit, &st));
    NULL_ARG("sm_fit_runs", "out", sm_fit_runs(&runs, NULL, &opt, NULL, &st));
    const double A[] = {1, 2}, b[] = {1, 2};
    double x[1];
    NULL_ARG("sm_lstsq", "A", sm_lstsq(NULL, b, 2, 1, 0, x, &st));
    NULL_ARG("sm_lstsq", "b", sm_lstsq(A, NULL, 2, 1, 0, x, &st));
    NULL_ARG("sm_lstsq", "x", sm_lstsq(A, b, 2, 1, 0, NULL, &st));
    NULL_ARG("sm_fit_write", "fit", sm_fit_write(NULL, &meta, "x.ini", &st));
    NULL_ARG("sm_fit_write", "meta", sm_fit_write(&fit, NULL, "x.ini", &st));
    NULL_ARG("sm_fit_write", "path", sm_fit_write(&fit, &meta, NULL, &st));
    NULL_ARG("sm_fit_read", "path", sm_fit_read(NULL, &fit, &meta, &st));
    NULL_ARG("sm_fit_read", "fit", sm_fit_read("default", NULL, &meta, &st));
    NULL_ARG("sm_fit_read", "meta", sm_fit_read("default", &fit, NULL, &st));
    NULL_ARG("sm_coeffs_find", "name", sm_coeffs_find(NULL, path, sizeof path, &st));
    NULL_ARG("sm_coeffs_find", "path", sm_coeffs_find("default", NULL, sizeof path, &st));
    sm_loo loo;
    NULL_ARG("sm_fit_loo", "runs", sm_fit_loo(NULL, &opt, &loo, &st));
    NULL_ARG("sm_fit_loo", "opt", sm_fit_loo(&runs, NULL, &loo, &st));
    NULL_ARG("sm_fit_loo", "out", sm_fit_loo(&runs, &opt, NULL, &st));
    double mape[2];
    NULL_ARG("sm_fit_choose_weight_term", "runs",
             sm_fit_choose_weight_term(NULL, &opt, mape, NULL, &st));
    NULL_ARG("sm_fit_choose_weight_term", "opt",
             sm_fit_choose_weight_term(&runs, NULL, mape, NULL, &st));
    NULL_ARG("sm_fit_choose_weight_term", "mape",
             sm_fit_choose_weight_term(&runs, &opt, NULL, NULL, &st));

    /* ---- a path buffer too small: refused naming the model, never a path cut short ---------- */
    char small[16];
    snprintf(st.msg, sizeof st.msg, "not set");
    CHECK_EQ(sm_network_find("resnet18", small, sizeof small, &st), -1);
    CHECK_CONTAINS(st.msg, "model 'resnet18': the buffer of 16 bytes is too small for its path ");
    CHECK_CONTAINS(st.msg, "/models/resnet18.ini (");
    /* a path given (which fit 10 bytes, cut short, and was returned as found) */
    const char *given = "examples/tiny_resnet.ini"; /* 24 characters */
    CHECK_EQ(sm_network_find(given, small, sizeof small, &st), -1);
    CHECK_STR_EQ(st.msg, "model 'examples/tiny_resnet.ini': the buffer of 16 bytes is too small "
                         "for its path examples/tiny_resnet.ini (25 bytes with the terminating "
                         "NUL)");
    char exact[25];
    CHECK_EQ(sm_network_find(given, exact, 24, &st), -1); /* no room for the NUL */
    CHECK_EQ(sm_network_find(given, exact, sizeof exact, &st), 0);
    CHECK_STR_EQ(exact, given);
    /* a name found whole fits as before, and the other finders share the check */
    CHECK_EQ(sm_network_find("resnet18", path, sizeof path, &st), 0);
    CHECK_CONTAINS(path, "/models/resnet18.ini");
    CHECK_EQ(sm_device_find("h100", small, sizeof small, &st), -1);
    CHECK_CONTAINS(st.msg, "device 'h100': the buffer of 16 bytes is too small");
    CHECK_EQ(sm_coeffs_find("default", small, sizeof small, &st), -1);
    CHECK_CONTAINS(st.msg, "coefficient file 'default': the buffer of 16 bytes is too small");
    /* a name that is nowhere is still unknown, whatever the buffer */
    CHECK_EQ(sm_network_find("no_such_model", small, sizeof small, &st), -1);
    CHECK_CONTAINS(st.msg, "unknown model 'no_such_model'");

    /* ---- sm_network_options.image: > 0 sets the size, 0 keeps the file's, < 0 is refused --- */
    sm_network_options image = {.image = -5};
    loaded = (sm_network *)&st;
    snprintf(st.msg, sizeof st.msg, "not set");
    CHECK_EQ(sm_network_load(reg, "examples/tiny_resnet.ini", &image, &loaded, &st), -1);
    CHECK(loaded == NULL);
    CHECK_STR_EQ(st.msg, "sm_network_load: image -5 is negative (> 0 sets the input's height and "
                         "width, or its sequence length; 0 keeps the network file's)");
    image.image = INT64_MIN; /* printed whole, not wrapped */
    CHECK_EQ(sm_network_load(reg, "examples/tiny_resnet.ini", &image, &loaded, &st), -1);
    CHECK_CONTAINS(st.msg, "image -9223372036854775808 is negative");
    image.image = 0; /* the file's own 3x32x32 */
    CHECK_EQ(sm_network_load(reg, "examples/tiny_resnet.ini", &image, &loaded, &st), 0);
    CHECK_EQ(sm_network_image(loaded), 32);
    sm_network_free(loaded);
    image.image = 64;
    CHECK_EQ(sm_network_load(reg, "examples/tiny_resnet.ini", &image, &loaded, &st), 0);
    CHECK_EQ(loaded->input.dim[1], 64);
    CHECK_EQ(loaded->input.dim[2], 64);
    sm_network_free(loaded);

    /* ---- sm_network_options.kv_cache: every attention layer read with kv_cache=true -------- */
    /* GPT-2 small's first attention keeps its packed c_attn output whole to the pass's end: 3 x
     * 1024 positions x 768 = 2,359,296 elements a sample; none as the zoo's file says */
    sm_network_options cache = {.kv_cache = 1};
    CHECK_EQ(sm_network_load(reg, "gpt2", &cache, &loaded, &st), 0);
    const sm_layer *attn = sm_network_layer(loaded, "h.0.attn");
    CHECK(attn != NULL);
    CHECK_EQ(attn ? attn->saved.infer_kept_elems : -1, 2359296);
    sm_network_free(loaded);
    cache.kv_cache = 0;
    CHECK_EQ(sm_network_load(reg, "gpt2", &cache, &loaded, &st), 0);
    attn = sm_network_layer(loaded, "h.0.attn");
    CHECK_EQ(attn ? attn->saved.infer_kept_elems : -1, 0);
    sm_network_free(loaded);

    /* ---- the *_free functions take NULL ---------------------------------------------------- */
    sm_registry_free(NULL);
    sm_network_free(NULL);
    sm_predictor_free(NULL);
    sm_curve_free(NULL);
    sm_comm_runs_free(NULL);
    sm_runs_free(NULL);
    sm_loo_free(NULL);

    /* what still works after all this: the objects are untouched */
    CHECK_EQ(sm_network_metrics(net, 2, &m, &st), 0);
    CHECK_EQ(m.weights, 24666);

    sm_predictor_free(pred);
    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
