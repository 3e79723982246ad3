/* The coefficient file: INI with a [fit] section saying where the numbers come from (device,
 * date, source CSV, options, version, fitted range) and one section per phase with its named
 * coefficients and the statistics of its fit. Read back with inih; the names of the
 * coefficients are checked against the options, so a file edited by hand cannot silently
 * assign a coefficient to the wrong term.
 *
 * The ring form is hierarchical (intra-node and inter-node terms, each present when the fit saw
 * that level: multi_gpu and multi_node of [fit]). Files written before it have neither key; their
 * ring form is read as what it was fitted as, one flat ring over all devices (sm_fit.flat_ring),
 * whose c2_ring_bytes and c3_ring_steps still check against the names. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/ini_reader.h"
#include "util/precision.h"
#include "network/network_internal.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

/* The sections with coefficients: the time phases, then the energy phases ([energy_infer],
 * [energy_step]), whose terms are those of a time phase. */
#define N_SLOTS (SM_N_FIT_PHASES + SM_N_ENERGY)

static sm_phase_fit *slot_fit(sm_fit *fit, int s)
{
    return s < SM_N_FIT_PHASES ? &fit->phase[s] : &fit->energy[s - SM_N_FIT_PHASES];
}

static sm_phase slot_terms(int s)
{
    return s < SM_N_FIT_PHASES ? (sm_phase)s
                               : sm_energy_terms_phase((sm_energy_phase)(s - SM_N_FIT_PHASES));
}

static const char *slot_name(int s, char *buf, size_t len)
{
    if (s < SM_N_FIT_PHASES)
        snprintf(buf, len, "%s", sm_phase_name((sm_phase)s));
    else
        snprintf(buf, len, "energy_%s",
                 sm_energy_phase_name((sm_energy_phase)(s - SM_N_FIT_PHASES)));
    return buf;
}

/* ---- writing ---------------------------------------------------------------------------- */

static const char *yes_no(int v) { return v ? "yes" : "no"; }

/* "equation = c1_flops*b*F + ...", for people (the reader skips it); a long one goes on over
 * comment lines, since inih reads lines of at most 199 characters. */
static void write_equation(FILE *f, const sm_fit *fit, sm_phase ph, const char *first)
{
    char name[32], term[96];
    int column = fprintf(f, "equation = %s", first);
    for (int k = 0; sm_fit_term_name(fit, ph, k, name, sizeof name); k++) {
        int len = snprintf(term, sizeof term, "%s%s*%s", k || *first ? " + " : "", name,
                           sm_fit_term_formula(fit, ph, k));
        if ((k || *first) && column + len > 100)
            column = fprintf(f, "\n;         ") - 1;
        column += fprintf(f, "%s", term);
    }
    fprintf(f, "\n");
}

/* 0 where text reads back whole as an INI value: no control character (a line break would
 * start a line of its own, "[fit]" or a key), no " ;" (the rest a comment), no blank at either
 * end (the reader trims them); else -1 naming the key. */
