/*
 * scalemeter/fit.h: calibration from measurements, in the order a program uses it.
 *
 *   sm_runs_read        the measurement CSV (docs/calibration.md) into rows
 *   sm_runs_metrics     each row's network metrics (F, I, O, W, L at batch 1, its image size)
 *   sm_fit_runs         least-squares coefficients of every phase (ConvMeter eq. 3 and 3.3)
 *   sm_fit_write/read   the coefficient file (INI)
 *   sm_fit_loo          leave-one-model-out validation
 *
 * Every function that can fail returns 0 on success and -1 with a one-line message in an
 * sm_status naming the file and line, or the phase, on failure; nothing here prints. The
 * functions that evaluate a fit or a row (sm_run_target, sm_fit_terms, sm_fit_eval, ...) take
 * no status and require their pointers; the rest follow scalemeter.h's pointer contract.
 */
#ifndef SCALEMETER_FIT_H
#define SCALEMETER_FIT_H

#include "scalemeter/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phases with their own coefficients, then the step (fwd + bwd + grad), validated only. */
typedef enum sm_phase {
    SM_PHASE_INFER,
    SM_PHASE_FWD,
    SM_PHASE_BWD,
    SM_PHASE_GRAD,
    SM_PHASE_BWD_GRAD, /* backward and gradient update fitted together (they overlap) */
    SM_PHASE_STEP,
    SM_N_PHASES
} sm_phase;
#define SM_N_FIT_PHASES SM_PHASE_STEP

/* "infer", "fwd", "bwd", "grad", "bwd_grad", "step". */
const char *sm_phase_name(sm_phase ph);

/* ---- measurements ----------------------------------------------------------------------- */

/* The measurement CSV's columns (docs/calibration.md), in the order `bench` writes them: the
 * ten a reader needs (model ... t_step), what the CPU backend adds (through status), then what
 * the GPU backend adds. A reader finds columns by name and ignores those it does not know;
 * status (ok, oom), precision (fp32 when absent) and the energies are read where present. */
typedef enum sm_run_column {
    SM_COL_MODEL,
    SM_COL_IMAGE,
    SM_COL_BATCH,
    SM_COL_NODES,
    SM_COL_GPUS,
    SM_COL_INFER,
    SM_COL_FWD,
    SM_COL_BWD,
    SM_COL_GRAD,
    SM_COL_STEP,
    SM_N_REQUIRED_COLS,
    SM_COL_BACKEND = SM_N_REQUIRED_COLS,
    SM_COL_THREADS,
    SM_COL_REPS,
    SM_COL_STATUS,
    SM_N_CPU_COLS,
    SM_COL_PRECISION = SM_N_CPU_COLS,
    SM_COL_CONV_ALGO,
    SM_COL_DEVICE,
    SM_COL_ENERGY,
    SM_COL_ENERGY_INFER,
    SM_COL_ENERGY_WINDOW,
    SM_COL_ENERGY_INFER_WINDOW,
    SM_N_RUN_COLS
} sm_run_column;
/* "model", "image", ..., "energy_infer_j": the header names, indexed by sm_run_column. */
extern const char *const sm_run_columns[SM_N_RUN_COLS];

/* What ran the rows: a row's backend column (bench: cpu, cuda) or, without one, its device column
 * (measure.py: cpu, cuda, cuda:N; or a GPU's name). A fit's is that of its rows that say it
 * (rows of both are refused). */
typedef enum sm_backend { SM_BACKEND_UNKNOWN, SM_BACKEND_CPU, SM_BACKEND_GPU } sm_backend;
/* "cpu", "gpu"; NULL for SM_BACKEND_UNKNOWN */
const char *sm_backend_name(sm_backend b);

/* The longest time a runs CSV may give for one pass or step, seconds (10^6: 11.6 days). */
#define SM_MAX_RUN_SECONDS 1e6
/* The shortest, seconds (10^-9: one clock cycle at 1 GHz; the shortest pass measured is some
 * microseconds). 1e-300 s, weighted by 1 / t, took a leave-one-model-out MAPE to 10^299. */
#define SM_MIN_RUN_SECONDS 1e-9
/* The average power of one device a runs CSV's energy may give, watts, over its phase's time:
 * 10^-3 to 10^5 (a device description's power_limit_w's top). 1e308 J a step made the fit's
 * RMSE inf and wrote rmse = inf, r2 = -nan into the coefficient file. */
