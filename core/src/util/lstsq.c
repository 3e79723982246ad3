/* Linear least squares through LAPACKE, unconstrained or with non-negative coefficients
 * (Lawson and Hanson, "Solving Least Squares Problems", 1974, ch. 23: the active-set NNLS).
 *
 * LAPACKE is loaded on the first solve (dlopen by the soname the build found), not linked: it
 * maps LAPACK, OpenBLAS and gfortran, which every command that only counts would pay for.
 *
 * The terms of a phase differ by many orders of magnitude (FLOPs ~1e9, an intercept of 1), so
 * the columns are scaled to unit norm first; the rank is judged on the scaled matrix by SVD, so
 * a dependence between terms is reported instead of producing arbitrary coefficients. */
#include <dlfcn.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "scalemeter/fit.h"
#include "util/util.h"

#ifndef SM_LAPACKE_SONAME
#error "SM_LAPACKE_SONAME: the build names the LAPACKE library to load (core/CMakeLists.txt)"
#endif

/* LAPACKE_dgelsd, once loaded; or why it could not be. */
static __typeof__(&LAPACKE_dgelsd) dgelsd_fn;
static char dgelsd_error[512];
static pthread_once_t dgelsd_once = PTHREAD_ONCE_INIT;

static void load_dgelsd(void)
{
    void *h = dlopen(SM_LAPACKE_SONAME, RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, "LAPACKE_dgelsd") : NULL;
    if (sym)
        memcpy(&dgelsd_fn, &sym, sizeof dgelsd_fn); /* object to function pointer (POSIX) */
    else
        snprintf(dgelsd_error, sizeof dgelsd_error,
                 "cannot load LAPACKE_dgelsd from " SM_LAPACKE_SONAME
                 " (LAPACKE, which fit's least squares need; install liblapacke): %s",
                 dlerror());
}

/* Singular values below this fraction of the largest count as zero. */
#define RANK_RCOND 1e-10

/* Scratch of the solves of one sm_lstsq, allocated once: NNLS solves again on every change of its
 * passive set, and on 10^6 rows a fresh m x n buffer per solve is tens of megabytes of page
 * faults each time. */
typedef struct lstsq_work {
    double *sub; /* m x n: the kept columns, overwritten by dgelsd */
    double *rhs; /* max(m, n): b, then the solution */
    double *sv;  /* n singular values */
} lstsq_work;

static void work_free(lstsq_work *w) { free(w->sub), free(w->rhs), free(w->sv); }

static int work_alloc(lstsq_work *w, int m, int n, sm_status *st)
{
    w->sub = malloc((size_t)m * (size_t)n * sizeof *w->sub);
    w->rhs = malloc((size_t)(m > n ? m : n) * sizeof *w->rhs);
    w->sv = malloc((size_t)n * sizeof *w->sv);
    if (w->sub && w->rhs && w->sv)
        return 0;
    work_free(w);
    return sm_fail(st, "out of memory");
}

/* Unconstrained solution of the columns with keep[j] (all when keep is NULL); x[j] = 0 for the
 * others. A is column-major m x n. */
static int solve_subset(const double *A, const double *b, int m, int n, const int *keep, double *x,
                        int *rank, lstsq_work *w, sm_status *st)
{
    pthread_once(&dgelsd_once, load_dgelsd);
    if (!dgelsd_fn)
        return sm_fail(st, "%s", dgelsd_error);
    int k = 0;
    for (int j = 0; j < n; j++)
        if (!keep || keep[j])
            memcpy(w->sub + (size_t)m * (size_t)k++, A + (size_t)m * (size_t)j,
                   (size_t)m * sizeof *w->sub);
    memcpy(w->rhs, b, (size_t)m * sizeof *w->rhs);
    lapack_int r = 0;
    lapack_int info = dgelsd_fn(LAPACK_COL_MAJOR, m, k, 1, w->sub, m, w->rhs, m > n ? m : n, w->sv,
                                RANK_RCOND, &r);
    if (info != 0)
        return sm_fail(st, "LAPACKE_dgelsd failed (info %d)", (int)info);
    for (int j = 0, c = 0; j < n; j++)
        x[j] = !keep || keep[j] ? w->rhs[c++] : 0.0;
    *rank = (int)r;
    return 0;
}