static int ini_value(const char *path, const char *key, const char *text, sm_status *st)
{
    /* sm_escape_ini_value's rule: what it would escape does not read back */
    char *escaped = sm_escape_ini_value(text);
    int bad = !escaped || strcmp(escaped, text);
    free(escaped);
    if (!bad)
        return 0;
    char shown[400]; /* one line: control characters escaped */
    size_t n = strlen(text), k = 0;
    for (size_t i = 0; i < n && k + 8 < sizeof shown; i++) {
        unsigned char c = (unsigned char)text[i];
        k += sm_is_control(c) ? (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02x", c)
                              : (size_t)snprintf(shown + k, sizeof shown - k, "%c", c);
    }
    return sm_fail(st,
                   "%s: not written: its [fit] %s would not read back as given (a control "
                   "character, a blank at an end, or ' ;', which starts a comment): '%.120s'%s",
                   path, key, shown, k > 120 ? "..." : "");
}

static int fit_write(const sm_fit *fit, const sm_fit_meta *meta, const char *path, sm_status *st)
{
    if (ini_value(path, "device", meta->device, st) || ini_value(path, "source", meta->source, st))
        return -1;
    char tmp[4200];
    FILE *f = sm_atomic_open(path, tmp, sizeof tmp, NULL, st);
    if (!f)
        return -1;
    fprintf(f,
            "; scalemeter coefficient file, written by `scalemeter fit`; read by `scalemeter "
            "predict --coeffs`.\n"
            "; Times in seconds. Terms: flops = b F, inputs = b I, outputs = b O (F, I, O at "
            "batch 1,\n; b the per-device batch), intercept = 1, pass_weights = W, layers = L, "
            "update = W,\n; kernels = K (layers that do work), param_tensors = P;\n; linear form "
            "(N = nodes x gpus_per_node devices): weights = W [N>1], "
            "devices = N [N>1];\n; ring form (N nodes of G = gpus_per_node devices, k = "
            "ceil(4W / bucket)): intra_bytes =\n; 2(G-1)/G 4W, inter_bytes = 2(N-1)/N 4W/G, "
            "intra_steps = 2(G-1) k, inter_steps = 2(N-1) k,\n; the intra terms only when "
            "multi_gpu (rows with G > 1), the inter terms only when multi_node\n; (rows with "
            "N > 1); contention = log2(G) b F when contention (rows at two values of G or more);\n"
            "; intra_bytes_shared = log2(G) 2(G-1)/G 4W in place of intra_bytes when "
            "comm_contention\n; (CPU ranks, whose copies share one memory system).\n"
            "; Statistics are of the fit on its own points (MAPE a fraction).\n"
            "; [energy_infer] and [energy_step]: joules of one device, idle_watts x the phase's "
            "time\n; plus the terms of [infer] and of [bwd_grad] (docs/energy.md).\n\n");
    fprintf(f, "[fit]\ndevice = %s\ndate = %s\nsource = %s\nscalemeter = %s\nrows = %d\n",
            meta->device, meta->date, meta->source, meta->version, fit->rows);
    fprintf(f, "precision = %s\nform = %s\n", fit->precision[0] ? fit->precision : "fp32",
            fit->opt.form == SM_FORM_DISPATCH ? "dispatch" : "convmeter");
    fprintf(f,
            "weighting = %s\nnonneg = %s\ngrad_model = %s\nweight_term = %s\n"
            "update_term = %s\n",
            fit->opt.relative ? "relative" : "none", yes_no(fit->opt.nonneg),
            fit->opt.grad_form == SM_GRAD_RING ? "ring" : "linear", yes_no(fit->opt.weight_term),
            yes_no(fit->opt.update_term));
    fprintf(f,
            "bucket_mb = %.17g\nmulti_device = %s\nmulti_gpu = %s\nmulti_node = %s\n"
            "comm_unidentified = %s\ncontention = %s\ncomm_contention = %s\n",
            fit->opt.bucket_bytes / (1024.0 * 1024), yes_no(fit->multi_device),
            yes_no(fit->multi_gpu), yes_no(fit->multi_node), yes_no(fit->comm_unidentified),
            yes_no(fit->contention), yes_no(fit->comm_contention));
    fprintf(f,
            "batch_min = %lld\nbatch_max = %lld\nimage_min = %lld\nimage_max = %lld\n"
            "devices_max = %d\n",
            (long long)fit->batch_min, (long long)fit->batch_max, (long long)fit->image_min,
            (long long)fit->image_max, fit->devices_max);
    fprintf(f, "idle_watts = %.17g\n", fit->opt.idle_watts);
    if (sm_backend_name(fit->backend))
        fprintf(f, "backend = %s\n", sm_backend_name(fit->backend));
    if (fit->families) {
        fprintf(f, "families =");
        for (int k = 0, n = 0; k < SM_N_FAMILIES; k++)
            if (fit->families & (1u << k))
                fprintf(f, "%s%s", n++ ? "," : " ", sm_family_name((sm_family)k));
        fprintf(f, "\n");
    }
    for (int slot = 0; slot < N_SLOTS; slot++) {
        const sm_phase_fit *pf = slot_fit((sm_fit *)fit, slot);
        sm_phase ph = slot_terms(slot);
        if (!pf->fitted)
            continue;
        char section[32];
        fprintf(f, "\n[%s]\n", slot_name(slot, section, sizeof section));
        write_equation(f, fit, ph,
                       slot < SM_N_FIT_PHASES                      ? ""
                       : slot - SM_N_FIT_PHASES == SM_ENERGY_INFER ? "idle_watts*t_infer"
                                                                   : "idle_watts*t_step");
        char name[32];
        for (int k = 0; k < pf->n_coeffs; k++)
            fprintf(f, "%s = %.17g\n", sm_fit_term_name(fit, ph, k, name, sizeof name), pf->c[k]);
        for (int k = 0; k < pf->n_coeffs; k++)
            if (pf->dropped >> k & 1)
                fprintf(f,
                        "; %s: not identifiable from these rows (too few networks), left at "
                        "0\n",
                        sm_fit_term_name(fit, ph, k, name, sizeof name));
        fprintf(f, "points = %d\nrmse = %.6g\nnrmse = %.6g\nmape = %.6g\nr2 = %.6g\n", pf->stats.n,
                pf->stats.rmse, pf->stats.nrmse, pf->stats.mape, pf->stats.r2);
    }
    return sm_atomic_commit(f, tmp, path, st);
}

/* ---- reading ---------------------------------------------------------------------------- */

typedef struct reader {
    sm_ini_reader rd;
    const char *path;
    sm_fit *fit;
    sm_fit_meta *meta;
    int have[N_SLOTS][SM_MAX_COEFFS];
    char names[N_SLOTS][SM_MAX_COEFFS][40];
    int lines[N_SLOTS][SM_MAX_COEFFS];
    int stat_lines[N_SLOTS][5]; /* of points, rmse, nrmse, mape, r2 */
    int seen_fit;
    int seen_levels;       /* multi_gpu or multi_node given: not a file of the flat ring form */
    char fit_keys[64][40]; /* the keys of [fit] read so far, and their lines */
    int fit_lines[64], n_fit_keys;
    sm_status *st;
    int failed;
} reader;

/* Records "PATH:LINE: WHAT" and returns 0, which stops inih. */
static int fail_at(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_at(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return 0; /* inih reads on after an error: keep the first */
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    sm_fail(r->st, "%s:%d: %s", r->path, r->rd.line, what);
    r->failed = 1;
    return 0;
}

static int parse_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = sm_strtod(text, &end);
    /* ERANGE also flags underflow (1e-320), a value as good as its neighbour 0 */
    return end == text || *end || (errno == ERANGE && fabs(*out) >= 1) ? -1 : 0;
}

static int parse_int(const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    *out = strtoll(text, &end, 10);
    return end == text || *end || errno || *out < lo || *out > hi ? -1 : 0;
}

static int parse_flag(const char *text, const char *no, const char *yes, int *out)
{
    if (strcmp(text, yes) == 0)
        return *out = 1, 0;
    if (strcmp(text, no) == 0)
        return *out = 0, 0;
    return -1;
}

static int fit_key(reader *r, const char *key, const char *value)
{
    sm_fit *fit = r->fit;
    sm_fit_meta *meta = r->meta;
    long long v;
    double x;
    int flag;
    r->seen_fit = 1;
    /* a key given twice: the second would silently win (as a coefficient given twice is
     * refused); the first 64 keys are followed, more than a coefficient file writes */
    for (int k = 0; k < r->n_fit_keys; k++)
        if (!strcmp(r->fit_keys[k], key))
            return fail_at(r, "%s given twice in [fit] (first at line %d)", key, r->fit_lines[k]);
    if (r->n_fit_keys < 64 && strlen(key) < sizeof r->fit_keys[0]) {
        snprintf(r->fit_keys[r->n_fit_keys], sizeof r->fit_keys[0], "%s", key);
        r->fit_lines[r->n_fit_keys++] = r->rd.line;
    }
    if (!strcmp(key, "device"))
        snprintf(meta->device, sizeof meta->device, "%s", value);
    else if (!strcmp(key, "date"))
        snprintf(meta->date, sizeof meta->date, "%s", value);
    else if (!strcmp(key, "source"))
        snprintf(meta->source, sizeof meta->source, "%s", value);
    else if (!strcmp(key, "scalemeter"))
        snprintf(meta->version, sizeof meta->version, "%s", value);
    else if (!strcmp(key, "precision")) {
        if (sm_precision_parse(value) < 0)
            return fail_at(r, "precision = %s: expected fp32, tf32, fp16 or bf16", value);
        snprintf(fit->precision, sizeof fit->precision, "%s", value);
    } else if (!strcmp(key, "form")) {
        if (parse_flag(value, "convmeter", "dispatch", &flag))
            return fail_at(r, "form = %s: expected convmeter or dispatch", value);
        fit->opt.form = flag ? SM_FORM_DISPATCH : SM_FORM_CONVMETER;
    } else if (!strcmp(key, "weighting")) {
        if (parse_flag(value, "none", "relative", &fit->opt.relative))
            return fail_at(r, "weighting = %s: expected none or relative", value);
    } else if (!strcmp(key, "nonneg") || !strcmp(key, "weight_term") ||
               !strcmp(key, "update_term") || !strcmp(key, "multi_device") ||
               !strcmp(key, "multi_gpu") || !strcmp(key, "multi_node") ||
               !strcmp(key, "comm_unidentified") || !strcmp(key, "contention") ||
               !strcmp(key, "comm_contention")) {
        if (parse_flag(value, "no", "yes", &flag))
            return fail_at(r, "%s = %s: expected yes or no", key, value);
        r->seen_levels |= !strcmp(key, "multi_gpu") || !strcmp(key, "multi_node");
        *(!strcmp(key, "nonneg")            ? &fit->opt.nonneg
          : !strcmp(key, "weight_term")     ? &fit->opt.weight_term
          : !strcmp(key, "update_term")     ? &fit->opt.update_term
          : !strcmp(key, "multi_device")    ? &fit->multi_device
          : !strcmp(key, "multi_gpu")       ? &fit->multi_gpu
          : !strcmp(key, "multi_node")      ? &fit->multi_node
          : !strcmp(key, "contention")      ? &fit->contention
          : !strcmp(key, "comm_contention") ? &fit->comm_contention
                                            : &fit->comm_unidentified) = flag;
    } else if (!strcmp(key, "grad_model")) {
        if (parse_flag(value, "linear", "ring", &flag))
            return fail_at(r, "grad_model = %s: expected linear or ring", value);
        fit->opt.grad_form = flag ? SM_GRAD_RING : SM_GRAD_LINEAR;
    } else if (!strcmp(key, "bucket_mb")) {
        if (parse_real(value, &x) || !SM_BUCKET_MIB_OK(x))
            return fail_at(r, "bucket_mb = %s: expected a positive number from %g to %.0f", value,
                           SM_MIN_BUCKET_MIB, SM_MAX_BUCKET_MIB);
        fit->opt.bucket_bytes = x * 1024 * 1024;
    } else if (!strcmp(key, "idle_watts")) {
        if (parse_real(value, &x) || !(x >= 0 && x <= SM_MAX_IDLE_WATTS))
            return fail_at(r, "idle_watts = %s: expected watts from 0 to %.0f", value,
                           SM_MAX_IDLE_WATTS);
        fit->opt.idle_watts = x;
    } else if (!strcmp(key, "backend")) {
        if (parse_flag(value, "cpu", "gpu", &flag))
            return fail_at(r, "backend = %s: expected cpu or gpu", value);
        fit->backend = flag ? SM_BACKEND_GPU : SM_BACKEND_CPU;
    } else if (!strcmp(key, "families")) {
        fit->families = 0;
        for (const char *p = value; *p;) {
            size_t n = strcspn(p, ", ");
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)(n < 31 ? n : 31), p);
            int f = n ? sm_family_parse(name) : -1;
            if (f < 0)
                return fail_at(r,
                               "families = %s: expected names among cnn, transformer, "
                               "recurrent, mlp, separated by commas",
                               value);
            fit->families |= 1u << f;
            p += n;
            p += strspn(p, ", ");
        }
    } else if (!strcmp(key, "rows") || !strcmp(key, "devices_max") || !strcmp(key, "batch_min") ||
               !strcmp(key, "batch_max") || !strcmp(key, "image_min") ||
               !strcmp(key, "image_max")) {
        if (parse_int(value, 0, INT32_MAX, &v))
            return fail_at(r, "%s = %s: expected a non-negative integer", key, value);
        /* every row ran on a device at least: 0 devices is no file fit writes */
        if (!strcmp(key, "devices_max") && v < 1)
            return fail_at(r,
                           "devices_max = %s: expected at least 1 (the most devices a fitted "
                           "row ran on)",
                           value);
        if (!strcmp(key, "rows"))
            fit->rows = (int)v;
        else if (!strcmp(key, "devices_max"))
            fit->devices_max = (int)v;
        else
            *(!strcmp(key, "batch_min")   ? &fit->batch_min
              : !strcmp(key, "batch_max") ? &fit->batch_max
              : !strcmp(key, "image_min") ? &fit->image_min
                                          : &fit->image_max) = v;
    } else {
        /* a misspelt key read as a note once turned a bf16 calibration into fp32 silently */
        return fail_at(r,
                       "unknown key '%s' in [fit] (a misspelling? fit writes device, date, "
                       "source, scalemeter, rows, precision, form, weighting, nonneg, "
                       "grad_model, weight_term, update_term, bucket_mb, multi_device, "
                       "multi_gpu, multi_node, comm_unidentified, contention, comm_contention, "
                       "batch_min, batch_max, image_min, image_max, devices_max, families, "
                       "idle_watts, backend; notes go in ';' comments)",
                       key);
    }
    return 1;
}