#define SM_MIN_DEVICE_WATTS 1e-3
#define SM_MAX_DEVICE_WATTS 1e5
/* The idle power of one device a fit takes off (--idle-watts) or a coefficient file gives,
 * watts: a megawatt at most. A file's 1e20 W made epochs of 1e23 J. */
#define SM_MAX_IDLE_WATTS 1e6

typedef struct sm_run {
    char *model;
    int64_t image; /* 0: the network file's own input size */
    int64_t batch; /* per device */
    int nodes, gpus_per_node;
    char precision[8]; /* "fp32" (when the CSV has no precision column), "tf32", "fp16", "bf16" */
    double t_infer, t_fwd, t_bwd, t_grad, t_step; /* seconds; NAN = not measured */
    double e_infer, e_step; /* joules of an inference pass and of a training step, all devices
                               of the job (energy_infer_j, energy_j); NAN = not measured */
    int line;               /* of the CSV file */
    sm_metrics m;           /* at batch 1, set by sm_runs_metrics */
    unsigned family_bit;    /* 1 << sm_network_family, set by sm_runs_metrics; 0: not known */
    sm_backend backend;     /* CPU ranks or GPUs; unknown without a backend or device column */
    char device[64];   /* the device column: a GPU's name (bench), cpu or cuda (measure.py); "" */
    int64_t image_run; /* the size the row ran at (sm_network_image): image, or the network
                          file's own where image is 0; set by sm_runs_metrics, 0 before */
    int threads;       /* bench's threads column (CPU threads per rank); 0: not given */
    /* bench's allreduce and bucket_mib columns: what summed the gradients of several ranks,
     * and in buckets of how many MiB; "" and NAN where not recorded (one rank, older files) */
    char allreduce[16];
    double bucket_mib;
} sm_run;

typedef struct sm_runs {
    char *path;
    int n;
    sm_run *rows;
    int not_measured; /* rows skipped: their status column says other than ok (oom) */
    /* rows whose configuration (model, image, batch, nodes, devices per node, precision,
     * threads, all-reduce and bucket size) an earlier row already has: kept, as repeated
     * measurements, and counted so that commands can say so; the first such row's line and the line
     * it repeats. Found again by sm_runs_metrics, which knows the size an empty image field ran at
     */
    int repeated, repeated_line, repeated_of;
    char device[64]; /* the machine every row names in its device column; "" where they name
                        none, several, or only a backend (cpu, cuda, cuda:1) */
    int energy_zero; /* energy fields that read 0 (a counter that did not advance): taken as
                        not measured */
} sm_runs;

int sm_runs_read(const char *path, sm_runs **out, sm_status *st);
/* Keeps only the rows of one precision (NULL: the rows must all be of one precision, else an
 * error naming the precisions found and saying how to choose); fails when none is left. */
int sm_runs_select_precision(sm_runs *runs, const char *precision, sm_status *st);
/* Loads each (model, image) once and stores its metrics at batch 1 in every row of it. */
int sm_runs_metrics(sm_runs *runs, const sm_registry *reg, sm_status *st);
/* The number of distinct networks (model names) of the rows; -1 when out of memory or runs is
 * NULL. */
int sm_runs_models(const sm_runs *runs);
void sm_runs_free(sm_runs *runs);

/* The measured value a phase is fitted to or validated against; NAN when not measured. The step
 * is t_step, or t_fwd + t_bwd + t_grad when t_step is empty. On several devices the gradient
 * phase is what the step spends beyond its passes, t_step - t_fwd - t_bwd (NAN unless
 * positive), and bwd_grad t_step - t_fwd, where t_step is measured: each phase column is the
 * slowest device's time in that phase, so t_grad also holds the wait of the devices that finished
 * their backward pass first for the last one, which the step holds once (in t_bwd) and the columns'
 * sum twice. */
double sm_run_target(const sm_run *r, sm_phase ph);

/* ---- fitting ---------------------------------------------------------------------------- */

typedef enum sm_grad_form {
    SM_GRAD_LINEAR, /* ConvMeter, N = nodes x G devices: c1 L (N = 1); c1 L + c2 W + c3 N (N > 1) */
    SM_GRAD_RING    /* hierarchical ring all-reduce of N nodes of G devices (docs/scaling.md):
                       c1 L + ci 2(G-1)/G 4W + cn 2(N-1)/N 4W/G + cis 2(G-1) k + cns 2(N-1) k,
                       k = ceil(4W / bucket); the G terms only when the fit saw G > 1, the N terms
                       only when it saw N > 1 */
} sm_grad_form;

