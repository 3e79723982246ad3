/* scalemeter allreduce: an nccl-tests-style sweep of all-reduce sizes over MPI ranks. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "allreduce.h"
#include "allreduce_ring.h"
#include "commands.h"
#include "launcher.h"
#include "same_arguments.h"
#include "option_values.h"
#include "output.h"
#include "scalemeter/comm.h"

static void usage(void)
{
    printf("usage: mpirun -np N scalemeter allreduce [--impl NAME|all] [--min-bytes N]\n"
           "           [--max-bytes N] [--iters N] [--warmup N] [--chunk-bytes N]\n"
           "           [--check|--no-check] [--format table|csv|json] [-o FILE]\n"
           "       scalemeter allreduce --device NAME|FILE [--nodes N] [-g G] [--op OP]\n"
           "           [--collective ring|nccl] [--algorithm LIST] [--protocol LIST]\n"
           "           [--min-bytes N] [--max-bytes N] [--format F]\n\n"
           "Times an in-place float sum over the MPI ranks for sizes doubling from --min-bytes\n"
           "to --max-bytes (nccl-tests' all_reduce_perf). Without mpirun it is a 1-rank run.\n"
           "With --device it times nothing: it prints what the device description predicts for\n"
           "the same sweep, to set beside all_reduce_perf's output on that cluster.\n"
           "  --impl NAME       all (default) or one of:\n");
    for (int i = 0; i < sm_allreduce_impl_count(); i++)
        printf("                      %-5s %s\n", sm_allreduce_impl_at(i)->name,
               sm_allreduce_impl_at(i)->summary);
    printf("  --min-bytes N     smallest size (default 1K); suffixes K, M, G (powers of 1024),\n"
           "                    a multiple of 4 bytes (whole floats)\n"
           "  --max-bytes N     largest size (default 64M)\n"
           "  --iters N         timed runs per size (default 20)\n"
           "  --warmup N        untimed runs before them (default 5)\n"
           "  --chunk-bytes N   ring: bytes per pipelined chunk (default %zuK)\n"
           "  --no-check        skip comparing one more run with the exact sum (default: check)\n"
           "  --format F        table (default), csv or json\n"
           "  --device NAME     predict with configs/devices/NAME.ini (or a file), no MPI\n"
           "  --nodes N         (--device) nodes (default 1)\n"
           "  -g, --gpus-per-node G  (--device) devices per node (default: the description's)\n"
           "  --collective C    (--device) ring (the hierarchical ring) or nccl (NCCL's cost\n"
           "                    model and its choice of algorithm and protocol, NVLS where the\n"
           "                    description has nvls_efficiency); default: the description's\n"
           "  --algorithm LIST  (--device) NCCL's choice among these only, as NCCL_ALGO\n"
           "                    restricts it: Ring, Tree, NVLS, NVLSTree, comma-separated\n"
           "  --protocol LIST   (--device) likewise, as NCCL_PROTO: LL, LL128, Simple\n"
           "                    (--algorithm Ring --protocol Simple predicts the runs that\n"
           "                    fit-comm asks for)\n"
           "  --op OP           (--device) all_reduce (default), all_gather or reduce_scatter:\n"
           "                    all_gather_perf's and reduce_scatter_perf's sweeps, bytes\n"
           "                    their size, busbw = algbw * (n-1)/n as they compute it\n\n"
           "time_s: each rank's mean time per timed run, the maximum over ranks (nccl-tests\n"
           "-a 3). algbw_gb_s = bytes / time_s / 1e9; busbw_gb_s = algbw * 2(n-1)/n for n ranks,\n"
           "the bandwidth each link of a ring carries. Only rank 0 prints.\n",
           SM_RING_DEFAULT_CHUNK_ELEMS * sizeof(float) / 1024);
}

typedef struct allreduce_args {
    const char *impl; /* NULL: all */
    uint64_t min_bytes, max_bytes, chunk_bytes;
    const char *max_text; /* --max-bytes as given, for messages */
    int iters, warmup, check, help;
    output_format format;
    const char *output; /* -o: rank 0's report goes there */
    const char *device; /* --device: predict instead of measuring */
    const char *op; /* --op (--device): all_reduce, all_gather, reduce_scatter; NULL: the first */
    const char *collective, *algorithms, *protocols;
    int nodes, gpus_per_node; /* --device's layout; 0 devices: the description's */
    const char *measure_only; /* an option that times a run, given (refused with --device) */
    const char *device_only;  /* an option of the predicted layout, given */
} allreduce_args;

