/* scalemeter fit-comm: the all-reduce terms of a device description fitted to nccl-tests'
 * all_reduce_perf output or `scalemeter allreduce` CSVs, as operators already run them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "option_values.h"
#include "output.h"
#include "scalemeter/comm.h"

#define MAX_FILES 256

static void usage(void)
{
    printf(
        "usage: scalemeter fit-comm FILE[@NODES]... [--device-base NAME] [--device-out FILE]\n"
        "                           [--min-bytes N] [--impl NAME] [--collective ring|nccl]\n"
        "                           [--format table|csv|json] [-o FILE]\n\n"
        "Fits the all-reduce's bandwidth and per-step latency inside a node and between nodes\n"
        "(the [node] keys of a device description) to measured all-reduces: the output of\n"
        "nccl-tests' all_reduce_perf as it prints it (ranks and nodes from its '# Rank ... on\n"
        "HOST' lines; out-of-place times), of all_gather_perf and reduce_scatter_perf (half an\n"
        "all-reduce's ring traffic and steps; known by nccl-tests' 'Collective test starting'\n"
        "line), or `scalemeter allreduce --format csv` (all-reduces; its op column, where\n"
        "there is one, says which collective a row is). Give runs inside one\n"
        "node (all of its devices) and, for the inter-node terms, across nodes.\n"
        "  FILE@NODES        the run's node count where the file does not tell it (all\n"
        "                    ranks on one host name, or a CSV without nodes)\n"
        "  --device-base N   device description for the ports per node and the terms of a level\n"
        "                    no run spans (default h100)\n"
        "  --device-out F    write the base with the fitted [node] keys as a device description\n"
        "                    (for curve/predict --device F); - writes it on the standard\n"
        "                    output in place of the table\n"
        "  --min-bytes N     smallest message used (default 1M; smaller ones run NCCL's\n"
        "                    low-latency protocols, which gradient buckets do not); suffixes K, M, "
        "G\n"
        "  --impl NAME       the implementation of a CSV with several (nccl, ring, mpi)\n"
        "  --collective C    the equation fitted: ring (the hierarchical ring) or nccl (NCCL's\n"
        "                    ring on Simple: run all_reduce_perf with NCCL_ALGO=Ring\n"
        "                    NCCL_PROTO=Simple); default: the base description's collective\n"
        "  --format F        table (default), csv or json\n"
        "  -o FILE           write the table there (whole, once the fit succeeds) rather than\n"
        "                    on the standard output\n\n"
        "Model, per message of s bytes on N nodes of G devices with P ports per node, n = N G:\n"
        "  ring: 2(G-1)/G s/B_intra + 2(G-1) l_intra + 2(N-1)/N s/(min(P,G) B_port)\n"
        "        + 2(N-1) l_inter\n"
        "  nccl: 8.4 us + (2(n-1) - 2(N-1)) l_intra + 2(N-1) l_inter\n"
        "        + 2(n-1)/n s / min(B_intra, min(P,G) B_port)\n"
        "(docs/scaling.md, \"Calibrating communication\").\n");
}

typedef struct fit_comm_args {
    const char *files[MAX_FILES];
    int nodes[MAX_FILES];
    int n_files;
    const char *base, *out, *impl, *collective, *output;
    double min_bytes;
    output_format format;
} fit_comm_args;

static int parse_args(int argc, char **argv, fit_comm_args *a)
{
    memset(a, 0, sizeof *a);
    a->base = "h100", a->min_bytes = 1048576, a->format = FORMAT_TABLE;
    enum { BASE = 256, OUT, IMPL, MIN_BYTES, FORMAT, COLLECTIVE };
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"output", required_argument, 0, 'o'},
                                         {"device-base", required_argument, 0, BASE},
                                         {"device-out", required_argument, 0, OUT},
                                         {"impl", required_argument, 0, IMPL},
                                         {"min-bytes", required_argument, 0, MIN_BYTES},
                                         {"format", required_argument, 0, FORMAT},
                                         {"collective", required_argument, 0, COLLECTIVE},
                                         {0, 0, 0, 0}};
    char msg[512];
    for (int c; (c = next_option(argc, argv, "ho:", opts, msg, sizeof msg)) != -1;) {
        if (c == 'h') {
            usage();
            command_exit(0);
        } else if (c == 'o') {
            a->output = optarg;
        } else if (c == BASE) {
            a->base = optarg;
        } else if (c == OUT) {
            a->out = optarg;
        } else if (c == IMPL) {
            a->impl = optarg;
        } else if (c == COLLECTIVE) {
            a->collective = optarg;
        } else if (c == MIN_BYTES) {
            if (parse_size(optarg, &a->min_bytes))
                return -1;
        } else if (c == FORMAT) {
            if (parse_format(optarg, 1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON,
                             &a->format))
                return -1;
        } else {
            return usage_error("fit-comm", msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (a->n_files == MAX_FILES) {
            fprintf(stderr, "scalemeter fit-comm: more than %d files\n", MAX_FILES);
            return -1;
        }
        int64_t nodes;
        if (parse_file_nodes(argv[i], &nodes))
            return -1;
        a->files[a->n_files] = argv[i];
        a->nodes[a->n_files++] = (int)nodes;
    }
    /* one file twice would count its runs twice, weighting the fit towards them */
    for (int i = 0; i < a->n_files; i++)
        for (int j = 0; j < i; j++) {
            struct stat si, sj;
            if (strcmp(a->files[i], "-") && !stat(a->files[i], &si) && !stat(a->files[j], &sj) &&
                si.st_dev == sj.st_dev && si.st_ino == sj.st_ino) {
                fprintf(stderr,
                        "scalemeter fit-comm: %s and %s are one file: its runs would count "
                        "twice\n",
                        a->files[j], a->files[i]);
                return -1;
            }
        }
    if (!a->n_files) {
        fprintf(stderr, "scalemeter fit-comm: which runs? (scalemeter fit-comm "
                        "node.txt two-nodes.txt; --help)\n");
        return -1;
    }
    const char *inputs[MAX_FILES + 1];
    for (int i = 0; i < a->n_files; i++)
        inputs[i] = a->files[i];
    inputs[a->n_files] = a->base;
    char labels[MAX_FILES + 1][24];
    const char *what[MAX_FILES + 1];
    for (int i = 0; i < a->n_files; i++) {
        snprintf(labels[i], sizeof labels[i], "file %d", i + 1);
        what[i] = labels[i];
    }
    what[a->n_files] = "--device-base";
    if (stdin_once("fit-comm", what, inputs, a->n_files + 1))
        return -1;
    if (a->out && a->output && !strcmp(a->out, a->output)) {
        fprintf(stderr, "scalemeter fit-comm: -o and --device-out name one file, %s\n",
                strcmp(a->out, "-") ? a->out : "- (the standard output)");
        return -1;
    }
    /* the description on the standard output takes the table's place (fit's --device-out -) */
    if (a->out && !strcmp(a->out, "-") && (a->output || a->format != FORMAT_TABLE)) {
        fprintf(stderr,
                "scalemeter fit-comm: --device-out - puts the description on the standard output "
                "in place of the table: %s has nothing to print\n",
                a->output ? "-o" : "--format");
        return -1;
    }
    return (a->out && strcmp(a->out, "-") &&
            output_not_input("fit-comm", "--device-out", a->out, inputs, a->n_files + 1)) ||
           output_not_input("fit-comm", "-o", a->output, inputs, a->n_files + 1);
}