/* The form of the pass phases (infer, fwd, bwd) and of the update. */
typedef enum sm_fit_form {
    SM_FORM_CONVMETER, /* ConvMeter: b(c1 F + c2 I + c3 O) + c4; grad c1 L [+ cu W] */
    SM_FORM_DISPATCH   /* ConvMeter plus ck K, K the kernels a pass launches (per-layer launch
                          and framework dispatch); grad cp P + cu W + c0, P the parameter
                          tensors the optimizer visits (docs/calibration.md) */
} sm_fit_form;

typedef struct sm_fit_options {
    sm_fit_form form;       /* default SM_FORM_DISPATCH */
    int relative;           /* weight rows by 1/t: minimise relative error (default 1) */
    int nonneg;             /* non-negative coefficients, Lawson-Hanson (default 1) */
    int weight_term;        /* add cw W to infer, fwd and bwd: the weights are read once per
                               pass whatever the batch (default 0, beyond ConvMeter) */
    int update_term;        /* add cu W to T_grad at every N: the optimizer's pass over the
                               weights (default 0, beyond ConvMeter) */
    sm_grad_form grad_form; /* default SM_GRAD_RING */
    double bucket_bytes;    /* ring form: gradient bucket size (default 25 MiB) */
    double idle_watts;      /* energy: the power one device draws doing nothing, taken off the
                               measured energy before its terms are fitted (default 0) */
    int contention;         /* add cc log2(G) b F to infer, fwd and bwd where the rows have two
                               values of G or more: devices sharing a node slow each other
                               (default 1) */
    int grad_column;        /* the gradient phase of several devices as before, for comparison:
                               fitted to the t_grad column, waiting included, not to the step
                               beyond its passes (sm_run_target), and no comm_contention
                               (default 0) */
} sm_fit_options;

void sm_fit_options_default(sm_fit_options *opt);

/* bwd_grad of the dispatch form with the weight, contention and ring terms: 4 + 1 + 1 + 1 + 1
 * + 1 + 4 */
#define SM_MAX_COEFFS 13

/* Goodness of a prediction against measurements. */
typedef struct sm_fit_stats {
    int n;
    double rmse;  /* seconds */
    double nrmse; /* rmse / (max - min) of the measured values; NAN when they are all equal */
    double mape;  /* mean |predicted - measured| / measured, a fraction */
    double r2;    /* 1 - SS_res / SS_tot; NAN when the measured values are all equal */
} sm_fit_stats;

typedef struct sm_phase_fit {
    int fitted; /* 0: the phase was not measured (no row has its time) */
    int n_coeffs;
    unsigned dropped; /* bit k: term k could not be told apart from the others on these rows
                         (too few networks): left out of the solve, its coefficient 0 */
    double c[SM_MAX_COEFFS];
    sm_fit_stats stats; /* of the fit on its own points */
    /* of those points, how many it predicts at 0 or below (a fit of negative coefficients,
     * --no-nonneg), which predict, curve and validate refuse; the first one's CSV line and
     * its prediction */
    int not_positive, not_positive_line;
    double not_positive_value;
} sm_phase_fit;

/* Energy, fitted where the rows measure it (energy_infer_j, energy_j): joules of one device
 *   E = idle_watts x t + sum_k e_k x_k
 * with t the phase's time (measured when fitting, predicted when predicting) and x_k the terms
 * of its time: the infer phase's for an inference pass, the bwd_grad phase's for a training
 * step (the forward pass's terms are the backward pass's: one set serves both). */
typedef enum sm_energy_phase { SM_ENERGY_INFER, SM_ENERGY_STEP, SM_N_ENERGY } sm_energy_phase;
/* "infer", "step" */
const char *sm_energy_phase_name(sm_energy_phase e);
/* The time phase whose terms an energy phase is fitted on: infer, bwd_grad. */
sm_phase sm_energy_terms_phase(sm_energy_phase e);

