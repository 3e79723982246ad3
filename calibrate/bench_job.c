/*
 * One `scalemeter bench` job (bench_job.h): layout, networks, configurations, resuming, and
 * each configuration measured and stored in the measurement CSV before the next.
 */
#include "bench_job.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_budget.h"
#include "runs_writer.h"
#include "scalemeter/fit.h"

#define MAX_NOTES 4

/* The columns after the backend's (sm_run_columns'): the all-reduce and the bucket size in MiB
 * that summed a row's gradients, empty on one rank, where none ran. Without them a resumed job
 * of another --allreduce or --bucket-mib took the rows of the first for its own. A file written
 * before them lacks both: its rows append without them (runs_writer.h). */
#define N_NEWER 2
static const char *const newer_columns[N_NEWER] = {"allreduce", "bucket_mib"};
#define MAX_COLS (SM_N_RUN_COLS + N_NEWER)

/* A configuration's row; the columns' order is the core's (sm_run_columns), then the newer
 * ones. The model is the name or path as given, whole: a path cut to f's 64 bytes named no
 * file, and two paths alike in their first 63 bytes were taken for one configuration when
 * resuming. */
typedef struct row {
    char f[SM_N_RUN_COLS][64];
    char newer[N_NEWER][64];
    const char *model;
} row;

struct sm_bench_job {
    const sm_bench_spec *s;
    MPI_Comm comm;
    sm_registry *reg;
    sm_network **nets; /* n_models x images, loaded once */
    int n_nets;
    sm_bench_item *items;
    sm_network **item_net;
    int *item_model; /* the index in s->models of each item's model */
    int n;
    void *backend_job;
    int backend_open;
    sm_runs_writer *w; /* rank 0 */
    char **spellings;  /* rank 0: per model, the name the CSV holds it by, where another */
    char **beside;     /* per model, its file's path from the CSV's folder, where another */
    char notes[MAX_NOTES][SM_STATUS_LEN + 64];
    int n_notes;
    row last; /* the row measure stored last */
    const char *cols[MAX_COLS];
    const char *fields[MAX_COLS];
    int n_cols; /* the CSV's: the backend's and the newer ones, or the backend's of an older file */
    int key_cols[16], n_key;
};

/* Column k of r: the backend's columns, then the newer ones. */
static const char *field(const sm_bench_job *j, const row *r, int k)
{
    int n = j->s->backend->n_columns;
    return k == SM_COL_MODEL ? r->model : k < n ? r->f[k] : r->newer[k - n];
}

/* A row's key: what makes a configuration, so a resumed job skips the rows the CSV holds. The
 * CPU's first N_KEY; a GPU row's precision, algorithm choice and device too; then the newer
 * columns (last, as runs_writer.h asks). */
static const int key_columns[] = {
    SM_COL_MODEL,   SM_COL_IMAGE,   SM_COL_BATCH,     SM_COL_NODES,     SM_COL_GPUS,
    SM_COL_BACKEND, SM_COL_THREADS, SM_COL_PRECISION, SM_COL_CONV_ALGO, SM_COL_DEVICE};
#define N_KEY 7
#define N_KEY_GPU 10

/* The CSV's columns and key, before the file is read: the backend's and the newer ones. */
static void columns_init(sm_bench_job *j)
{
    int n = j->s->backend->n_columns, base = n > SM_N_CPU_COLS ? N_KEY_GPU : N_KEY;
    for (int k = 0; k < n; k++)
        j->cols[k] = sm_run_columns[k];
    memcpy(j->key_cols, key_columns, (size_t)base * sizeof *key_columns);
    for (int k = 0; k < N_NEWER; k++) {
        j->cols[n + k] = newer_columns[k];
        j->key_cols[base + k] = n + k;
    }
    j->n_cols = n + N_NEWER;
    j->n_key = base + N_NEWER;
}

int sm_bench_job_columns(const sm_bench_job *j) { return j->n_cols; }

const char *const *sm_bench_job_header(const sm_bench_job *j) { return j->cols; }

int sm_bench_job_records_allreduce(const sm_bench_job *j)
{
    return j->n_cols > j->s->backend->n_columns;
}

/* After a collective step: -1 on every rank when any failed, the message kept by the lowest
 * failing rank only. */
