/* sm_comm_fit through the C API on runs of one device a node, without a base description:
 * there is no link inside such a node, so the inter-node terms stand alone (the ring's
 * t = 2(n-1)/n s / bandwidth + 2(n-1) latency, each node's one device a port), and the fit
 * must find them, where it refused for want of runs inside one node. The runs are that
 * equation's times at 10 GB/s and 5 us, on 2 and 4 nodes, 1 MiB to 64 MiB. */
#include <stdlib.h>

#include "check.h"
#include "scalemeter/comm.h"

int main(void)
{
    enum { SIZES = 7 };
    sm_comm_sample samples[2 * SIZES];
    int n = 0;
    for (int nodes = 2; nodes <= 4; nodes += 2)
        for (int k = 0; k < SIZES; k++) {
            double s = 1048576.0 * (double)(1 << k), m = nodes;
            samples[n] = (sm_comm_sample){
                .bytes = s,
                .time_s = 2 * (m - 1) / m * s / 10e9 + 2 * (m - 1) * 5e-6,
                .nodes = nodes,
                .gpus_per_node = 1,
                .line = n + 2,
            };
            n++;
        }
    char *sources[] = {"runs.csv"};
    sm_comm_runs runs = {samples, n, n, sources, 1};
    sm_comm_fit_result f;
    sm_status st = {""};
    CHECK_EQ(sm_comm_fit(&runs, 0, NULL, "ring", &f, &st), 0);
    CHECK_EQ(f.inter_fitted, 1);
    CHECK_EQ(f.intra_fitted, 0);
    CHECK_NEAR(f.inter_bandwidth, 10e9, 1e-9); /* relative */
    CHECK_NEAR(f.inter_latency, 5e-6, 1e-9);
    CHECK(f.mape < 1e-9);
    /* a node of two devices across nodes needs the link inside it, which no run here measures
     * alone: still refused without a base, saying so */
    for (int i = 0; i < n; i++)
        samples[i].gpus_per_node = 2;
    CHECK_EQ(sm_comm_fit(&runs, 0, NULL, "ring", &f, &st), -1);
    CHECK_CONTAINS(st.msg, "none inside one node");
    return check_summary();
}
