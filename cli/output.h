/* Shared output helpers of the commands: aligned tables, numbers for people, JSON and CSV. */
#ifndef SCALEMETER_CLI_OUTPUT_H
#define SCALEMETER_CLI_OUTPUT_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"
#include "scalemeter/comm.h"
#include "scalemeter/memory.h"
#include "scalemeter/scalemeter.h"

typedef enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON, FORMAT_SVG } output_format;

/* "table", "csv", "json" or "svg" (where allowed, a mask of 1 << format); -1 with a message. */
int parse_format(const char *text, unsigned allowed, output_format *out);
/* Samples per epoch when --dataset is not given: ImageNet-1k's training set. */
#define DEFAULT_DATASET INT64_C(1281167)
/* The largest --dataset and --epochs accepted. */
#define MAX_DATASET (INT64_C(1) << 50)
#define MAX_EPOCHS (1 << 20)

/* A sequence network: its input is token ids (1-D) or S x E (2-D); an image is C x H x W. */
int is_sequence(const sm_network *net);
/* --image given to a sequence network, or --seq to an image network: -1 with one line
 * naming the option and the network ("scalemeter CMD: ..." on standard error). */
int check_length_option(const char *cmd, const char *model, const sm_network *net, int64_t image,
                        int64_t seq);
/* The label of the model read from "-" in rows, JSON and warnings: its network's name ("-"
 * is what CSV readers take for a missing value), "stdin" where it has none, "NAME (stdin)"
 * where taken (another model of the command has that name). buf, of len bytes, holds it. */
const char *stdin_label(const sm_network *net, int taken, char *buf, size_t len);
/* The name a table's heading gives net: its own, or for one read from "-", model (the command's
 * label of it, stdin_label's): a nameless network's own name is its file's, "-". */
const char *heading_name(const sm_network *net, const char *model);
/* MODEL read at --image's or --seq's size (0 and 0: its own), with kv_cache its attention layers
 * returning their keys and values (--kv-cache, sm_network_options): 0; -1 with st; -2 where that
 * size failed a network of the other kind, said as check_length_option says it. */
int load_sized_network(const char *cmd, const sm_registry *reg, const char *model, int64_t image,
                       int64_t seq, int kv_cache, sm_network **net, sm_status *st);
/* Tokens per second of all devices: global batch x seq / t_step. */
double tokens_per_s(const sm_layout *l, double t_step, int64_t seq);
/* The dataset of an epoch of net in samples: (tokens > 0) ceil(tokens / seq) sequences, which
 * gives ceil(tokens / (global batch x seq)) steps (nested ceilings of whole numbers are one);
 * else the --dataset given (> 0); else ImageNet's for an image network, and 0 (no dataset
 * known: no epoch) for a sequence network, whose corpus ImageNet's size says nothing of. */
int64_t dataset_samples(int64_t dataset, int64_t tokens, const sm_network *net);
/* Model FLOPs utilisation, as PaLM and Megatron-LM define it: the training FLOPs of a step on
 * one device (forward and backward at its batch) per second, over its dense peak at the
 * predictor's precision; NAN where the peak is not known (a calibration) or t_step is not. */
/* The collective a gradient bucket runs under p: "all-reduce" (DDP), or "reduce-scatter" when
 * the states are sharded (--shard). */
const char *gradient_collective(const sm_predictor *p);
/* Whether p shards weights, gradients and state in full (FSDP): its collectives go a unit at
 * a time, not in buckets. */
int fully_sharded(const sm_predictor *p);
/* The FLOPs of one sample's training step, forward and backward (F + Fb), as a real; NAN
 * where a layer's counts do not fit 64 bits. Once per network: mfu's numerator is linear in the
 * batch. */
double model_sample_flops(const sm_network *net);
/* Model FLOPs utilisation of a step of batch samples (all its micro-batches) of sample_flops
 * each: their FLOPs over t_step times the predictor's dense peak; NAN where it has none. */
double model_flops_utilisation(const sm_predictor *p, double sample_flops, int64_t batch,
                               double t_step);
/* A positive integer option; -1 with a message naming the option. */
int parse_positive(const char *option, const char *text, int64_t max, int64_t *out);
/* --bucket-mib: MiB in decimal, from one 4-byte gradient to 1 TiB (SM_BUCKET_MIB_OK); -1 with
 * the message in st (bucket_mib_value) or said on stderr (parse_bucket_mib). */
int bucket_mib_value(const char *text, double *out, sm_status *st);
int parse_bucket_mib(const char *text, double *out);

