/* The CPUs a process may keep busy (cpu_budget.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include "cpu_budget.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CPUS ((int)(sizeof(sm_cpu_mask) * CHAR_BIT))

static int has(const sm_cpu_mask *m, int c) { return (int)(m->bits[c / 64] >> (c % 64) & 1u); }

int sm_cpu_mask_count(const sm_cpu_mask *m)
{
    int n = 0;
    for (int c = 0; c < MAX_CPUS; c++)
        n += has(m, c);
    return n;
}

/* A number at *s, advancing it; -1 where there is none or it is out of range. */
static long number(const char **s, long max)
{
    if (**s < '0' || **s > '9')
        return -1;
    errno = 0;
    char *end;
    long v = strtol(*s, &end, 10);
    if (errno || v > max)
        return -1;
    *s = end;
    return v;
}

int sm_cpu_mask_parse(const char *list, sm_cpu_mask *m)
{
    memset(m, 0, sizeof *m);
    const char *s = list;
    for (;;) {
        long lo = number(&s, MAX_CPUS - 1), hi = lo;
        if (lo < 0)
            return -1;
        if (*s == '-') {
            s++;
            if ((hi = number(&s, MAX_CPUS - 1)) < lo)
                return -1;
        }
        for (long c = lo; c <= hi; c++)
            m->bits[c / 64] |= (uint64_t)1 << (c % 64);
        if (*s != ',')
            break;
        s++;
    }
    return *s == '\0' || *s == '\n' ? 0 : -1;
}

/* ceil(quota / period) CPUs, at least 1; -1 unless both are positive. */
static int quota_cpus(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return -1;
    long long n = (quota + period - 1) / period;
    return n > INT_MAX ? INT_MAX : (int)n;
}

int sm_cpu_max_cpus(const char *text)
{
    long long quota, period;
    char word[8];
    if (sscanf(text, "%7s %lld", word, &period) == 2 && strcmp(word, "max") == 0)
        return period > 0 ? 0 : -1;
    if (sscanf(text, "%lld %lld", &quota, &period) != 2)
        return -1;
    return quota_cpus(quota, period);
}

int sm_cfs_quota_cpus(const char *quota, const char *period)
{
    long long q, p;
    if (sscanf(quota, "%lld", &q) != 1 || sscanf(period, "%lld", &p) != 1)
        return -1;
    if (q == -1)
        return p > 0 ? 0 : -1;
    return quota_cpus(q, p);
}

/* Whether the comma-separated list has the word. */
static int listed(const char *list, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = list, *end = list + len; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
        if (n == w && !memcmp(p, word, w))
            return 1;
        p += n + 1;
    }
    return 0;
}

int sm_cgroup_path(const char *proc_cgroup, int v1, char *buf, size_t len)
{
    for (const char *line = proc_cgroup; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *c1 = memchr(line, ':', n);
        const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            const char *ctl = c1 + 1;
            size_t ctl_len = (size_t)(c2 - ctl), path_len = n - (size_t)(c2 + 1 - line);
            int match = v1 ? listed(ctl, ctl_len, "cpu")
                           : (ctl_len == 0 && c1 - line == 1 && line[0] == '0');
            if (match && path_len > 0 && c2[1] == '/' && path_len < len) {
                memcpy(buf, c2 + 1, path_len);
                buf[path_len] = '\0';
                return 0;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return -1;
}

/* The first line of a small file, or NULL. */
static char *read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *s = fgets(buf, (int)len, f);
    fclose(f);
    return s;
}

/* The smaller of two limits, 0 being none. */
static int tighter(int a, int b) { return a <= 0 ? (b > 0 ? b : 0) : b <= 0 || a < b ? a : b; }

/* The cgroup at dir and each of its ancestors down to base: the tightest quota. */
static int walk(const char *base, const char *path, int v1)
{
    char dir[4096], file[4200], a[64], b[64];
    int limit = 0;
    if (snprintf(dir, sizeof dir, "%s%s", base, path) >= (int)sizeof dir)
        return 0;
    size_t base_len = strlen(base);
    for (;;) {
        size_t n = strlen(dir);
        while (n > base_len && dir[n - 1] == '/')
            dir[--n] = '\0';
        if (!v1) {
            snprintf(file, sizeof file, "%s/cpu.max", dir);
            if (read_line(file, a, sizeof a))
                limit = tighter(limit, sm_cpu_max_cpus(a));
        } else {
            snprintf(file, sizeof file, "%s/cpu.cfs_quota_us", dir);
            int got = read_line(file, a, sizeof a) != NULL;
            snprintf(file, sizeof file, "%s/cpu.cfs_period_us", dir);
            if (got && read_line(file, b, sizeof b))
                limit = tighter(limit, sm_cfs_quota_cpus(a, b));
        }
        char *slash = strrchr(dir, '/');
        if (n <= base_len || !slash || slash < dir + base_len)
            return limit;
        *slash = '\0';
    }
}

int sm_cgroup_cpu_limit(const char *root, const char *proc_cgroup)
{
    char path[2048], base[2048];
    int limit = 0;
    if (sm_cgroup_path(proc_cgroup, 0, path, sizeof path) == 0)
        limit = tighter(limit, walk(root, path, 0));
    if (sm_cgroup_path(proc_cgroup, 1, path, sizeof path) == 0) {
        static const char *const mounts[] = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
        for (int i = 0; i < 3; i++) {
            snprintf(base, sizeof base, "%s/%s", root, mounts[i]);
            int l = walk(base, path, 1);
            if (l > 0) {
                limit = tighter(limit, l);
                break;
            }
        }
    }
    return limit;
}

int sm_threads_per_rank(const sm_cpu_mask *masks, int n, int me, int quota, int online)
{
    double share = 0;
    for (int c = 0; c < MAX_CPUS; c++) {
        if (!has(&masks[me], c))
            continue;
        int k = 0;
        for (int i = 0; i < n; i++)
            k += has(&masks[i], c);
        share += 1.0 / k;
    }
    /* the rounding: 3 ranks over 4 CPUs get 1 each (1.33), not 2 */
    int threads = (int)(share + 1e-9);
    if (quota > 0 && quota / n < threads)
        threads = quota / n;
    if (online > 0 && online < threads)
        threads = online;
    return threads > 1 ? threads : 1;
}

void sm_cpu_affinity(sm_cpu_mask *mask)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    memset(mask, 0, sizeof *mask);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < online && c < MAX_CPUS; c++)
            mask->bits[c / 64] |= (uint64_t)1 << (c % 64);
        return;
    }
    for (int c = 0; c < MAX_CPUS && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            mask->bits[c / 64] |= (uint64_t)1 << (c % 64);
}

int sm_cpu_quota(void)
{
    char text[8192];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return sm_cgroup_cpu_limit("/sys/fs/cgroup", text);
}