static int parse_option(int c, allreduce_args *a, sm_status *st)
{
    const char *v = optarg;
    switch (c) {
    case 'i':
        if (strcmp(v, "all") && !sm_allreduce_impl_find(v)) {
            char names[256] = "";
            for (int k = 0; k < sm_allreduce_impl_count(); k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ",
                         sm_allreduce_impl_at(k)->name);
            if (!strcmp(v, "nccl")) /* known, not usable here: say why */
                return sm_fail(st, "--impl nccl: expected %sor all (%s)", names,
                               sm_allreduce_nccl_why());
            return sm_fail(st, "--impl %s: expected %sor all", v, names);
        }
        a->impl = strcmp(v, "all") ? v : NULL;
        return 0;
    case 'm':
        return parse_bytes("--min-bytes", v, &a->min_bytes, st);
    case 'M':
        a->max_text = v;
        return parse_bytes("--max-bytes", v, &a->max_bytes, st);
    case 'c':
        return parse_bytes("--chunk-bytes", v, &a->chunk_bytes, st);
    case 'n':
        return parse_count("--iters", v, 1, 1000000, &a->iters, st);
    case 'w':
        return parse_count("--warmup", v, 0, 1000000, &a->warmup, st);
    case 'f': {
        static const char *const formats[] = {"table", "csv", "json"};
        for (int k = 0; k < 3; k++)
            if (!strcmp(v, formats[k])) {
                a->format = (output_format)k;
                return 0;
            }
        return sm_fail(st, "--format %s: expected table, csv or json", v);
    }
    case 'k':
        a->check = 1;
        return 0;
    case 'K':
        a->check = 0;
        return 0;
    case 'o':
        a->output = v;
        return 0;
    case 'D':
        a->device = v;
        return 0;
    case 'C':
        a->collective = v;
        return 0;
    case 'A':
        a->algorithms = v;
        return 0;
    case 'P':
        a->protocols = v;
        return 0;
    case 'O':
        /* the option's error here, the library's ("op X: ...") for a caller of its own */
        if (strcmp(v, "all_reduce") && strcmp(v, "all_gather") && strcmp(v, "reduce_scatter"))
            return sm_fail(st, "--op %s: expected all_reduce, all_gather or reduce_scatter", v);
        a->op = v;
        return 0;
    case 'N':
        return parse_count("--nodes", v, 1, 1 << 20, &a->nodes, st); /* as predict and curve */
    case 'g':
        return parse_count("--gpus-per-node", v, 1, 4096, &a->gpus_per_node, st);
    }
    return -1;
}

static int parse_args(int argc, char **argv, allreduce_args *a, sm_status *st)
{
    *a = (allreduce_args){.min_bytes = 1024,
                          .max_bytes = UINT64_C(64) << 20,
                          .chunk_bytes = SM_RING_DEFAULT_CHUNK_ELEMS * sizeof(float),
                          .max_text = "64M",
                          .iters = 20,
                          .warmup = 5,
                          .check = 1,
                          .format = FORMAT_TABLE};
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"impl", required_argument, 0, 'i'},
                                         {"min-bytes", required_argument, 0, 'm'},
                                         {"max-bytes", required_argument, 0, 'M'},
                                         {"chunk-bytes", required_argument, 0, 'c'},
                                         {"iters", required_argument, 0, 'n'},
                                         {"warmup", required_argument, 0, 'w'},
                                         {"format", required_argument, 0, 'f'},
                                         {"check", no_argument, 0, 'k'},
                                         {"no-check", no_argument, 0, 'K'},
                                         {"output", required_argument, 0, 'o'},
                                         {"device", required_argument, 0, 'D'},
                                         {"nodes", required_argument, 0, 'N'},
                                         {"gpus-per-node", required_argument, 0, 'g'},
                                         {"collective", required_argument, 0, 'C'},
                                         {"algorithm", required_argument, 0, 'A'},
                                         {"protocol", required_argument, 0, 'P'},
                                         {"op", required_argument, 0, 'O'},
                                         {0, 0, 0, 0}};
    a->nodes = 1;
    for (int c; (c = next_option(argc, argv, "ho:g:", opts, st->msg, sizeof st->msg)) != -1;) {
        if (c == 'h') {
            a->help = 1;
            return 0;
        }
        if (c == '?' || parse_option(c, a, st))
            return -1;
        for (const struct option *o = opts; o->name; o++)
            if (o->val == c && strchr("inwckK", c))
                a->measure_only = o->name;
            else if (o->val == c && strchr("NgCAPO", c))
                a->device_only = o->name;
    }
    if (a->device && a->measure_only)
        return sm_fail(st, "--%s times a run; --device predicts one: give one or the other",
                       a->measure_only);
    if (!a->device && a->device_only)
        return sm_fail(st,
                       "--%s describes a predicted layout: it needs --device (mpirun sets "
                       "the ranks of a measured run)",
                       a->device_only);
    if (optind < argc)
        return sm_fail(st, "unexpected argument '%s' (scalemeter help allreduce)", argv[optind]);
    if (a->min_bytes > a->max_bytes)
        return sm_fail(st, "--min-bytes %" PRIu64 " is larger than --max-bytes %" PRIu64,
                       a->min_bytes, a->max_bytes);
    return 0;
}