static void level_row(text_table *t, const char *level, double bw, double lat, int fitted)
{
    char b[32] = "-", l[32] = "-";
    /* a base of one device a node may give no link inside it (bandwidth 0) */
    int none = !fitted && !(bw > 0);
    if (!none) {
        snprintf(b, sizeof b, "%.4g", bw / 1e9);
        snprintf(l, sizeof l, "%.3g", lat * 1e6);
    }
    const char *cells[] = {level, b, l,
                           fitted ? "fitted"
                           : none ? "none in the base (one device a node)"
                                  : "from the base"};
    table_add(t, cells);
}

static void print_result(const fit_comm_args *a, const sm_comm_runs *runs,
                         const sm_comm_fit_result *f)
{
    if (a->format == FORMAT_CSV) {
        const char *form = f->nccl ? "nccl" : "ring";
        printf("level,bandwidth_gb_s,latency_us,fitted,collective\n");
        if (f->intra_fitted || f->intra_bandwidth > 0)
            printf("intra,%.6g,%.6g,%d,%s\n", f->intra_bandwidth / 1e9, f->intra_latency * 1e6,
                   f->intra_fitted, form);
        else /* none in the base: empty, as JSON's null */
            printf("intra,,,0,%s\n", form);
        printf("inter,%.6g,%.6g,%d,%s\n", f->inter_bandwidth / 1e9, f->inter_latency * 1e6,
               f->inter_fitted, form);
        return;
    }
    if (a->format == FORMAT_JSON) {
        json_writer w;
        json_init(&w, stdout);
        json_begin_object(&w);
        json_key(&w, "intra");
        json_begin_object(&w);
        /* null where the base, of one device a node, gives no link inside it */
        int intra = f->intra_fitted || f->intra_bandwidth > 0;
        json_field_number(&w, "bandwidth_gb_s", intra ? f->intra_bandwidth / 1e9 : NAN);
        json_field_number(&w, "latency_us", intra ? f->intra_latency * 1e6 : NAN);
        json_field_bool(&w, "fitted", f->intra_fitted);
        json_end(&w);
        json_key(&w, "inter");
        json_begin_object(&w);
        json_field_number(&w, "bandwidth_gb_s", f->inter_bandwidth / 1e9);
        json_field_number(&w, "latency_us", f->inter_latency * 1e6);
        json_field_bool(&w, "fitted", f->inter_fitted);
        json_field_int(&w, "ports", f->inter_ports);
        json_end(&w);
        json_field_int(&w, "samples", f->used);
        json_key(&w, "min_bytes");
        json_number_digits(&w, a->min_bytes, 17);
        json_field_number(&w, "mape", f->mape);
        json_field_string(&w, "collective", f->nccl ? "nccl" : "ring");
        json_field_bool(&w, "inter_bandwidth_hidden", f->inter_bandwidth_hidden);
        json_key(&w, "files");
        json_begin_array(&w);
        for (int i = 0; i < runs->n_sources; i++)
            json_string(&w, runs->sources[i]);
        json_end(&w);
        json_warning_member(&w, "");
        json_end(&w);
        return;
    }
    static const char *const headers[] = {"level", "GB/s", "us/step", ""};
    text_table *t = table_new(4, headers);
    level_row(t, "intra-node", f->intra_bandwidth, f->intra_latency, f->intra_fitted);
    level_row(t, "inter-node (per port)", f->inter_bandwidth, f->inter_latency, f->inter_fitted);
    table_print(t, stdout);
    table_free(t);
    printf("\nThe %s fitted.\n", f->nccl
                                     ? "equation of NCCL's ring on Simple (collective = nccl) was"
                                     : "hierarchical ring (collective = ring) was");
    if (f->inter_bandwidth_hidden)
        printf(
            "The runs across nodes went at NVLink's pace: the network is at least that fast, and "
            "its bandwidth is the base's (or NVLink's, shared by the ports).\n");
    /* --min-bytes 0 keeps every size: "of at least 0 bytes" says nothing */
    char sizes[64] = "of every size";
    if (a->min_bytes > 0)
        snprintf(sizes, sizeof sizes, "of at least %.0f bytes", a->min_bytes);
    printf("\n%d sample%s %s from %d file%s, %d network port%s per node; MAPE of the fit %.3f\n",
           f->used, f->used == 1 ? "" : "s", sizes, runs->n_sources,
           runs->n_sources == 1 ? "" : "s", f->inter_ports, f->inter_ports == 1 ? "" : "s",
           f->mape);
}