static int agree_failed(MPI_Comm comm, int failed, sm_status *st)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    int mine = failed ? rank : ranks, first = ranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == ranks)
        return 0;
    if (rank != first)
        st->msg[0] = '\0';
    return -1;
}

int sm_bench_layout_of(MPI_Comm comm, sm_bench_layout *l, sm_status *st)
{
    MPI_Comm local;
    int local_rank = 0, local_size = 1;
    MPI_Comm_rank(comm, &l->rank);
    MPI_Comm_size(comm, &l->ranks);
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_rank(local, &local_rank);
        MPI_Comm_size(local, &local_size);
        MPI_Comm_free(&local);
    }
    int leader = local_rank == 0, lo = local_size, hi = local_size;
    MPI_Allreduce(&leader, &l->nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm);
    l->per_node = local_size;
    if (lo == hi)
        return 0;
    if (l->rank != 0) {
        st->msg[0] = '\0';
        return -1;
    }
    return sm_fail(st,
                   "hosts run %d to %d ranks each; start the same number on every host "
                   "(the layout is nodes x ranks per node)",
                   lo, hi);
}

int sm_bench_default_threads(MPI_Comm comm)
{
    sm_cpu_mask mine, *masks = NULL;
    sm_cpu_affinity(&mine);
    int me = 0, n = 1;
    MPI_Comm local;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_rank(local, &me);
        MPI_Comm_size(local, &n);
        masks = calloc((size_t)n, sizeof *masks);
        if (masks && MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, masks, (int)sizeof mine,
                                   MPI_BYTE, local) != MPI_SUCCESS) {
            free(masks);
            masks = NULL;
        }
        MPI_Comm_free(&local);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = masks ? sm_threads_per_rank(masks, n, me, sm_cpu_quota(), (int)online)
                        : sm_threads_per_rank(&mine, 1, 0, sm_cpu_quota(), (int)online);
    free(masks);
    return threads;
}

/* The image size a network was loaded at: H of C x H x W (or C x D x H x W), or the length of
 * a sequence. */
static int64_t image_of(const sm_network *net) { return sm_network_image(net); }

static void note(sm_bench_job *j, const char *what, const char *text)
{
    if (j->n_notes < MAX_NOTES)
        snprintf(j->notes[j->n_notes++], sizeof j->notes[0], "%s%s%s", what ? what : "",
                 what ? ": " : "", text);
}

/* Loads every (model, image) once on every rank and checks it can run, before measuring. */
static int load_networks(sm_bench_job *j, sm_status *st)
{
    const sm_bench_spec *s = j->s;
    int n_images = s->n_images ? s->n_images : 1;
    j->n_nets = s->n_models * n_images;
    if (!(j->nets = calloc((size_t)j->n_nets, sizeof *j->nets)))
        return sm_fail(st, "out of memory");
    if (sm_registry_open(&j->reg, st))
        return -1;
    for (int m = 0; m < s->n_models; m++)
        for (int i = 0; i < n_images; i++) {
            sm_network_options opt = {.image = s->n_images ? s->images[i] : 0};
            sm_network **net = &j->nets[m * n_images + i];
            if (sm_network_load(j->reg, s->models[m], &opt, net, st) || s->backend->check(*net, st))
                return -1;
        }
    return 0;
}

/* Every rank loaded the same networks: each reads the network file on its own node, and a
 * stale copy under the same name (a classifier of 1000 classes where the others have 10) sent
 * gradients of another size into the all-reduce, which hung (ring) or corrupted the heap (MPI).
 * Each network's weights, tensors, FLOPs and layers against rank 0's; the lowest rank that
 * differs says which and how. */