/* w = A^T (b - A x), a block of rows at a time: A is read once and the block's residual stays in
 * cache. Each residual r_i and each sum w_j takes the same terms in the same order as one row at
 * a time would, so the bits are the same; four sums proceed side by side rather than one
 * dependent chain at a time. */
static void residual_gradient(const double *A, const double *b, int m, int n, const double *x,
                              double *w)
{
    enum { BLOCK = 512 };
    double s[SM_MAX_COEFFS * 8] = {0}; /* nnls's bound on n */
    for (int i0 = 0; i0 < m; i0 += BLOCK) {
        int len = m - i0 < BLOCK ? m - i0 : BLOCK;
        double r[BLOCK];
        memcpy(r, b + i0, (size_t)len * sizeof *r);
        for (int c = 0; c < n; c++) {
            const double *col = A + (size_t)m * (size_t)c + (size_t)i0;
            double xc = x[c];
            for (int i = 0; i < len; i++)
                r[i] -= col[i] * xc;
        }
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            const double *c0 = A + (size_t)m * (size_t)j + (size_t)i0, *c1 = c0 + m, *c2 = c1 + m,
                         *c3 = c2 + m;
            double s0 = s[j], s1 = s[j + 1], s2 = s[j + 2], s3 = s[j + 3];
            for (int i = 0; i < len; i++) {
                s0 += c0[i] * r[i];
                s1 += c1[i] * r[i];
                s2 += c2[i] * r[i];
                s3 += c3[i] * r[i];
            }
            s[j] = s0, s[j + 1] = s1, s[j + 2] = s2, s[j + 3] = s3;
        }
        for (; j < n; j++) {
            const double *col = A + (size_t)m * (size_t)j + (size_t)i0;
            double sj = s[j];
            for (int i = 0; i < len; i++)
                sj += col[i] * r[i];
            s[j] = sj;
        }
    }
    memcpy(w, s, (size_t)n * sizeof *w);
}

/* Lawson-Hanson: grow the passive set P by the most promising coefficient, solve on P, and step
 * back towards the last feasible point whenever the solution leaves the orthant. */
static int nnls(const double *A, const double *b, int m, int n, double *x, lstsq_work *work,
                sm_status *st)
{
    int P[SM_MAX_COEFFS * 8] = {0}, blocked[SM_MAX_COEFFS * 8] = {0};
    double w[SM_MAX_COEFFS * 8], z[SM_MAX_COEFFS * 8];
    if (n > (int)(sizeof P / sizeof P[0]))
        return sm_fail(st, "NNLS: %d coefficients is more than this solver takes", n);
    double bnorm = 0;
    for (int i = 0; i < m; i++)
        bnorm += b[i] * b[i];
    /* columns have unit norm, so |w_j| <= ||r|| <= ||b||: a relative tolerance */
    double tol = 1e3 * DBL_EPSILON * sqrt(bnorm) * (m > n ? m : n);
    for (int j = 0; j < n; j++)
        x[j] = 0;
    for (int iter = 0; iter < 30 * n; iter++) {
        residual_gradient(A, b, m, n, x, w);
        int t = -1;
        for (int j = 0; j < n; j++)
            if (!P[j] && !blocked[j] && w[j] > tol && (t < 0 || w[j] > w[t]))
                t = j;
        if (t < 0)
            return 0;
        P[t] = 1;
        for (int inner = 0;; inner++) {
            int rank;
            if (solve_subset(A, b, m, n, P, z, &rank, work, st))
                return -1;
            if (inner == 0 && z[t] <= 0) {
                /* rounding made t look promising: leave it out until x moves again */
                P[t] = 0;
                blocked[t] = 1;
                break;
            }
            int feasible = 1;
            for (int j = 0; j < n; j++)
                if (P[j] && z[j] <= 0)
                    feasible = 0;
            if (feasible) {
                memcpy(x, z, (size_t)n * sizeof *x);
                memset(blocked, 0, sizeof blocked);
                break;
            }
            double alpha = INFINITY;
            for (int j = 0; j < n; j++)
                if (P[j] && z[j] <= 0 && x[j] / (x[j] - z[j]) < alpha)
                    alpha = x[j] / (x[j] - z[j]);
            for (int j = 0; j < n; j++) {
                x[j] += alpha * (z[j] - x[j]);
                if (P[j] && x[j] <= 1e-15 * (1 + fabs(z[j]))) {
                    P[j] = 0;
                    x[j] = 0;
                }
            }
            memset(blocked, 0, sizeof blocked);
            if (inner > 3 * n)
                return sm_fail(st, "NNLS did not converge");
        }
    }
    return sm_fail(st, "NNLS did not converge in %d iterations", 30 * n);
}