/* --device-out -: the description is written to a file of its own (the core writes files
 * whole, beside their destination) and copied to the standard output. */
static int device_to_stdout(const sm_comm_fit_result *fit, const char *base, const char *sources,
                            sm_status *st)
{
    const char *dir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/scalemeter-fit-comm-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sm_fail(st, "%s: cannot make a temporary file: %s", tmp, strerror(errno));
    close(fd);
    int rc = sm_comm_fit_write_device(fit, base, sources, tmp, st);
    FILE *in = rc ? NULL : fopen(tmp, "r");
    if (!rc && !in)
        rc = sm_fail(st, "%s: cannot read back: %s", tmp, strerror(errno));
    char buf[4096];
    for (size_t n; in && (n = fread(buf, 1, sizeof buf, in)) > 0;)
        fwrite(buf, 1, n, stdout);
    if (in)
        fclose(in);
    unlink(tmp);
    if (!rc && (fflush(stdout) || ferror(stdout)))
        rc = sm_fail(st, "the standard output: %s", strerror(errno));
    return rc;
}

int cmd_fit_comm(int argc, char **argv)
{
    fit_comm_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    sm_comm_runs runs = {0};
    sm_comm_fit_result fit;
    sm_status st;
    for (int i = 0; i < a.n_files; i++)
        if (sm_comm_runs_read(&runs, a.files[i], a.nodes[i], a.impl, &st)) {
            sm_comm_runs_free(&runs);
            return report_error(st.msg);
        }
    if (sm_comm_fit(&runs, a.min_bytes, a.base, a.collective, &fit, &st)) {
        sm_comm_runs_free(&runs);
        return report_error(st.msg);
    }
    int rc = output_to("fit-comm", a.output);
    if (rc) {
        sm_comm_runs_free(&runs);
        return rc;
    }
    int to_stdout = a.out && !strcmp(a.out, "-");
    if (!to_stdout)
        print_result(&a, &runs, &fit);
    if (a.out) {
        char sources[1024] = "";
        for (int i = 0; i < a.n_files; i++)
            snprintf(sources + strlen(sources), sizeof sources - strlen(sources), "%s%s",
                     i ? ", " : "", a.files[i]);
        if ((to_stdout ? device_to_stdout(&fit, a.base, sources, &st)
                       : sm_comm_fit_write_device(&fit, a.base, sources, a.out, &st)))
            rc = report_error(st.msg);
        else
            fprintf(stderr, "scalemeter fit-comm: wrote %s\n",
                    to_stdout ? "the description to the standard output" : a.out);
    }
    sm_comm_runs_free(&runs);
    return rc;
}