/* Nodes the ranks run on: one shared-memory communicator per node, counted by its rank 0;
 * and the ranks on this rank's node, which share its memory (1 and 1 where MPI cannot say). */
static void node_layout(int *nodes, int *local)
{
    MPI_Comm node;
    int rank = 0, leaders = 1;
    *nodes = *local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, local);
    leaders = rank == 0;
    if (MPI_Allreduce(&leaders, nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        *nodes = 1;
    MPI_Comm_free(&node);
}

static void print_header(const allreduce_args *a, json_writer *w, int ranks, int nodes)
{
    if (a->format == FORMAT_CSV) {
        printf("bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s\n");
    } else if (a->format == FORMAT_JSON) {
        json_begin_object(w);
        json_field_int(w, "ranks", ranks);
        json_field_int(w, "nodes", nodes);
        json_field_int(w, "iters", a->iters);
        json_field_int(w, "warmup", a->warmup);
        json_key(w, "chunk_bytes");
        json_whole(w, (double)a->chunk_bytes);
        json_field_bool(w, "check", a->check);
        json_field_string(w, "time", "max over ranks of the mean per run");
        json_warning_member(w, ""); /* an option's (given twice), as --device's sweep says it */
        json_key(w, "results");
        json_begin_array(w);
        json_one_per_line(w);
    } else {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(version, &len);
        version[strcspn(version, ",\n")] = '\0';
        printf("# all-reduce, float sum in place, %d ranks on %d node%s (%s); %d timed runs after "
               "%d warm-up;\n"
               "# ring chunk %" PRIu64 " bytes; time: max over ranks of the mean per run\n",
               ranks, nodes, nodes == 1 ? "" : "s", version, a->iters, a->warmup, a->chunk_bytes);
        printf("%12s  %-5s %5s  %10s  %10s  %10s  %5s\n", "bytes", "impl", "ranks", "time",
               "algbw GB/s", "busbw GB/s", "check");
    }
    output_flush();
}

static void print_row(const allreduce_args *a, json_writer *w, const char *impl,
                      const sm_allreduce_result *given, int nodes)
{
    /* one rank sends nothing: bytes over the call's time is no bandwidth (427 TB/s of
     * "algbw" was printed); not known, as everywhere a figure is not */
    sm_allreduce_result one = *given;
    const sm_allreduce_result *r = &one;
    if (one.ranks == 1)
        one.algbw_gb_s = one.busbw_gb_s = NAN;
    if (a->format == FORMAT_CSV) {
        char algbw[32] = "", busbw[32] = "";
        if (isfinite(r->algbw_gb_s))
            snprintf(algbw, sizeof algbw, "%.6g", r->algbw_gb_s);
        if (isfinite(r->busbw_gb_s))
            snprintf(busbw, sizeof busbw, "%.6g", r->busbw_gb_s);
        printf("%zu,%s,%d,%d,%.6e,%s,%s\n", r->bytes, impl, r->ranks, nodes, r->time_s, algbw,
               busbw);
    } else if (a->format == FORMAT_JSON) {
        json_begin_object(w);
        json_field_int(w, "bytes", (int64_t)r->bytes);
        json_field_string(w, "impl", impl);
        json_field_int(w, "ranks", r->ranks);
        json_key(w, "time_s");
        json_number_digits(w, r->time_s, 7);
        json_field_number(w, "algbw_gb_s", r->algbw_gb_s);
        json_field_number(w, "busbw_gb_s", r->busbw_gb_s);
        json_field_bool(w, "checked", r->checked);
        json_end(w);
    } else {
        char t[32];
        char algbw[32] = "-", busbw[32] = "-";
        if (isfinite(r->algbw_gb_s))
            snprintf(algbw, sizeof algbw, "%.3f", r->algbw_gb_s);
        if (isfinite(r->busbw_gb_s))
            snprintf(busbw, sizeof busbw, "%.3f", r->busbw_gb_s);
        printf("%12zu  %-5s %5d  %10s  %10s  %10s  %5s\n", r->bytes, impl, r->ranks,
               fmt_seconds(r->time_s, t, sizeof t), algbw, busbw, r->checked ? "ok" : "-");
    }
    output_flush();
}

/* After a step that may fail on some ranks only: all agree, and the lowest failing rank's
 * message is printed (by rank 0 when it is that rank, else prefixed with the rank). */
static int agree(int failed, const sm_status *st, int rank, int ranks)
{
    int mine = failed ? rank : ranks, first = ranks;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        first = failed ? rank : 0;
    if (first == ranks)
        return 0;
    if (rank == first) {
        if (rank)
            fprintf(stderr, "scalemeter allreduce: rank %d: %s\n", rank, st->msg);
        else
            report_error(st->msg);
    }
    return -1;
}

static int sweep(const allreduce_args *a, int rank, int ranks)
{
    const sm_allreduce_impl *impls[16];
    void *ctx[16] = {NULL};
    int n_impls = 0, rc = 0;
    for (int i = 0; i < sm_allreduce_impl_count() && n_impls < 16; i++)
        if (!a->impl || !strcmp(a->impl, sm_allreduce_impl_at(i)->name))
            impls[n_impls++] = sm_allreduce_impl_at(i);
    size_t max_count = (size_t)(a->max_bytes / sizeof(float));
    sm_allreduce_options opt = {(size_t)(a->chunk_bytes / sizeof(float))};
    sm_allreduce_config cfg = {a->warmup, a->iters, a->check};
    sm_status st = {""};
    /* Memory is overcommitted: an allocation too large succeeds and the rank is killed when it
     * touches the pages, so the size is checked against the node's memory first, for all the
     * ranks on it (four ranks of 8 GiB each passed a check of one against 23.5 GiB, and the
     * kernel killed one) */
    int nodes, on_node;
    node_layout(&nodes, &on_node);
    uint64_t need = (uint64_t)(n_impls + 1) * a->max_bytes, local = (uint64_t)on_node;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    float *host = NULL;
    if (pages > 0 && page > 0 && need * local > (uint64_t)pages * (uint64_t)page)
        sm_fail(&st,
                "--max-bytes %s: needs %" PRIu64 " MiB per rank, %" PRIu64 " MiB for the %" PRIu64
                " rank%s on this node, which has %" PRIu64 " MiB",
                a->max_text, need >> 20, (need * local) >> 20, local, local == 1 ? "" : "s",
                ((uint64_t)pages * (uint64_t)page) >> 20);
    else if (!(host = malloc(max_count * sizeof *host)))
        sm_fail(&st, "--max-bytes %s: cannot allocate the check buffer", a->max_text);
    if (agree(!host, &st, rank, ranks)) {
        free(host);
        return 1;
    }
    int opened = 0;
    for (; opened < n_impls; opened++)
        if (impls[opened]->open(&ctx[opened], max_count, MPI_COMM_WORLD, &opt, &st)) {
            if (rank == 0)
                report_error(st.msg);
            rc = 1;
            break;
        }
    json_writer w;
    json_init(&w, stdout);
    if (rank == 0 && !rc)
        print_header(a, &w, ranks, nodes);
    for (uint64_t bytes = a->min_bytes; !rc && bytes <= a->max_bytes; bytes *= 2)
        for (int i = 0; !rc && i < n_impls; i++) {
            sm_allreduce_result r;
            int failed = sm_allreduce_measure(impls[i], ctx[i], (size_t)(bytes / sizeof(float)),
                                              host, &cfg, MPI_COMM_WORLD, &r, &st);
            if (agree(failed, &st, rank, ranks))
                rc = 1;
            else if (rank == 0)
                print_row(a, &w, impls[i]->name, &r, nodes);
        }
    if (rank == 0 && a->format == FORMAT_JSON && opened == n_impls) {
        json_end(&w); /* closed even after an error, so stdout stays valid JSON */
        json_end(&w);
    }
    for (int i = 0; i < opened; i++)
        impls[i]->close(ctx[i]);
    free(host);
    return rc;
}

/* --device: the sweep as the description predicts it, in all_reduce_perf's units (busbw =
 * algbw x 2(n-1)/n, whatever algorithm runs, as nccl-tests computes it). */
static int predicted_sweep(const allreduce_args *a)
{
    enum { MAX_SIZES = 64 };
    double bytes[MAX_SIZES];
    sm_allreduce_estimate e[MAX_SIZES];
    sm_allreduce_layout layout = {.collective = a->collective,
                                  .nodes = a->nodes,
                                  .gpus_per_node = a->gpus_per_node,
                                  .algorithms = a->algorithms,
                                  .protocols = a->protocols,
                                  .op = a->op};
    sm_status st = {""};
    /* the layout first (the description's devices per node where -g gives none), for the sizes */
    if (sm_device_allreduce(a->device, &layout, NULL, 0, NULL, &st)) {
        report_error(st.msg);
        return strncmp(st.msg, "--", 2) == 0 ? 2 : 1; /* an option's value: a usage error */
    }
    /* 2^20 nodes of 4096 devices are 2^32 ranks: an int wrapped to 0 (busbw -inf) */
    int g = layout.gpus_per_node;
    long long ranks = (long long)a->nodes * g;
    /* nccl-tests' sizes: whole floats, and for all_gather_perf and reduce_scatter_perf whole
     * floats a rank (its count / nranks, times nranks), so 4 bytes on 8 ranks is no collective
     * there; such sizes are left out, said once */
    int per_rank = a->op && strcmp(a->op, "all_reduce") != 0;
    double unit = (double)sizeof(float) * (per_rank ? (double)ranks : 1.0), below = 0;
    int n = 0;
    for (uint64_t b = a->min_bytes; b <= a->max_bytes && n < MAX_SIZES; b *= 2) {
        double whole = floor((double)b / unit) * unit;
        if (whole > 0)
            bytes[n++] = whole;
        else
            below = (double)b;
    }
    if (!n) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "--max-bytes %.0f: below one float%s (%.0f bytes), the least nccl-tests "
                 "moves; give at least that",
                 (double)a->max_bytes, per_rank ? " a rank" : "", unit);
        return report_error(msg), 2;
    }
    if (below > 0)
        say_warning("sizes below %.0f bytes (one float%s) left out: nccl-tests rounds them "
                    "down to none",
                    unit, per_rank ? " a rank" : "");
    if (sm_device_allreduce(a->device, &layout, bytes, n, e, &st)) {
        report_error(st.msg);
        return strncmp(st.msg, "--", 2) == 0 ? 2 : 1;
    }
    const char *collective = layout.collective;
    /* nccl-tests' bus factor: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and
     * reduce-scatter */
    int reduce = !a->op || !strcmp(a->op, "all_reduce");
    double factor = (reduce ? 2.0 : 1.0) * (double)(ranks - 1) / (double)ranks;
    const char *op = a->op ? a->op : "all_reduce";
    json_writer w;
    json_init(&w, stdout);
    if (a->format == FORMAT_CSV) {
        /* op: fit-comm reads an all-gather's or reduce-scatter's rows as half a ring */
        printf("bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s,algorithm,protocol,op\n");
    } else if (a->format == FORMAT_JSON) {
        json_begin_object(&w);
        json_field_string(&w, "device", a->device);
        json_field_string(&w, "op", op);
        json_field_string(&w, "collective", collective);
        json_field_int(&w, "ranks", ranks);
        json_field_int(&w, "nodes", a->nodes);
        json_field_int(&w, "gpus_per_node", g);
        /* without the line's leading space; null where nothing restricts the model */
        json_field_string(
            &w, "restriction",
            layout.restriction[0] ? layout.restriction + (layout.restriction[0] == ' ') : NULL);
        json_warning_member(&w, "");
        json_key(&w, "results");
        json_begin_array(&w);
        json_one_per_line(&w);
    } else {
        printf("# %s predicted by %s, %d node%s x %d devices, collective %s%s "
               "(docs/scaling.md)\n%12s  %5s  %10s  %10s  %10s  %-9s %s\n",
               op, a->device, a->nodes, a->nodes == 1 ? "" : "s", g, collective, layout.restriction,
               "bytes", "ranks", "time", "algbw GB/s", "busbw GB/s", "algorithm", "protocol");
    }
    for (int i = 0; i < n; i++) {
        /* one device moves nothing in no time: bytes / 0 is no bandwidth (null, empty, -) */
        double t = e[i].seconds, algbw = t > 0 ? bytes[i] / t / 1e9 : NAN;
        double busbw = algbw * factor;
        /* CSV: empty where not known; 6 digits as JSON's, not 4 decimals, which wrote a
         * rate below 50 KB/s (4 bytes on many nodes) as 0 */
        char bw[2][32] = {"", ""};
        if (isfinite(algbw)) {
            snprintf(bw[0], sizeof bw[0], "%.6g", algbw);
            snprintf(bw[1], sizeof bw[1], "%.6g", busbw);
        }
        if (a->format == FORMAT_CSV) {
            const char *protocol = allreduce_protocol(e[i].protocol);
            printf("%.0f,model,%lld,%d,%.6e,%s,%s,%s,%s,%s\n", bytes[i], ranks, a->nodes, t, bw[0],
                   bw[1], e[i].algorithm, protocol ? protocol : "", op);
        } else if (a->format == FORMAT_JSON) {
            json_begin_object(&w);
            json_key(&w, "bytes");
            json_whole(&w, bytes[i]);
            json_key(&w, "time_s");
            json_number_digits(&w, t, 7);
            json_field_number(&w, "algbw_gb_s", algbw);
            json_field_number(&w, "busbw_gb_s", busbw);
            json_field_string(&w, "algorithm", e[i].algorithm);
            json_field_string(&w, "protocol", allreduce_protocol(e[i].protocol));
            json_end(&w);
        } else {
            char ts[32];
            char ta[32] = "-", tb[32] = "-";
            if (isfinite(algbw)) {
                snprintf(ta, sizeof ta, "%.3f", algbw);
                snprintf(tb, sizeof tb, "%.3f", busbw);
            }
            printf("%12.0f  %5lld  %10s  %10s  %10s  %-9s %s\n", bytes[i], ranks,
                   fmt_seconds(t, ts, sizeof ts), ta, tb, e[i].algorithm, e[i].protocol);
        }
    }
    if (a->format == FORMAT_JSON) {
        json_end(&w);
        json_end(&w);
    }
    return 0;
}

