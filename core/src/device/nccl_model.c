/* NCCL's own cost model of an all-reduce (src/graph/tuning.cc, read, not copied): for each
 * algorithm (ring, tree) and protocol (LL, LL128, Simple) a latency plus the bytes over an
 * algorithm bandwidth, and NCCL runs the one predicted fastest for the message size. Small
 * messages go to the low-latency protocols and to the tree across many nodes, large ones to
 * the ring on Simple, so the bandwidth reached grows with the message size. The device file's
 * link latencies are the Simple ring's per-step latencies; the other protocols' and the
 * tree's scale with NCCL's ratios between its hardware latencies. Where the node's switches
 * reduce (NVLink SHARP, Hopper's NVSwitch), NCCL also weighs NVLS and, across nodes, the NVLS
 * tree. NCCL's bandwidth caps per channel and for LL go by the GPU's generation and the host's
 * CPU (sm_nccl_system), and the tree's bandwidth by NCCL's correction per message size. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "device/allreduce_model.h"

enum { LL, LL128, SIMPLE, N_PROTOCOLS };
enum { RING, TREE, N_ALGORITHMS };

static const char *const algorithm_names[N_ALGORITHMS] = {"ring", "tree"};
static const char *const protocol_names[N_PROTOCOLS] = {"LL", "LL128", "Simple"};

/* NCCL's default tuning constants, microseconds: a collective's fixed latency, and one step's
 * latency over NVLink and over the network, per algorithm and protocol. */
static const double base_us[N_ALGORITHMS][N_PROTOCOLS] = {{6.6, 14.0, 8.4}, {6.8, 14.0, 8.4}};
static const double nvlink_us[N_ALGORITHMS][N_PROTOCOLS] = {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}};
static const double net_us[N_ALGORITHMS][N_PROTOCOLS] = {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}};

/* NCCL's bandwidth caps (GB/s), per GPU generation (Volta, Ampere, Hopper, Blackwell) and
 * node count (1, 2, more): per channel, of the ring on LL128, the tree's all-reduce, the tree
 * on LL128 and the NVLS tree (perChMax*Bws); LL's whole bus inside one node (llMaxBws). */
static const double ring_ll128_cap[4][3] = {
    {20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}};
static const double tree_cap[4][3] = {
    {26.5, 18.5, 10}, {24, 23.6, 17.8}, {38.7, 41.4, 36}, {70, 42.8, 24}};
static const double tree_ll128_cap[4][3] = {
    {20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29}, {55.6, 31.67, 20}};
static const double nvls_tree_cap[4][3] = {
    {26.5, 18.5, 10}, {24, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96, 80}};
static const double ll_cap_one_node[4] = {39, 87.7, 141, 282};

/* LL's whole bus across nodes (llMaxBws) goes by the host CPU instead: AMD's, or any other
 * (the one-node column unused). */
static const double ll_cap_amd[3] = {0, 22.5, 19}, ll_cap_other[3] = {0, 39, 20.4};

/* The column of NCCL's tables for a node count: 1, 2, more. */
static int node_column(int nodes) { return nodes <= 2 ? nodes - 1 : 2; }

/* NCCL's correction of the tree's bandwidth for medium messages, per protocol and power of two
 * of the size from 64 bytes (treeCorrectionFactor): the tree falls short of its model there. */