static int same_networks(sm_bench_job *j, sm_status *st)
{
    enum { N = 4 };
    int64_t *mine = calloc((size_t)j->n_nets * N + 1, sizeof *mine);
    int64_t *ref = calloc((size_t)j->n_nets * N + 1, sizeof *ref);
    int failed = !mine || !ref ? (sm_fail(st, "out of memory"), 1) : 0;
    for (int k = 0; !failed && k < j->n_nets; k++) {
        sm_metrics m;
        if (sm_network_metrics(j->nets[k], 1, &m, st)) {
            failed = 1;
            break;
        }
        int64_t v[N] = {m.weights, m.param_tensors, m.flops, j->nets[k]->n_layers};
        memcpy(mine + (size_t)k * N, v, sizeof v);
    }
    if (agree_failed(j->comm, failed, st)) {
        free(mine), free(ref);
        return -1;
    }
    memcpy(ref, mine, (size_t)j->n_nets * N * sizeof *ref);
    MPI_Bcast(ref, j->n_nets * N, MPI_INT64_T, 0, j->comm);
    int n_images = j->s->n_images ? j->s->n_images : 1;
    for (int k = 0; !failed && k < j->n_nets; k++) {
        const int64_t *a = mine + (size_t)k * N, *b = ref + (size_t)k * N;
        if (memcmp(a, b, N * sizeof *a))
            failed = sm_fail(st,
                             "%s loads as %lld weights in %lld tensors, %lld FLOPs a sample, "
                             "%lld layers, where rank 0's has %lld, %lld, %lld, %lld: every rank "
                             "must read the same network (another file of that name on this "
                             "rank's node?)",
                             j->s->models[k / n_images], (long long)a[0], (long long)a[1],
                             (long long)a[2], (long long)a[3], (long long)b[0], (long long)b[1],
                             (long long)b[2], (long long)b[3]) != 0;
    }
    free(mine), free(ref);
    return agree_failed(j->comm, failed, st);
}

static void row_init(const sm_bench_job *j, row *r, int i)
{
    const sm_bench_spec *s = j->s;
    const sm_bench_item *c = &j->items[i];
    memset(r, 0, sizeof *r);
    r->model = c->model;
    snprintf(r->f[SM_COL_IMAGE], sizeof r->f[0], "%lld", (long long)c->image);
    snprintf(r->f[SM_COL_BATCH], sizeof r->f[0], "%lld", (long long)c->batch);
    snprintf(r->f[SM_COL_NODES], sizeof r->f[0], "%d", s->layout.nodes);
    snprintf(r->f[SM_COL_GPUS], sizeof r->f[0], "%d", s->layout.per_node);
    snprintf(r->f[SM_COL_BACKEND], sizeof r->f[0], "%s", s->backend->name);
    snprintf(r->f[SM_COL_THREADS], sizeof r->f[0], "%lld", (long long)s->threads);
    if (s->backend->n_columns > SM_N_CPU_COLS) {
        const char *device = s->backend->device(j->backend_job);
        snprintf(r->f[SM_COL_PRECISION], sizeof r->f[0], "%s",
                 s->opt.precision ? s->opt.precision : "fp32");
        snprintf(r->f[SM_COL_CONV_ALGO], sizeof r->f[0], "%s",
                 s->opt.conv_algo ? s->opt.conv_algo : "");
        snprintf(r->f[SM_COL_DEVICE], sizeof r->f[0], "%.63s", device ? device : "");
    }
    if (s->layout.ranks > 1) {
        snprintf(r->newer[0], sizeof r->newer[0], "%s", s->backend->collective(&s->cfg));
        snprintf(r->newer[1], sizeof r->newer[1], "%.6g",
                 (double)s->cfg.bucket_floats * sizeof(float) / 1048576.0);
    }
}

/* The configurations in the order of the arguments: models, then images, then batches. */
/* Whether two model names find one network file (a symbolic link is a name of its own, as
 * fit reads the rows). */
static int same_network(const char *a, const char *b)
{
    char pa[PATH_MAX], pb[PATH_MAX];
    struct stat sa, sb;
    sm_status ignored;
    return !sm_network_find(a, pa, sizeof pa, &ignored) &&
           !sm_network_find(b, pb, sizeof pb, &ignored) && !lstat(pa, &sa) && !lstat(pb, &sb) &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Whether the image and batch of configuration (model m, image i, batch b) were named before:
 * --batch 1,1 and --image 16,16, as one network by two names (net.ini,./net.ini, list_items),
 * measured a configuration twice, and the CSV held it twice, which fit weighs double. */
static int named_before(const sm_bench_job *j, int m, int i, int b)
{
    const sm_bench_spec *s = j->s;
    int n_images = s->n_images ? s->n_images : 1;
    for (int e = 0; e < i; e++)
        if (image_of(j->nets[m * n_images + e]) == image_of(j->nets[m * n_images + i]))
            return 1;
    for (int e = 0; e < b; e++)
        if (s->batches[e] == s->batches[b])
            return 1;
    return 0;
}

/* path's components, lexically: "." dropped, ".." taking the one before (not past the root);
 * n of them in part[] (pointers into buf). */
static int components(char *buf, char **part, int max)
{
    int n = 0;
    for (char *c = strtok(buf, "/"); c; c = strtok(NULL, "/")) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            n -= n > 0;
            continue;
        }
        if (n == max)
            return -1;
        part[n++] = c;
    }
    return n;
}

