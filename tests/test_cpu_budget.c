/* bench's default thread count (calibrate/cpu_budget.c): the parsers of cpu.max, cgroup v1's
 * quota, /proc/self/cgroup and CPU lists, the quota of a cgroup tree (fixtures in
 * tests/data/cgroup/: a Slurm step under cgroup v2, a docker container under v1), and how the
 * CPUs of a node's masks are shared among its ranks. */
#include "check.h"
#include "cpu_budget.h"

static char text[4096];

static const char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        check_fatal(__FILE__, __LINE__, "cannot read %s", path);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static sm_cpu_mask mask(const char *list)
{
    sm_cpu_mask m;
    if (sm_cpu_mask_parse(list, &m))
        check_fatal(__FILE__, __LINE__, "not a CPU list: %s", list);
    return m;
}

int main(void)
{
    /* cpu.max: quota and period in microseconds, CPUs rounded up */
    CHECK_EQ(sm_cpu_max_cpus("max 100000\n"), 0);
    CHECK_EQ(sm_cpu_max_cpus("150000 100000\n"), 2);
    CHECK_EQ(sm_cpu_max_cpus("100000 100000"), 1);
    CHECK_EQ(sm_cpu_max_cpus("50000 100000"), 1);
    CHECK_EQ(sm_cpu_max_cpus("800000 100000"), 8);
    CHECK_EQ(sm_cpu_max_cpus("0 100000"), -1);
    CHECK_EQ(sm_cpu_max_cpus("max"), -1);
    CHECK_EQ(sm_cpu_max_cpus(""), -1);
    CHECK_EQ(sm_cfs_quota_cpus("-1\n", "100000\n"), 0);
    CHECK_EQ(sm_cfs_quota_cpus("250000\n", "100000\n"), 3);
    CHECK_EQ(sm_cfs_quota_cpus("x", "100000"), -1);

    /* /proc/self/cgroup: the v2 line, the v1 line with the cpu controller (not cpuacct,
     * cpuset or a named hierarchy) */
    char path[256];
    const char *v1 =
        "12:pids:/a\n5:cpuset:/b\n4:cpuacct,cpu:/docker/abc\n1:name=systemd:/c\n0::/u\n";
    CHECK_EQ(sm_cgroup_path(v1, 1, path, sizeof path), 0);
    CHECK_STR_EQ(path, "/docker/abc");
    CHECK_EQ(sm_cgroup_path(v1, 0, path, sizeof path), 0);
    CHECK_STR_EQ(path, "/u");
    CHECK_EQ(sm_cgroup_path("5:cpuset:/b\n3:cpuacct:/d\n", 1, path, sizeof path), -1);
    CHECK_EQ(sm_cgroup_path("5:cpuset:/b\n", 0, path, sizeof path), -1);
    CHECK_EQ(sm_cgroup_path("0::/slurm/job_7/step_0", 0, path, sizeof path), 0);
    CHECK_STR_EQ(path, "/slurm/job_7/step_0");
    CHECK_EQ(sm_cgroup_path("0::/slurm/job_7", 0, path, 4), -1); /* does not fit */

    /* the tightest quota from the process's cgroup up: the job's 1.5 CPUs (2), not the step's
     * 4 nor the unlimited slurm/ */
    CHECK_EQ(
        sm_cgroup_cpu_limit("tests/data/cgroup/v2/sys", slurp("tests/data/cgroup/v2/proc_cgroup")),
        2);
    /* v1: the container's 2.5 CPUs (3) under an unlimited root; its "0::/" finds no cpu.max */
    CHECK_EQ(
        sm_cgroup_cpu_limit("tests/data/cgroup/v1/sys", slurp("tests/data/cgroup/v1/proc_cgroup")),
        3);
    /* no cgroup files at all: no limit */
    CHECK_EQ(sm_cgroup_cpu_limit("tests/data/cgroup/none", "0::/\n"), 0);

    /* CPU lists, as taskset -c and Cpus_allowed_list write them */
    sm_cpu_mask m;
    CHECK_EQ(sm_cpu_mask_parse("0-3,8", &m), 0);
    CHECK_EQ(sm_cpu_mask_count(&m), 5);
    CHECK_EQ(sm_cpu_mask_parse("1000-1023\n", &m), 0);
    CHECK_EQ(sm_cpu_mask_count(&m), 24);
    CHECK_EQ(sm_cpu_mask_parse("0-3,x", &m), -1);
    CHECK_EQ(sm_cpu_mask_parse("3-1", &m), -1);
    CHECK_EQ(sm_cpu_mask_parse("1024", &m), -1);
    CHECK_EQ(sm_cpu_mask_parse("", &m), -1);

    /* threads per rank: masks of the node's ranks, the quota, the online CPUs */
    sm_cpu_mask one[] = {mask("0")}; /* taskset -c 0 */
    CHECK_EQ(sm_threads_per_rank(one, 1, 0, 0, 2), 1);
    sm_cpu_mask all8[] = {mask("0-7")};
    CHECK_EQ(sm_threads_per_rank(all8, 1, 0, 0, 8), 8);
    CHECK_EQ(sm_threads_per_rank(all8, 1, 0, 0, 6), 6); /* at most the online CPUs */
    CHECK_EQ(sm_threads_per_rank(all8, 1, 0, 3, 8), 3); /* docker --cpus 3 */
    sm_cpu_mask same[] = {mask("0-7"), mask("0-7")};    /* mpirun --bind-to none */
    CHECK_EQ(sm_threads_per_rank(same, 2, 1, 0, 8), 4);
    CHECK_EQ(sm_threads_per_rank(same, 2, 0, 2, 8), 1); /* the quota is both ranks' */
    sm_cpu_mask own[] = {mask("0-3"), mask("4-7")};     /* srun --cpus-per-task=4 */
    CHECK_EQ(sm_threads_per_rank(own, 2, 0, 0, 8), 4);
    CHECK_EQ(sm_threads_per_rank(own, 2, 1, 0, 8), 4);
    sm_cpu_mask three[] = {mask("0-3"), mask("0-3"), mask("0-3")};
    CHECK_EQ(sm_threads_per_rank(three, 3, 2, 0, 4), 1); /* 4/3 rounds down */
    sm_cpu_mask part[] = {mask("0-3"), mask("2,3")};     /* CPUs 2 and 3 shared */
    CHECK_EQ(sm_threads_per_rank(part, 2, 0, 0, 4), 3);  /* 1 + 1 + 1/2 + 1/2 */
    CHECK_EQ(sm_threads_per_rank(part, 2, 1, 0, 4), 1);
    sm_cpu_mask crowd[] = {mask("0"), mask("0"), mask("0"), mask("0")};
    CHECK_EQ(sm_threads_per_rank(crowd, 4, 3, 0, 1), 1); /* never 0 */
    return check_summary();
}