static const double tree_correction[N_PROTOCOLS][24] = {
    {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1, 1},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

static int floor_log2(double n)
{
    int k = 0;
    while (n >= 2) {
        n /= 2;
        k++;
    }
    return k;
}

/* The tree's correction for `bytes`, applied below 2^(limit+6) bytes as NCCL applies it. */
static double tree_correction_of(int p, double bytes, int limit)
{
    if (bytes < 64 || !(bytes < 0x1p100)) /* the second: floor_log2 would loop on inf */
        return 1;
    int k = floor_log2(bytes / 64);
    return k < limit ? tree_correction[p][k] : 1;
}

/* One capped bandwidth: a per-channel cap (GB/s) times the channels, or no cap at all where
 * the generation is unknown or on one node (NCCL's channels inside a node come from its
 * search of the NVLink graph, which no description states). */
static double channel_cap(const double cap[4][3], const sm_nccl_system *sys, int nodes,
                          int channels)
{
    if (sys->generation == SM_GPU_UNKNOWN || nodes == 1)
        return INFINITY;
    return channels * cap[sys->generation - 1][node_column(nodes)] * 1e9;
}

static double ll_cap(const sm_nccl_system *sys, int nodes)
{
    if (nodes == 1)
        return sys->generation == SM_GPU_UNKNOWN ? INFINITY
                                                 : ll_cap_one_node[sys->generation - 1] * 1e9;
    const double *cap = sys->host == SM_HOST_AMD ? ll_cap_amd : ll_cap_other;
    return cap[node_column(nodes)] * 1e9;
}

/* The bus bandwidth of algorithm a on protocol p, from the links' bus: the share a protocol
 * carries as data (LL: 4 bytes of flag per 4 of data; LL128: 8 of 128) and NCCL's
 * refinements and caps, in tuning.cc's order. The tree's all-reduce reaches 0.92 of the bus
 * on every protocol, and LL and LL128 take their shares of that. */
static double bus_bandwidth(int a, int p, double bus, int nodes, int channels,
                            const sm_nccl_system *sys)
{
    if (a == RING) {
        if (p == LL)
            return fmin(bus * 0.5, ll_cap(sys, nodes));
        if (p == LL128)
            return fmin(bus * 0.92, channel_cap(ring_ll128_cap, sys, nodes, channels));
        return bus;
    }
    bus = fmin(bus * 0.92, channel_cap(tree_cap, sys, nodes, channels));
    if (p == LL)
        return fmin(bus / 3.8, ll_cap(sys, nodes));
    if (p == LL128)
        return fmin(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                    channel_cap(tree_ll128_cap, sys, nodes, channels));
    return bus;
}

/* NVLS hardware latencies (NCCL's hwLat, Simple, us): NVLink 25, network 20.9 for the NVLS
 * tree. */
#define NVLS_NVLINK_US 25.0
#define NVLS_TREE_NET_US 20.9

/* NVLink SHARP, Simple protocol only, G >= 2 (NCCL wants two channels). The switches reduce,
 * so each GPU sends and receives its data once rather than 2(G-1)/G times. NCCL gives the node
 * G channels, one headed by each GPU; a GPU's links carry every channel once and its own
 * twice, so a channel gets B/(G+1) of the GPU's bandwidth B, and an all-reduce pipelines two
 * operations: a bus bandwidth of 2 e B (G-1)/(G+1), e the NVLS efficiency (docs/scaling.md
 * compares it with nccl-tests' figures on H100). Across nodes (the NVLS tree) the network's
 * bandwidth caps it, doubled on two nodes, as do NCCL's per-channel caps, and Blackwell on
 * x86 hosts takes the tree's correction. Bus bandwidth converts to time as a ring's: 2(n-1)/n
 * bytes over it. */
static double nvls_seconds(double bytes, int nodes, int g, int channels, const sm_link *intra,
                           const sm_link *inter, const sm_nccl_system *sys)
{
    double efficiency = sys->nvls_efficiency;
    if (efficiency <= 0 || g < 2)
        return INFINITY;
    double n = (double)nodes * g;
    double bus = 2 * efficiency * intra->bandwidth * (g - 1) / (g + 1);
    double latency = intra->latency * NVLS_NVLINK_US / nvlink_us[RING][SIMPLE];
    if (nodes > 1) {
        double net = inter->bandwidth * g * (nodes <= 2 ? 2 : 1);
        bus = fmin(bus, fmin(net, channel_cap(nvls_tree_cap, sys, nodes, channels)));
        if (sys->generation == SM_GPU_BLACKWELL && sys->host != SM_HOST_OTHER)
            bus *= tree_correction_of(SIMPLE, bytes, 24);
        latency += 2 * floor_log2(nodes) * inter->latency * NVLS_TREE_NET_US / net_us[RING][SIMPLE];
    }
    return latency + bytes * 2 * (n - 1) / n / bus;
}

/* NCCL's bus bandwidth: a channel's ring crosses nodes through one port, the node's channels
 * through all of them, so between nodes the G rings' shares add up to the node's ports; inside
 * the node NVLink bounds it. A node of one device has no link inside it: its ring goes from
 * the GPU to its network port alone (NCCL's search starts bwIntra at bwInter and finds no
 * GPU-to-GPU path to lower it), so the intra-node link, which such a description need not
 * give, bounds nothing. */
static double ring_bus(int nodes, int g, const sm_link *intra, const sm_link *inter)
{
    if (nodes == 1)
        return intra->bandwidth;
    if (g == 1)
        return inter->bandwidth;
    return fmin(intra->bandwidth, inter->bandwidth * g);
}

/* The ring on protocol p: 2(n-1) steps, 2(N-1) of them across the network; it moves 2(n-1)/n
 * of the bytes through every link. */
static sm_nccl_ring_terms ring_terms(int p, double bytes, int nodes, int g)
{
    double n = (double)nodes * g, inter_steps = 2.0 * (nodes - 1);
    return (sm_nccl_ring_terms){base_us[RING][p] * 1e-6, 2 * (n - 1) - inter_steps, inter_steps,
                                bytes * 2 * (n - 1) / n};
}

sm_nccl_ring_terms sm_nccl_ring_simple_terms(double bytes, int nodes, int gpus_per_node)
{
    return ring_terms(SIMPLE, bytes, nodes, gpus_per_node);
}

sm_nccl_choice sm_nccl_allreduce(double bytes, int nodes, int gpus_per_node, const sm_link *intra,
                                 const sm_link *inter, const sm_nccl_system *sys)
{
    return sm_nccl_allreduce_only(bytes, nodes, gpus_per_node, intra, inter, sys,
                                  SM_NCCL_ALL_ALGORITHMS, SM_NCCL_ALL_PROTOCOLS);
}

sm_nccl_choice sm_nccl_allreduce_only(double bytes, int nodes, int gpus_per_node,
                                      const sm_link *intra, const sm_link *inter,
                                      const sm_nccl_system *sys, unsigned algorithms,
                                      unsigned protocols)
{
    sm_nccl_choice best = {"none", "none", 0};
    double n = (double)nodes * gpus_per_node;
    if (bytes <= 0 || n <= 1)
        return best;
    double bus = ring_bus(nodes, gpus_per_node, intra, inter);
    int channels = sys->channels > 0 ? sys->channels : gpus_per_node;
    static const unsigned algorithm_bits[N_ALGORITHMS] = {SM_NCCL_RING, SM_NCCL_TREE};
    best.seconds = INFINITY;
    for (int a = 0; a < N_ALGORITHMS; a++)
        for (int p = 0; p < N_PROTOCOLS; p++) {
            if (!(algorithms & algorithm_bits[a]) || !(protocols & (1u << p)))
                continue;
            double step_intra = intra->latency * nvlink_us[a][p] / nvlink_us[RING][SIMPLE];
            /* one device a node exposes the network's latency: NCCL takes the tree's */
            int net_a = gpus_per_node == 1 ? TREE : a;
            double step_inter = inter->latency * net_us[net_a][p] / net_us[RING][SIMPLE];
            double bw = bus_bandwidth(a, p, bus, nodes, channels, sys);
            double t;
            if (a == RING) {
                sm_nccl_ring_terms r = ring_terms(p, bytes, nodes, gpus_per_node);
                t = r.base + r.intra_steps * step_intra + r.inter_steps * step_inter +
                    r.bus_bytes / bw;
            } else {
                /* up a chain in the node and a binary tree across nodes, and down again;
                 * reduce and broadcast each carry all bytes */
                t = base_us[a][p] * 1e-6 +
                    2 * ((gpus_per_node - 1) * step_intra + floor_log2(nodes) * step_inter) +
                    bytes / (bw * 0.5 * tree_correction_of(p, bytes, 23));
            }
            if (t < best.seconds)
                best = (sm_nccl_choice){algorithm_names[a], protocol_names[p], t};
        }
    /* NVLS inside one node, the NVLS tree across nodes: Simple only */
    unsigned nvls = nodes == 1 ? SM_NCCL_NVLS : SM_NCCL_NVLS_TREE;
    if ((algorithms & nvls) && (protocols & SM_NCCL_SIMPLE)) {
        double t = nvls_seconds(bytes, nodes, gpus_per_node, channels, intra, inter, sys);
        if (t < best.seconds)
            best = (sm_nccl_choice){nodes == 1 ? "nvls" : "nvls_tree", "Simple", t};
    }
    return best;
}

/* All-gather and reduce-scatter as tuning.cc models them: the ring only (its tree is the
 * all-reduce's), n-1 steps of which N-1 cross the network, moving (n-1)/n of the bytes (the
 * gathered buffer, the scattered input) through every link, on the protocols' bandwidths as
 * for the all-reduce's ring. NCCL's NVLS and PAT algorithms for these collectives are left
 * out: a GPU the ring does not use is no choice this model makes. */
sm_nccl_choice sm_nccl_gather_scatter_only(double bytes, int nodes, int gpus_per_node,
                                           const sm_link *intra, const sm_link *inter,
                                           const sm_nccl_system *sys, unsigned algorithms,
                                           unsigned protocols)
{
    sm_nccl_choice best = {"none", "none", 0};
    double n = (double)nodes * gpus_per_node;
    if (bytes <= 0 || n <= 1)
        return best;
    double bus = ring_bus(nodes, gpus_per_node, intra, inter);
    int channels = sys->channels > 0 ? sys->channels : gpus_per_node;
    best.seconds = INFINITY;
    if (!(algorithms & SM_NCCL_RING))
        return best;
    for (int p = 0; p < N_PROTOCOLS; p++) {
        if (!(protocols & (1u << p)))
            continue;
        double step_intra = intra->latency * nvlink_us[RING][p] / nvlink_us[RING][SIMPLE];
        int net_a = gpus_per_node == 1 ? TREE : RING;
        double step_inter = inter->latency * net_us[net_a][p] / net_us[RING][SIMPLE];
        double inter_steps = nodes - 1.0, steps = n - 1;
        double t = base_us[RING][p] * 1e-6 + (steps - inter_steps) * step_intra +
                   inter_steps * step_inter +
                   bytes * (n - 1) / n / bus_bandwidth(RING, p, bus, nodes, channels, sys);
        if (t < best.seconds)
            best = (sm_nccl_choice){algorithm_names[RING], protocol_names[p], t};
    }
    return best;
}

/* One NCCL_ALGO / NCCL_PROTO name of names[] in text[0..len), case-insensitive; -1 if none. */
static int name_index(const char *text, size_t len, const char *const *names, int n)
{
    for (int k = 0; k < n; k++) {
        size_t i = 0;
        while (i < len && names[k][i] && tolower((unsigned char)text[i]) == names[k][i])
            i++;
        if (i == len && !names[k][i])
            return k;
    }
    return -1;
}

/* A comma list of names into bits; `what` names the option in messages. */
static int parse_list(const char *text, const char *what, const char *const *names, int n,
                      const unsigned *bits, const char *expected, unsigned *out, sm_status *st)
{
    *out = 0;
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        int k = name_index(p, len, names, n);
        if (k < 0)
            return sm_fail(st, "%s %s: expected a comma list of %s", what, text, expected);
        *out |= bits[k];
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

int sm_nccl_parse_algorithms(const char *text, unsigned *out, sm_status *st)
{
    static const char *const names[] = {"ring", "tree", "nvls", "nvlstree", "nvls_tree"};
    static const unsigned bits[] = {SM_NCCL_RING, SM_NCCL_TREE, SM_NCCL_NVLS, SM_NCCL_NVLS_TREE,
                                    SM_NCCL_NVLS_TREE};
    return parse_list(text, "--algorithm", names, 5, bits, "Ring, Tree, NVLS and NVLSTree", out,
                      st);
}

int sm_nccl_parse_protocols(const char *text, unsigned *out, sm_status *st)
{
    static const char *const names[] = {"ll", "ll128", "simple"};
    static const unsigned bits[] = {SM_NCCL_LL, SM_NCCL_LL128, SM_NCCL_SIMPLE};
    return parse_list(text, "--protocol", names, 3, bits, "LL, LL128 and Simple", out, st);
}

/* name among names[0..n), exactly; -1 if none. */
static int name_of(const char *name, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(name, names[k]))
            return k;
    return -1;
}

int sm_gpu_generation_parse(const char *name, sm_gpu_generation *out)
{
    static const char *const names[] = {"volta", "ampere", "hopper", "blackwell"};
    int k = name_of(name, names, 4);
    if (k < 0)
        return -1;
    *out = (sm_gpu_generation)(SM_GPU_VOLTA + k);
    return 0;
}

int sm_host_cpu_parse(const char *name, sm_host_cpu *out)
{
    static const char *const names[] = {"intel", "amd", "arm", "other"};
    static const sm_host_cpu hosts[] = {SM_HOST_INTEL, SM_HOST_AMD, SM_HOST_OTHER, SM_HOST_OTHER};
    int k = name_of(name, names, 4);
    if (k < 0)
        return -1;
    *out = hosts[k];
    return 0;
}
