/* The library reads and writes numbers with '.' whatever locale the program that links it has
 * set. A program calling setlocale(LC_ALL, "") in a German locale (Qt and GTK programs do at
 * start) could read no shipped file: strtod stopped at the '.' ("h100.ini:17: peak_fp32_tflops
 * = 66.9: expected a number"), and fit's coefficients were written as "1,4e-11".
 *
 * Everything is done twice, in the C locale and then in LOCALE (a locale whose decimal point is
 * a comma; tests/core.cmake builds de_DE.UTF-8 with localedef), and must come out the same:
 * predictions of a calibration and of a device description, a runs CSV read, a network with a
 * real parameter, and the coefficient file fit writes, byte for byte.
 *
 * usage: test_locale LOCALE   (from the source root; exit 77 where LOCALE is not installed) */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "scalemeter/fit.h"
#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

typedef struct results {
    double t_coeffs, t_device;
    int rows, dropout_ok;
    char file[8192];
} results;

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

static void run(const sm_registry *reg, const char *out_path, results *r)
{
    sm_status st;
    sm_network *net = NULL;
    sm_network_options opt = {0};
    CHECK_MSG(sm_network_load(reg, "resnet18", &opt, &net, &st) == 0, "resnet18: %s", st.msg);
    sm_layout l = {.batch = 8, .nodes = 1, .gpus_per_node = 1, .accumulate = 1};
    sm_prediction t;
    sm_predictor *p = NULL;
    r->t_coeffs = r->t_device = -1;
    if (sm_predictor_from_coeffs("default", &p, &st) == 0 && sm_predict(p, net, &l, &t, &st) == 0)
        r->t_coeffs = t.t_step;
    else
        CHECK_MSG(0, "the default calibration: %s", st.msg);
    sm_predictor_free(p);
    if (sm_predictor_from_device("h100", &p, &st) == 0 && sm_predict(p, net, &l, &t, &st) == 0)
        r->t_device = t.t_step;
    else
        CHECK_MSG(0, "h100: %s", st.msg);
    sm_predictor_free(p);
    sm_network_free(net);

    /* a layer's real parameter: dropout p=0.25 */
    sm_network *drop = NULL;
    r->dropout_ok = sm_network_load(reg, "tests/data/locale/dropout.ini", &opt, &drop, &st) == 0;
    CHECK_MSG(r->dropout_ok, "dropout.ini: %s", st.msg);
    sm_network_free(drop);

    /* a runs CSV, fitted and written */
    sm_runs *runs = NULL;
    r->rows = -1;
    r->file[0] = '\0';
    if (sm_runs_read("configs/calibrations/cpu-amd-epyc-1thread.csv", &runs, &st) == 0 &&
        sm_runs_metrics(runs, reg, &st) == 0) {
        r->rows = runs->n;
        sm_fit_options o;
        sm_fit_options_default(&o);
        sm_fit fit;
        sm_fit_meta meta = {"test", "2026-01-01", "cpu-amd-epyc-1thread.csv", "test"};
        CHECK_MSG(sm_fit_runs(runs, NULL, &o, &fit, &st) == 0, "fit: %s", st.msg);
        CHECK_MSG(sm_fit_write(&fit, &meta, out_path, &st) == 0, "write: %s", st.msg);
        slurp(out_path, r->file, sizeof r->file);
    } else {
        CHECK_MSG(0, "cpu-amd-epyc-1thread.csv: %s", st.msg);
    }
    sm_runs_free(runs);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_locale LOCALE\n");
        return 2;
    }
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    char dir[] = "/tmp/test_locale.XXXXXX", c_path[64], l_path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(c_path, sizeof c_path, "%s/c.ini", dir);
    snprintf(l_path, sizeof l_path, "%s/locale.ini", dir);
    static results in_c, in_locale;
    run(reg, c_path, &in_c);
    CHECK(in_c.t_coeffs > 0 && in_c.t_device > 0 && in_c.rows > 0 && in_c.file[0]);

    if (!setlocale(LC_ALL, argv[1])) {
        printf("locale %s is not installed: skipped\n", argv[1]);
        remove(c_path);
        rmdir(dir);
        sm_registry_free(reg);
        return 77;
    }
    CHECK_STR_EQ(localeconv()->decimal_point, ","); /* the locale this test is about */
    run(reg, l_path, &in_locale);
    CHECK(in_locale.t_coeffs == in_c.t_coeffs);
    CHECK(in_locale.t_device == in_c.t_device);
    CHECK_EQ(in_locale.rows, in_c.rows);
    CHECK(in_locale.dropout_ok);
    CHECK_MSG(!strcmp(in_locale.file, in_c.file),
              "the coefficient file written in %s differs from the C locale's", argv[1]);
    /* and the program's own printf still uses its locale: the library put it back */
    char buf[16];
    snprintf(buf, sizeof buf, "%.1f", 0.5);
    CHECK_STR_EQ(buf, "0,5");
    remove(c_path);
    remove(l_path);
    rmdir(dir);
    sm_registry_free(reg);
    return check_summary();
}