/* A network file's path as fit and validate read it from a CSV in another folder: from the
 * CSV's folder (calibration.md: a relative name is the file beside the CSV where there is one,
 * so that a CSV and its networks moved together read the same from any folder). bench wrote
 * the path from the current folder, which fit then looked for beside the CSV (-o sub/runs.csv
 * of net.ini: "unknown model", or another net.ini there, silently). Its absolute path where no
 * folder holds both; NULL where the name stays as given: a zoo name, an absolute path, a CSV in
 * the current folder. */
static char *from_csv_folder(const char *model, const char *csv)
{
    struct stat sb;
    const char *slash = strrchr(csv, '/');
    if (model[0] == '/' || !slash || stat(model, &sb) != 0 || !S_ISREG(sb.st_mode))
        return NULL;
    char cwd[PATH_MAX], a[2 * PATH_MAX + 2], b[2 * PATH_MAX + 2];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    snprintf(a, sizeof a, "%s/%s", cwd, model);
    if (csv[0] == '/')
        snprintf(b, sizeof b, "%.*s", (int)(slash - csv), csv);
    else
        snprintf(b, sizeof b, "%s/%.*s", cwd, (int)(slash - csv), csv);
    char *pa[256], *pb[256], *ph[256];
    /* cwd's own components last: a and b are made of it */
    int na = components(a, pa, 256), nb = components(b, pb, 256), nh = components(cwd, ph, 256);
    if (na < 1 || nb < 0 || nh < 0)
        return NULL;
    int same = nb == nh;
    for (int k = 0; same && k < nb; k++)
        same = !strcmp(pb[k], ph[k]);
    if (same) /* the CSV lies in the current folder: the name as given reads the same */
        return NULL;
    int common = 0;
    while (common < nb && common < na - 1 && !strcmp(pa[common], pb[common]))
        common++;
    /* no folder holds both (a CSV in /tmp): the file's absolute path, from the root */
    int up = common == 0 ? 0 : nb - common;
    size_t len = 2 + 3 * (size_t)up;
    for (int k = common; k < na; k++)
        len += strlen(pa[k]) + 1;
    char *out = malloc(len);
    if (!out)
        return NULL;
    size_t used = common == 0 ? (size_t)snprintf(out, len, "/") : 0;
    for (int k = 0; k < up; k++)
        used += (size_t)snprintf(out + used, len - used, "../");
    for (int k = common; k < na; k++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", pa[k], k + 1 < na ? "/" : "");
    return out;
}

static int list_items(sm_bench_job *j, sm_status *st)
{
    const sm_bench_spec *s = j->s;
    int n_images = s->n_images ? s->n_images : 1;
    int most = j->n_nets * s->n_batches;
    j->items = calloc((size_t)most, sizeof *j->items);
    j->item_net = calloc((size_t)most, sizeof *j->item_net);
    j->item_model = calloc((size_t)most, sizeof *j->item_model);
    j->beside = calloc((size_t)s->n_models + 1, sizeof *j->beside);
    if (!j->items || !j->item_net || !j->item_model || !j->beside)
        return sm_fail(st, "out of memory");
    for (int m = 0; s->output && m < s->n_models; m++)
        j->beside[m] = from_csv_folder(s->models[m], s->output);
    int k = 0;
    for (int m = 0; m < s->n_models; m++) {
        int again = 0; /* the network of an earlier model */
        for (int e = 0; e < m && !again; e++)
            again = !strcmp(s->models[e], s->models[m]) || same_network(s->models[e], s->models[m]);
        for (int i = 0; i < n_images && !again; i++)
            for (int b = 0; b < s->n_batches; b++) {
                if (named_before(j, m, i, b))
                    continue;
                sm_network *net = j->nets[m * n_images + i];
                j->item_model[k] = m;
                sm_bench_item *c = &j->items[k];
                *c = (sm_bench_item){j->beside[m] ? j->beside[m] : s->models[m], image_of(net),
                                     s->batches[b], 0, 0};
                j->item_net[k] = net;
                sm_metrics mt;
                sm_status ignored; /* the estimate only orders the time left */
                if (sm_network_metrics(net, c->batch, &mt, &ignored) == 0)
                    c->work = (double)(2 * mt.flops + mt.bwd_flops) + 4.0 * (double)mt.weights;
                k++;
            }
    }
    j->n = k;
    return 0;
}

/* A network the CSV holds under another name (net.ini for ./net.ini, resnet18 for the zoo
 * file's path) resumes under that name: under its own every configuration was measured again,
 * and fit read the rows as another network's. Rank 0, which writes the rows. */
static int adopt_spellings(sm_bench_job *j, sm_status *st)
{
    const sm_bench_spec *s = j->s;
    if (!(j->spellings = calloc((size_t)s->n_models, sizeof *j->spellings)))
        return sm_fail(st, "out of memory");
    for (int m = 0; m < s->n_models; m++) {
        /* held by its path from the CSV's folder (from_csv_folder), as written now: kept */
        if (j->beside[m] && sm_runs_writer_holds(j->w, j->beside[m]))
            continue;
        /* else by the name given or another spelling of it (a file written before the paths
         * were the CSV folder's, or net.ini for ./net.ini): that one */
        if (j->beside[m] && sm_runs_writer_holds(j->w, s->models[m]) &&
            !(j->spellings[m] = strdup(s->models[m])))
            return sm_fail(st, "out of memory");
        if (!j->spellings[m] &&
            sm_runs_writer_spelling(j->w, s->models[m], same_network, &j->spellings[m]))
            return sm_fail(st, "out of memory");
    }
    for (int k = 0; k < j->n; k++)
        if (j->spellings[j->item_model[k]])
            j->items[k].model = j->spellings[j->item_model[k]];
    return 0;
}

/* The CSV opened by rank 0, and which configurations it holds, learned by every rank. */
static int open_output(sm_bench_job *j, sm_status *st)
{
    const char *what = NULL;
    columns_init(j);
    int failed =
        j->s->layout.rank == 0 && (sm_runs_writer_open(j->s->output, j->cols, j->n_cols, N_NEWER,
                                                       j->key_cols, j->n_key, &j->w, &what, st) ||
                                   adopt_spellings(j, st));
    if (j->w)
        j->n_cols = sm_runs_writer_columns(j->w);
    if (agree_failed(j->comm, failed, st))
        return -1;
    if (what)
        note(j, j->s->output, what);
    char *held = calloc((size_t)j->n, 1);
    if (agree_failed(j->comm, !held && sm_fail(st, "out of memory"), st)) {
        free(held);
        return -1;
    }
    for (int i = 0; j->w && i < j->n; i++) {
        row r;
        row_init(j, &r, i);
        const char *key[16];
        for (int k = 0; k < j->n_key; k++)
            key[k] = field(j, &r, j->key_cols[k]);
        held[i] = (char)sm_runs_writer_has(j->w, key);
    }
    MPI_Bcast(held, j->n, MPI_CHAR, 0, j->comm);
    for (int i = 0; i < j->n; i++)
        j->items[i].stored = held[i];
    free(held);
    return 0;
}

int sm_bench_job_open(const sm_bench_spec *s, MPI_Comm comm, sm_bench_job **out, sm_status *st)
{
    *out = NULL;
    sm_bench_job *j = calloc(1, sizeof *j);
    if (agree_failed(comm, !j && sm_fail(st, "out of memory"), st)) {
        free(j);
        return -1;
    }
    j->s = s;
    j->comm = comm;
    *out = j;
    if (agree_failed(comm, load_networks(j, st) != 0, st) || same_networks(j, st))
        return -1;
    /* after the networks, so that a layer without GPU kernels is named even without a GPU */
    char why[SM_STATUS_LEN + 32];
    if (s->backend->open(comm, &j->backend_job, why, sizeof why, st)) {
        agree_failed(comm, st->msg[0] != '\0', st);
        return -1;
    }
    j->backend_open = 1;
    if (why[0])
        note(j, NULL, why);
    if (agree_failed(comm, list_items(j, st) != 0, st))
        return -1;
    return open_output(j, st);
}

void sm_bench_job_close(sm_bench_job *j)
{
    if (!j)
        return;
    sm_runs_writer_close(j->w);
    if (j->backend_open)
        j->s->backend->close(j->backend_job);
    for (int k = 0; j->nets && k < j->n_nets; k++)
        sm_network_free(j->nets[k]);
    free(j->nets);
    for (int m = 0; j->spellings && m < j->s->n_models; m++)
        free(j->spellings[m]);
    free(j->spellings);
    for (int m = 0; j->beside && m < j->s->n_models; m++)
        free(j->beside[m]);
    free(j->beside);
    free(j->items);
    free(j->item_net);
    free(j->item_model);
    sm_registry_free(j->reg);
    free(j);
}

const char *sm_bench_job_note(const sm_bench_job *j, int k)
{
    return k >= 0 && k < j->n_notes ? j->notes[k] : NULL;
}

int sm_bench_job_count(const sm_bench_job *j) { return j->n; }

const sm_bench_item *sm_bench_job_item(const sm_bench_job *j, int i) { return &j->items[i]; }

static void row_times(row *r, const sm_bench_result *b)
{
    const double t[5] = {b->t_infer, b->t_fwd, b->t_bwd, b->t_grad, b->t_step};
    for (int k = 0; k < 5; k++)
        snprintf(r->f[SM_COL_INFER + k], sizeof r->f[0], "%.6g", t[k]);
    snprintf(r->f[SM_COL_REPS], sizeof r->f[0], "%d", b->reps);
    snprintf(r->f[SM_COL_STATUS], sizeof r->f[0], "ok");
    /* the energy columns stay empty where none was measured (and the CPU's rows lack them) */
    const double e[4] = {b->energy_j, b->energy_infer_j, b->energy_window_s,
                         b->energy_infer_window_s};
    const int col[4] = {SM_COL_ENERGY, SM_COL_ENERGY_INFER, SM_COL_ENERGY_WINDOW,
                        SM_COL_ENERGY_INFER_WINDOW};
    for (int k = 0; k < 4; k++)
        if (e[k] == e[k]) /* not NAN */
            snprintf(r->f[col[k]], sizeof r->f[0], k < 2 ? "%.6g" : "%.3g", e[k]);
}

/* A configuration that does not fit: status=oom, with empty times. */
static void oom_row(row *r)
{
    snprintf(r->f[SM_COL_REPS], sizeof r->f[0], "0");
    snprintf(r->f[SM_COL_STATUS], sizeof r->f[0], "oom");
}

int sm_bench_job_measure(sm_bench_job *j, int i, sm_bench_progress_fn progress, void *ctx, int *oom,
                         sm_status *st)
{
    const sm_bench_spec *s = j->s;
    row *r = &j->last;
    row_init(j, r, i);
    *oom = 0;
    sm_bench_options o = s->opt;
    o.batch = j->items[i].batch;
    o.per_node = s->layout.per_node;
    sm_bench_result res;
    int rc = sm_bench_measure(s->backend, j->backend_job, j->item_net[i], &o, &s->cfg, j->comm,
                              progress, ctx, &res, st);
    if (rc == SM_BENCH_RANK_FAILED)
        return rc;
    if (rc == -1) {
        /* the ranks that failed have the message, the others an empty one */
        agree_failed(j->comm, st->msg[0] != '\0', st);
        return -1;
    }
    if (rc == SM_BENCH_NOMEM)
        oom_row(r);
    else
        row_times(r, &res);
    *oom = rc == SM_BENCH_NOMEM;
    return 0;
}

int sm_bench_job_store(sm_bench_job *j, int i, const char *const **out_row, sm_status *st)
{
    *out_row = NULL;
    for (int k = 0; k < j->n_cols; k++)
        j->fields[k] = field(j, &j->last, k);
    int failed = j->w && sm_runs_writer_append(j->w, j->fields, st) != 0;
    if (agree_failed(j->comm, failed, st))
        return -1;
    j->items[i].stored = 1;
    if (j->w)
        *out_row = j->fields;
    return 0;
}