typedef struct sm_fit {
    sm_fit_options opt;
    char precision[8]; /* of the rows fitted; a coefficient file without one: fp32 */
    int multi_device;  /* the fit saw rows with N x G > 1: grad carries its communication terms */
    int multi_gpu;     /* ... rows with G > 1 (ring form: the intra-node terms are fitted) */
    int multi_node;    /* ... rows with N > 1 (ring form: the inter-node terms are fitted) */
    int comm_unidentified; /* there were multi-device rows, but they could not separate the
                              communication terms (one device count only): grad is fitted as
                              measured, without them */
    int contention;      /* the pass phases carry cc log2(G) b F (sm_fit_options.contention and rows
                            at two values of G or more) */
    int comm_contention; /* the intra-node bytes are log2(G) 2(G-1)/G 4W: the ranks are CPU
                            ranks, whose copies share one memory system as their passes do
                            (sm_fit_options.contention, ring form, rows with G > 1, all CPU) */
    sm_backend backend;  /* of the rows fitted that say it (rows of two are refused);
                            SM_BACKEND_UNKNOWN where none does (memory: what the backend's
                            kernels keep) */
    int flat_ring;       /* ring form read from a coefficient file written before the hierarchical
                            form: one flat ring over all N x G devices, c 2(D-1)/D 4W
                            + c 2(D-1) ceil(4W / bucket) with D = N x G; never set by a fit */
    sm_phase_fit phase[SM_N_FIT_PHASES];
    sm_phase_fit energy[SM_N_ENERGY]; /* .fitted 0 where no row measured the energy */
    /* the range of the rows fitted, to tell extrapolation from interpolation */
    int rows;
    int64_t batch_min, batch_max, image_min, image_max;
    int devices_max;
    unsigned families; /* bits 1 << sm_family of the networks fitted; 0: not known */
} sm_fit;

/* Fits every phase on the rows with use[i] != 0 (all rows when use is NULL), which must be of
 * one precision. A phase no row measures is left unfitted. Terms beyond ConvMeter's that the
 * rows cannot separate (a dispatch or update term fitted on two networks) are dropped, and
 * sm_phase_fit.dropped says which; a system still rank-deficient or a failed solve is an error
 * naming the phase, but for an energy phase: rows whose energy cannot separate its terms
 * leave that phase unfitted (fitted 0, stats.n the rows that measured it) and the times
 * fitted, and on success st->msg says why (empty when nothing was left out). */
int sm_fit_runs(const sm_runs *runs, const int *use, const sm_fit_options *opt, sm_fit *out,
                sm_status *st);

/* The terms of a phase (the design matrix row) for a layout (per-device batch, nodes, devices
 * per node); returns their number. */
int sm_fit_terms(const sm_fit *fit, sm_phase ph, const sm_metrics *m, const sm_layout *layout,
                 double *x);
/* The name of term k (from 0) for the coefficient file, "c1_flops", in buf; NULL past the last. */
const char *sm_fit_term_name(const sm_fit *fit, sm_phase ph, int k, char *buf, size_t len);
/* The term k itself, "b*F", for people. */
const char *sm_fit_term_formula(const sm_fit *fit, sm_phase ph, int k);
/* The fitted time of a phase (SM_PHASE_STEP: fwd + bwd + grad); NAN when not fitted. */
double sm_fit_eval(const sm_fit *fit, sm_phase ph, const sm_metrics *m, const sm_layout *layout);

/* The phase's equation on a part of a network (a block, a layer): its own metrics, and of the
 * intercept, a per-pass cost, only `share` (the part's share of the network's FLOPs), so that
 * the parts add up to the whole. */
double sm_fit_eval_share(const sm_fit *fit, sm_phase ph, const sm_metrics *part, double share,
                         const sm_layout *layout);

/* The grad phase split for an all-reduce that overlaps the backward pass: the seconds of one
 * bucket of `bytes` (the ring form's communication terms with 4W = bytes and one bucket; NAN
 * where grad is not fitted or its form is the linear one, whose terms are not per bucket),
 * and the rest of grad without the communication (the update, per layer, per tensor; NAN as
 * the bucket's). */
double sm_fit_bucket_seconds(const sm_fit *fit, const sm_layout *layout, double bytes);
double sm_fit_grad_local(const sm_fit *fit, const sm_metrics *m, const sm_layout *layout);

/* Joules of one device for an inference pass or a training step: idle_watts x the fitted time
 * + the energy terms; NAN where the energy or the time is not fitted. */
double sm_fit_energy_eval(const sm_fit *fit, sm_energy_phase e, const sm_metrics *m,
                          const sm_layout *layout);
/* The same for a phase predicted to take t seconds (the time printed beside it: with an
 * all-reduce from a description, or overlapped, or k micro-batches), the idle power drawn over
 * all of it, and a step of k micro-batches (its passes' terms k times, its gradients' once). */
double sm_fit_energy_at(const sm_fit *fit, sm_energy_phase e, const sm_metrics *m,
                        const sm_layout *layout, double t, int k);