static int phase_key(reader *r, int ph, const char *key, const char *value)
{
    sm_phase_fit *pf = slot_fit(r->fit, ph);
    char section[32];
    slot_name(ph, section, sizeof section);
    sm_fit_stats *s = &pf->stats;
    double x;
    long long v;
    pf->fitted = 1;
    if (!strcmp(key, "equation"))
        return 1;
    /* a statistic given twice: the second silently won ("4200 points" in every header) */
    static const char *const stats[] = {"points", "rmse", "nrmse", "mape", "r2"};
    for (int k = 0; k < 5; k++)
        if (!strcmp(key, stats[k])) {
            if (r->stat_lines[ph][k])
                return fail_at(r, "%s given twice in [%s] (first at line %d)", key, section,
                               r->stat_lines[ph][k]);
            r->stat_lines[ph][k] = r->rd.line;
        }
    if (!strcmp(key, "points")) {
        if (parse_int(value, 0, INT32_MAX, &v))
            return fail_at(r, "points = %s: expected a non-negative integer", value);
        s->n = (int)v;
        return 1;
    }
    double *stat = !strcmp(key, "rmse")    ? &s->rmse
                   : !strcmp(key, "nrmse") ? &s->nrmse
                   : !strcmp(key, "mape")  ? &s->mape
                   : !strcmp(key, "r2")    ? &s->r2
                                           : NULL;
    if (stat) {
        if (parse_real(value, stat))
            return fail_at(r, "%s = %s: expected a number", key, value);
        return 1;
    }
    long long k;
    const char *underscore = strchr(key, '_');
    char num[16];
    if (key[0] != 'c' || !underscore || underscore - key > 8)
        return fail_at(r, "unknown key '%s' in [%s]", key, section);
    snprintf(num, sizeof num, "%.*s", (int)(underscore - key - 1), key + 1);
    if (parse_int(num, 1, SM_MAX_COEFFS, &k))
        return fail_at(r, "unknown key '%s' in [%s]", key, section);
    if (parse_real(value, &x) || !isfinite(x))
        return fail_at(r, "%s = %s: expected a finite number", key, value);
    if (r->have[ph][k - 1])
        return fail_at(r, "%s given twice in [%s] (first at line %d)", key, section,
                       r->lines[ph][k - 1]);
    r->have[ph][k - 1] = 1;
    pf->c[k - 1] = x;
    snprintf(r->names[ph][k - 1], sizeof r->names[ph][k - 1], "%s", key);
    r->lines[ph][k - 1] = r->rd.line;
    return 1;
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
    reader *r = user;
    if (r->failed)
        return 0;
    if (!strcmp(section, "fit"))
        return fit_key(r, key, value);
    char name[32];
    for (int slot = 0; slot < N_SLOTS; slot++)
        if (!strcmp(section, slot_name(slot, name, sizeof name)))
            return phase_key(r, slot, key, value);
    char other[160];
    return fail_at(r,
                   "unknown section [%s] (expected fit, infer, fwd, bwd, grad, bwd_grad, "
                   "energy_infer, energy_step)%s",
                   section, sm_ini_other_kind(section, "a coefficient file", other, sizeof other));
}

