/*
 * The CPUs a process may keep busy, for bench's default thread count: not the machine's online
 * CPUs but what the launcher and the batch system allow, the CPU affinity mask (taskset,
 * mpirun's binding, Slurm's cpuset) and the cgroup's CPU quota (cgroup v2 cpu.max, v1
 * cpu.cfs_quota_us: docker --cpus, Kubernetes limits), so that a rank in a Slurm allocation
 * of 4 CPUs does not start as many threads as the node has cores.
 *
 * The parsers take the files' text, so that tests feed them fixtures.
 */
#ifndef SCALEMETER_CPU_BUDGET_H
#define SCALEMETER_CPU_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* A CPU affinity mask of up to 1024 CPUs (glibc's cpu_set_t), as plain bits: CPU c is bit
 * c % 64 of bits[c / 64]. */
typedef struct sm_cpu_mask {
    uint64_t bits[16];
} sm_cpu_mask;

/* CPUs in a mask, and a mask from a list ("0-3,8"; -1 for text that is not one). */
int sm_cpu_mask_count(const sm_cpu_mask *m);
int sm_cpu_mask_parse(const char *list, sm_cpu_mask *m);

/* CPUs of a cgroup v2 cpu.max ("150000 100000": quota and period in microseconds), rounded
 * up: 2; 0 for "max ..." (no limit); -1 for text that is not a cpu.max. */
int sm_cpu_max_cpus(const char *text);

/* The same from cgroup v1's cpu.cfs_quota_us ("-1": no limit) and cpu.cfs_period_us. */
int sm_cfs_quota_cpus(const char *quota, const char *period);

/* This process's cgroup from the text of /proc/self/cgroup: the v2 line ("0::/PATH") when
 * v1 is 0, or the v1 line whose controllers include cpu ("4:cpu,cpuacct:/PATH") when v1 is 1.
 * 0 with PATH in buf, or -1 where there is none. */
int sm_cgroup_path(const char *proc_cgroup, int v1, char *buf, size_t len);

/* The smallest CPU quota over the cgroup of proc_cgroup (the text of /proc/self/cgroup) and
 * its ancestors, under root (/sys/fs/cgroup: v2 there, v1 in root/cpu or root/cpu,cpuacct);
 * 0 where none is set. */
int sm_cgroup_cpu_limit(const char *root, const char *proc_cgroup);

/* OpenBLAS threads for local rank me of the n ranks of a node, masks[i] the affinity of
 * local rank i: each CPU of its mask counts 1/k where k ranks have it (identical masks, as
 * under mpirun --bind-to none: its CPUs / n; disjoint ones, Slurm's or mpirun's binding: all
 * its own), at most quota / n (a cgroup's quota is the node's ranks' together; 0: none) and
 * the online CPUs; at least 1. */
int sm_threads_per_rank(const sm_cpu_mask *masks, int n, int me, int quota, int online);

/* This process's affinity mask (all CPUs where it cannot be read) and the cgroup CPU quota
 * read from /proc/self/cgroup and /sys/fs/cgroup (0: none). */
void sm_cpu_affinity(sm_cpu_mask *mask);
int sm_cpu_quota(void);

#endif