int sm_lstsq(const double *A, const double *b, int m, int n, int nonneg, double *x, sm_status *st)
{
    if (!A || !b || !x)
        return sm_null_arg(st, __func__, !A ? "A" : !b ? "b" : "x");
    if (n < 1)
        return sm_fail(st, "no coefficients to fit");
    if (m < n)
        return sm_fail(st,
                       "%d point%s for %d coefficients: too few points "
                       "(measure more models, image or batch sizes)",
                       m, m == 1 ? "" : "s", n);
    for (int i = 0; i < m; i++)
        if (!isfinite(b[i]))
            return sm_fail(st, "point %d: measured value is not finite", i + 1);
    double *As = malloc((size_t)m * (size_t)n * sizeof *As);
    double *scale = malloc((size_t)n * sizeof *scale);
    lstsq_work work;
    if (!As || !scale) {
        free(As), free(scale);
        return sm_fail(st, "out of memory");
    }
    if (work_alloc(&work, m, n, st)) {
        free(As), free(scale);
        return -1;
    }
    int rc = -1;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < m; i++) {
            double a = A[(size_t)m * (size_t)j + (size_t)i];
            if (!isfinite(a)) {
                sm_fail(st, "term %d of point %d is not finite", j + 1, i + 1);
                goto done;
            }
            s += a * a;
        }
        if (s == 0) {
            sm_fail(st, "rank-deficient system: term %d is zero at every point", j + 1);
            rc = SM_LSTSQ_RANK_DEFICIENT;
            goto done;
        }
        scale[j] = sqrt(s);
        for (int i = 0; i < m; i++)
            As[(size_t)m * (size_t)j + (size_t)i] = A[(size_t)m * (size_t)j + (size_t)i] / scale[j];
    }
    int rank;
    if (solve_subset(As, b, m, n, NULL, x, &rank, &work, st))
        goto done;
    if (rank < n) {
        sm_fail(st,
                "rank-deficient system: rank %d for %d coefficients (the terms are linearly "
                "dependent over these points: measure more models, image or batch sizes)",
                rank, n);
        rc = SM_LSTSQ_RANK_DEFICIENT;
        goto done;
    }
    if (nonneg && nnls(As, b, m, n, x, &work, st))
        goto done;
    for (int j = 0; j < n; j++) {
        x[j] /= scale[j];
        /* terms whose sizes differ beyond a double's range give an infinite coefficient, which
         * no coefficient file may hold: a fit that cannot be written is no fit */
        if (!isfinite(x[j])) {
            sm_fail(st,
                    "coefficient %d is not finite: the terms' sizes differ beyond double "
                    "precision (counts or times out of any physical range)",
                    j + 1);
            goto done;
        }
    }
    rc = 0;
done:
    free(As);
    free(scale);
    work_free(&work);
    return rc;
}