/* The line of a [fit] key read, or 0. */
static int fit_key_line(const reader *r, const char *key)
{
    for (int k = 0; k < r->n_fit_keys; k++)
        if (!strcmp(r->fit_keys[k], key))
            return r->fit_lines[k];
    return 0;
}

/* The calibrated ranges the warnings quote: a minimum above its maximum ("a batch beyond the
 * calibrated range (100 to 64)") is no range fit writes. 0 is a bound not known. */
static int check_ranges(const reader *r)
{
    const sm_fit *fit = r->fit;
    const char *what[] = {"batch", "image"};
    const int64_t lo[] = {fit->batch_min, fit->image_min}, hi[] = {fit->batch_max, fit->image_max};
    for (int k = 0; k < 2; k++)
        if (lo[k] > 0 && hi[k] > 0 && lo[k] > hi[k]) {
            char key[16];
            snprintf(key, sizeof key, "%s_max", what[k]);
            return sm_fail(r->st, "%s:%d: %s_max = %lld is below %s_min = %lld", r->path,
                           fit_key_line(r, key), what[k], (long long)hi[k], what[k],
                           (long long)lo[k]);
        }
    return 0;
}

/* Once the whole file is read: the options decide the terms, so check each phase's names. */
static int check_terms(reader *r)
{
    sm_fit *fit = r->fit;
    /* a ring file without multi_gpu / multi_node predates the hierarchical form */
    fit->flat_ring = fit->opt.grad_form == SM_GRAD_RING && !r->seen_levels;
    for (int ph = 0; ph < N_SLOTS; ph++) {
        sm_phase_fit *pf = slot_fit(fit, ph);
        if (!pf->fitted)
            continue;
        char name[32], section[32];
        slot_name(ph, section, sizeof section);
        int n = 0;
        for (; sm_fit_term_name(fit, slot_terms(ph), n, name, sizeof name); n++) {
            if (!r->have[ph][n])
                return sm_fail(r->st, "%s: [%s] has no %s", r->path, section, name);
            if (strcmp(r->names[ph][n], name) != 0)
                return sm_fail(r->st,
                               "%s:%d: [%s] %s: expected %s here (form, grad_model, weight_term, "
                               "update_term, multi_device, multi_gpu, multi_node, contention and "
                               "comm_contention of "
                               "[fit] decide the terms%s)",
                               r->path, r->lines[ph][n], section, r->names[ph][n], name,
                               fit->flat_ring ? "; a ring file without multi_gpu and multi_node "
                                                "is of the flat ring form of older versions: "
                                                "refit it"
                                              : "");
        }
        for (int k = 0; k < n && fit->opt.nonneg; k++)
            if (pf->c[k] < 0)
                return sm_fail(r->st,
                               "%s:%d: [%s] %s = %g: negative, where [fit] says nonneg = yes "
                               "(fit writes no such file: refit, or say nonneg = no)",
                               r->path, r->lines[ph][k], section, r->names[ph][k], pf->c[k]);
        for (int k = n; k < SM_MAX_COEFFS; k++)
            if (r->have[ph][k])
                return sm_fail(r->st, "%s:%d: [%s] %s: this phase has %d coefficients", r->path,
                               r->lines[ph][k], section, r->names[ph][k], n);
        pf->n_coeffs = n;
    }
    return 0;
}