/* The measured joules of one device: the row's energy over its devices; NAN if not measured. */
double sm_run_energy(const sm_run *r, sm_energy_phase e);

/* RMSE, NRMSE, MAPE and R2 of n predictions against their measurements, into out (NAN where
 * n < 1): an evaluator, whose pointers are required. */
void sm_fit_stats_of(const double *measured, const double *predicted, int n, sm_fit_stats *out);

/* ---- least squares ---------------------------------------------------------------------- */

/* min ||A x - b|| over x (A: m x n, column-major, m >= n), with x >= 0 when nonneg
 * (Lawson-Hanson active set). Columns are scaled to unit norm before solving. A and b are not
 * changed. Fails, saying why: SM_LSTSQ_RANK_DEFICIENT when A has rank below n, -1 otherwise. */
#define SM_LSTSQ_RANK_DEFICIENT (-2)
int sm_lstsq(const double *A, const double *b, int m, int n, int nonneg, double *x, sm_status *st);

/* ---- coefficient file ------------------------------------------------------------------- */

typedef struct sm_fit_meta {
    char device[256];
    char date[64];
    char source[1024];
    char version[64];
} sm_fit_meta;

int sm_fit_write(const sm_fit *fit, const sm_fit_meta *meta, const char *path, sm_status *st);
/* path, or NAME for configs/calibrations/NAME.ini of the data folder. */
int sm_fit_read(const char *path, sm_fit *fit, sm_fit_meta *meta, sm_status *st);
/* The coefficient file a name or path stands for; -1 when there is none, or when its path does
 * not fit in len bytes. */
int sm_coeffs_find(const char *name, char *path, size_t len, sm_status *st);

/* A warning (into buf) when a predictor made from coefficients is asked about a layout its
 * calibration never saw (several devices after a single-device fit; with the ring form, several
 * devices per node or several nodes when the fit had no such rows, so that the term was not
 * fitted; beyond the fitted batch or device range); 0 when there is nothing to say or p is
 * another kind of predictor; -1 (buf emptied where it is given) for a NULL p, layout or buf
 * (len 0: 0, nothing written). Several warnings are joined by "; ". A text names no layout or
 * network (the caller says what it applies to), so that equal warnings of many layouts and
 * networks read alike and can be said once. */
int sm_predictor_warning(const sm_predictor *p, const sm_layout *layout, char *buf, size_t len);
/* The same for a network that coefficients are asked about: an input size outside the range
 * they were fitted on, a family of network they never saw. 1 with the text, or 0; -1 for a NULL
 * p, net or buf, as above. */
int sm_predictor_network_warning(const sm_predictor *p, const sm_network *net, char *buf,
                                 size_t len);

/* ---- validation ------------------------------------------------------------------------- */

typedef struct sm_loo {
    int n_models;
    char **models;                          /* in order of first appearance */
    sm_fit_stats (*per_model)[SM_N_PHASES]; /* [model][phase] */
    sm_fit_stats overall[SM_N_PHASES];      /* all held-out predictions pooled */
    /* models the fit on the others failed for (too few networks left to separate the terms):
     * not validated, their statistics empty; why holds the first failure's message */
    int *not_validated; /* [model]: 1 or 0 */
    int n_not_validated;
    char why[1280];
} sm_loo;

/* Leave-one-model-out: for each model, fits on the other models' rows and predicts its own. A
 * model whose leave-out fit fails is not validated (not_validated, why) and the others still
 * are; it is an error only when no model can be validated. */
int sm_fit_loo(const sm_runs *runs, const sm_fit_options *opt, sm_loo *out, sm_status *st);
void sm_loo_free(sm_loo *loo);

/* Chooses the weight term (sm_fit_options.weight_term) by what it does to networks no fit saw:
 * the leave-one-model-out MAPE of the step (of inference where no row measures the step) with
 * it, mape[1], and without it, mape[0]. It is kept only when it lowers that MAPE by at least
 * SM_WEIGHT_TERM_GAIN: a term that helps no unseen network is noise fitted. Sets
 * opt->weight_term; with fewer than three models, or a validation that fails, leaves it out
 * and the MAPEs NAN. chosen (NULL: not wanted) receives the validation of the form chosen, for
 * the caller to report and sm_loo_free; n_models 0 where there was none. Returns 0, or -1 with
 * st set when out of memory. */
#define SM_WEIGHT_TERM_GAIN 0.01
int sm_fit_choose_weight_term(const sm_runs *runs, sm_fit_options *opt, double mape[2],
                              sm_loo *chosen, sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