/* 25557032 -> "25,557,032" */
const char *fmt_count(int64_t v, char *buf, size_t len);
/* 4.09e9 -> "4.09 G" */
const char *fmt_si(double v, char *buf, size_t len);
/* Watts with an SI prefix: 392.1 W, 12.3 kW. */
const char *fmt_watts(double w, char *buf, size_t len);
/* A rate (images/s, tokens/s) for a table: whole from 1000 (170304, not 1.703e+05), 4 digits
 * below (0.25, not 0), in an exponent from 1e15 (1e+63, not 63 digits of which 47 are float
 * noise), as CSV and JSON write it; "-" where not finite. */
const char *fmt_rate(double v, char *buf, size_t len);
/* What one gradient bucket's all-reduce runs (sm_predictor_allreduce), for the table and JSON;
 * algorithm "none": nothing is sent (one device). Table: "tree/LL128", the ring collective's
 * "ring", "-"; JSON: ', "allreduce": {...}' with the bucket's seconds (its protocol null for
 * the ring collective, which has none), or null. */
const char *fmt_allreduce(const sm_allreduce_estimate *e, char *buf, size_t len);
void json_allreduce(json_writer *w, const sm_allreduce_estimate *e);
/* An all-reduce's protocol for CSV and JSON: NULL (empty, null) for the ring collective's,
 * which has none (the library's and the table's "-"). */
const char *allreduce_protocol(const char *protocol);
/* One device's memory (memory.h), for the three formats. Table and CSV give what the device
 * needs, the allocator's peak plus the context outside it; table: "12.3 GiB", with " oom" where
 * it does not fit; CSV: the header's columns ",memory,memory_capacity,fits" (bytes; an
 * empty capacity and fits where the capacity is not known) and their values; JSON:
 * the member "KEY": {"weights": ..., "fits": true|false|null} in bytes. */
const char *fmt_memory(const sm_memory *m, char *buf, size_t len);
#define CSV_MEMORY_HEADER ",memory,memory_capacity,fits"
void csv_memory(FILE *out, const sm_memory *m);
void json_memory(json_writer *w, const char *key, const sm_memory *m);
/* The names (without .ini) of a folder's INI files, sorted (what: "models", "devices", for the
 * message); NULL with a message on stderr when the folder cannot be opened. */
char **list_ini_names(const char *dir, const char *what, int *n);
/* "12.3 GiB" */
const char *fmt_gib(double bytes, char *buf, size_t len);
/* 0.00123 -> "1.23 ms" */
const char *fmt_seconds(double s, char *buf, size_t len);
/* One unit for a column of times, so that a column reads 1.48, 0.742, 0.373 min and not
 * 1.48 min, 44.5 s, 22.4 s: the unit fmt_seconds gives the column's largest value (.scale
 * seconds). time_unit_of(0) is seconds; a column widens it with time_unit_add. */
typedef struct {
    const char *name;
    double scale;
    double largest; /* of the finite values seen */
} time_unit;
time_unit time_unit_of(double largest);
void time_unit_add(time_unit *u, double s);
/* s in unit u: fmt_seconds' digits for the unit (3 significant below 1 unit), whole numbers
 * from 999.5 on; a value below a thousandth of the unit in fmt_seconds' own unit (5.18 ms in
 * a column of minutes); "-" for nan and "inf" as fmt_seconds. */
const char *fmt_seconds_in(double s, const time_unit *u, char *buf, size_t len);

/* A table of text cells printed with aligned columns; numbers align right. */
typedef struct text_table text_table;
text_table *table_new(int n_cols, const char *const *headers);
void table_add(text_table *t, const char *const *cells);
void table_print(const text_table *t, FILE *out);
void table_free(text_table *t);

/* A CSV field (RFC 4180): quoted, its quotes doubled, where it holds a comma, a quote or a line
 * break, a carriage return alone included (a reader ends a row there too). */
void csv_field(FILE *out, const char *s);
/* ",X" (%.6g), or "," alone where x is not finite: an unknown value is empty in CSV. */
void csv_real(FILE *out, double x);

/* getopt_long with the conventions every command shares: "--name VALUE" and "--name=VALUE",
 * unambiguous abbreviations, options and operands in any order, "--" ends the options and "-"
 * is an operand (standard input, where a command reads a file). argv[0] is the command's name.
 * Returns the option's val (its value in optarg), -1 after the last option (the operands are then
 * argv[optind] to argv[argc - 1]), or '?' with a one-line message in msg. The first call of a
 * parse starts afresh, so a command may run another in the same process. */
int next_option(int argc, char **argv, const char *shorts, const struct option *longs, char *msg,
                size_t len);
/* A file the command reads: name itself, or where the library finds a bare name that names
 * no file here (sm_data_dir()/SUBDIR/NAME.ini, as for a network, device, framework or
 * calibration; subdir NULL: a path only). output_to refuses an -o that is one of them. */