int sm_coeffs_find(const char *name, char *path, size_t len, sm_status *st)
{
    if (!name || !path)
        return sm_null_arg(st, __func__, !name ? "name" : "path");
    return sm_data_find("coefficient file", "configs/calibrations", name, NULL, path, len, st);
}

int sm_fit_read(const char *name, sm_fit *fit, sm_fit_meta *meta, sm_status *st)
{
    if (!name || !fit || !meta)
        return sm_null_arg(st, __func__, !name ? "path" : !fit ? "fit" : "meta");
    char path[4096];
    if (sm_coeffs_find(name, path, sizeof path, st))
        return -1;
    memset(fit, 0, sizeof *fit);
    memset(meta, 0, sizeof *meta);
    sm_fit_options_default(&fit->opt);
    fit->opt.form = SM_FORM_CONVMETER; /* files without a form key predate the dispatch form */
    snprintf(fit->precision, sizeof fit->precision, "fp32"); /* ... and the precision key */
    reader r = {0};
    r.path = path;
    r.fit = fit;
    r.meta = meta;
    r.st = st;
    if (sm_ini_parse(path, &r.rd, on_entry, &r, st))
        return -1;
    if (!r.seen_fit)
        return sm_fail(st, "%s: no [fit] section: not a coefficient file of scalemeter fit", path);
    int any = 0;
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++)
        any |= fit->phase[ph].fitted;
    if (!any)
        return sm_fail(st, "%s: no phase section ([infer], [fwd], ...)", path);
    return check_ranges(&r) || check_terms(&r) ? -1 : 0;
}

int sm_fit_write(const sm_fit *fit, const sm_fit_meta *meta, const char *path, sm_status *st)
{
    if (!fit || !meta || !path)
        return sm_null_arg(st, __func__, !fit ? "fit" : !meta ? "meta" : "path");
    sm_locale before = sm_locale_c_begin(); /* '.' in numbers, whatever the program's locale */
    int rc = fit_write(fit, meta, path, st);
    sm_locale_c_end(before);
    return rc;
}