/* cmd_allreduce with its arguments parsed (bad: refused, st saying why) and as given. */
static int run_allreduce(allreduce_args a, int bad, sm_status st, int argc, char **given)
{
    /* under a launcher of several ranks, said once the ranks' arguments are compared (bench) */
    if (bad && launcher_ranks() < 2) {
        if (launcher_rank() == 0)
            fprintf(stderr, "scalemeter allreduce: %s\n", st.msg);
        return 2;
    }
    if (!bad && a.help) {
        if (launcher_rank() == 0)
            usage();
        return 0;
    }
    int rc = 0;
    if (!bad) {
        output_reads("configs/devices", a.device);
        rc = launcher_rank() == 0 ? output_to("allreduce", a.output) : 0;
        if (rc)
            return rc;
        if (a.device)
            return predicted_sweep(&a);
    }
#ifdef OPEN_MPI /* MPICH talks PMI-2 to srun; Debian's Open MPI, PMIx alone */
    char why[400];
    if (launcher_srun_without_pmix(why, sizeof why)) {
        if (launcher_rank() == 0)
            fprintf(stderr, "scalemeter allreduce: %s\n", why);
        return 1;
    }
#endif
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return report_error("MPI_Init failed");
    /* Errors come back as codes and travel up as messages, instead of aborting the job. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    sm_status same;
    if (sm_same_arguments(MPI_COMM_WORLD, argc, given, &same)) {
        if (same.msg[0])
            fprintf(stderr, "scalemeter allreduce: rank %d: %s\n", rank, same.msg);
        rc = 2;
    } else if (bad) {
        if (rank == 0)
            fprintf(stderr, "scalemeter allreduce: %s\n", st.msg);
        rc = 2;
    } else {
        rc = sweep(&a, rank, ranks);
    }
    MPI_Finalize();
    return rc;
}

int cmd_allreduce(int argc, char **argv)
{
    allreduce_args a;
    sm_status st = {""};
    char **given = launcher_argv_copy(argc, argv);
    if (!given)
        return report_error("out of memory");
    int bad = parse_args(argc, argv, &a, &st);
    int rc = run_allreduce(a, bad, st, argc, given);
    free(given);
    return rc;
}