void output_reads(const char *subdir, const char *name);
/* output_reads of every network a runs CSV names (fit and validate load them all): `fit
 * runs.csv -o net.ini` wrote the coefficients over a network the rows measured. */
struct sm_runs;
void output_reads_runs(const struct sm_runs *runs);
/* What reading csv left out, on stderr as "scalemeter CMD: ...": the rows not measured and the
 * energy fields that read 0 J. fit and validate say the same. */
void say_runs_notes(const char *cmd, const char *csv, const struct sm_runs *runs);
/* The rows whose t_step no step can take, said once each kind with their first ten lines: of
 * several devices, no longer than t_fwd + t_bwd (sm_run_target gives grad NaN: left out of
 * left_out_of, "the grad fit"); of one device, below half of them. fit and validate say it. */
void say_impossible_steps(const char *csv, const struct sm_runs *runs, const char *left_out_of);
/* The configurations csv measured again, each row then taken as a measurement: "fitted",
 * "compared" (repeated_as). */
void say_runs_repeated(const char *csv, const struct sm_runs *runs, const char *repeated_as);
/* -1 after a message where "-" (the standard input) is given for more than one of the n
 * inputs (given[k] named what[k]: "MODEL", "--coeffs"): the first would read it all and the
 * next an empty file, refused with a message about that file's content. */
int stdin_once(const char *cmd, const char *const *what, const char *const *given, int n);
/* 2 after a message where path (-o) is a file output_reads named, else 0: output_to's check,
 * for a command to make before its work and warnings. */
int output_reads_refuse(const char *cmd, const char *path);
/* The same for an output given by another option (--device-out, calibrate's PREFIX.ini),
 * named so in the message. */
int output_named_refuse(const char *cmd, const char *option, const char *path);
/* -o FILE: the standard output goes to path from now on ("-" or NULL: it stays), written
 * whole when the command ends well (output_finish). Returns 0, or the exit status after a
 * message: 2 where path is a file output_reads named (under any name: output_not_input), 1
 * where it cannot be written. */
int output_to(const char *cmd, const char *path);
/* fflush(stdout) in the middle of a command's output (a row as it is measured), keeping the
 * reason of the first that fails for output_finish to say. */
void output_flush(void);
/* After a command: flushes the output and, for -o FILE, puts it in place where rc is 0 and
 * drops it otherwise, FILE left as it was. Returns rc, or 1 with a message where the output
 * could not be written (a full disk, /dev/full). */
int output_finish(const char *cmd, int rc);
/* Around a command (main.c): an exit() from inside it that is not command_exit's (a plugin's
 * kernel, a library) fails the command with status 1, naming it, instead of passing for it. */
void command_begin(const char *cmd);
/* The command's own early exit (--help): output_finish's status, then exit. */
_Noreturn void command_exit(int status);
/* Whether two output paths name one file: the same inode where both exist, else the same name
 * in the same folder once resolved (./c.ini and c.ini, a folder reached through a link). */
int output_same_file(const char *a, const char *b);
/* -1 with a message where out (given by option) is one of the n inputs, under any name (a
 * link): `fit runs.csv -o runs.csv` once replaced the measurements with coefficients. */
int output_not_input(const char *cmd, const char *option, const char *out,
                     const char *const *inputs, int n);
/* The options of a command that has no others: --help, --format F, -o FILE. Returns 0 to go
 * on, -1 after the usage (exit 0), else the exit status after a message: 2 for a usage error,
 * 1 for an -o FILE that cannot be written (as every other command's). */
int format_options(int argc, char **argv, unsigned allowed, output_format *format,
                   void (*usage)(void));
/* Prints "scalemeter CMD: MSG" and returns 2, the exit status of a usage error. */
int usage_error(const char *cmd, const char *msg);

/* A network's label in a per-model row of validate's and fit --cv loo's tables and CSV: its
 * name, or ./overall for a file named overall, which the aggregate row's label would shadow. */
const char *network_label(const char *name);

/* Prints "scalemeter COMMAND: MESSAGE" to stderr (the command command_begin named; "scalemeter:"
 * before one) and returns the exit status for errors. */
int report_error(const char *msg);
/* Prints "scalemeter COMMAND: warning: MESSAGE" to stderr (printf's format) and keeps
 * MESSAGE for the command's JSON (json_warning_member), so that the member "warning" holds what
 * stderr said (docs/output.md). */
void say_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The member "warning" of the open JSON object: own (the command's own lines, "; "-joined) and
 * every warning said, "; "-joined; null where there is none. */
void json_warning_member(json_writer *w, const char *own);
/* The command report_error names, without command_begin's exit() guard: for the cpu module,
 * whose copy of this file never saw the program's command_begin. */
void report_as(const char *cmd);

#endif
