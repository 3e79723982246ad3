/* sm_lstsq: unconstrained and non-negative least squares against hand-solved systems, and NNLS
 * against a brute-force search over every active set. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "scalemeter/fit.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol) * (1 + fabs(b)))

/* y = 4 - x at x = 1, 2, 3 (columns: intercept, x), column-major. */
static const double line_A[] = {1, 1, 1, 1, 2, 3};
static const double line_b[] = {3, 2, 1};

static void test_exact_line(void)
{
    double x[2];
    sm_status st;
    CHECK(sm_lstsq(line_A, line_b, 3, 2, 0, x, &st) == 0);
    CHECK(NEAR(x[0], 4.0, 1e-12));
    CHECK(NEAR(x[1], -1.0, 1e-12));
}

/* The same data with x >= 0. By hand (Lawson-Hanson): w = A'b = (6, 10): x2 enters first,
 * z2 = 10/14; then w1 = 6 - 6 * 10/14 > 0: x1 enters, the unconstrained (4, -1) leaves the
 * orthant, the step alpha = (10/14) / (10/14 + 1) lands on x2 = 0, x2 leaves; x1 = mean(b) = 2,
 * where w2 = 1*1 + 2*0 + 3*(-1) = -2 < 0: optimal. NNLS = (2, 0). */
static void test_nnls_hand(void)
{
    double x[2];
    sm_status st;
    CHECK(sm_lstsq(line_A, line_b, 3, 2, 1, x, &st) == 0);
    CHECK(NEAR(x[0], 2.0, 1e-12));
    CHECK(x[1] == 0.0);
}

/* y = 1 + 2x + 0.5 x^2 exactly: unconstrained and NNLS agree, since the solution is positive. */
static void test_nnls_matches_positive(void)
{
    double A[3 * 5], b[5], x0[3], x1[3];
    for (int i = 0; i < 5; i++) {
        double t = i + 1;
        A[i] = 1, A[5 + i] = t, A[10 + i] = t * t;
        b[i] = 1 + 2 * t + 0.5 * t * t;
    }
    sm_status st;
    CHECK(sm_lstsq(A, b, 5, 3, 0, x0, &st) == 0);
    CHECK(sm_lstsq(A, b, 5, 3, 1, x1, &st) == 0);
    CHECK(NEAR(x0[0], 1.0, 1e-10) && NEAR(x0[1], 2.0, 1e-10) && NEAR(x0[2], 0.5, 1e-10));
    for (int j = 0; j < 3; j++)
        CHECK(NEAR(x1[j], x0[j], 1e-10));
}

/* Columns of very different scale (1e9 against 1): the scaling keeps the answer exact. */
static void test_scaled_columns(void)
{
    double A[2 * 4], b[4];
    for (int i = 0; i < 4; i++) {
        A[i] = 1e9 * (i + 1);
        A[4 + i] = 1;
        b[i] = 3e-11 * A[i] + 0.002; /* 3e-11 s per FLOP, 2 ms intercept */
    }
    double x[2];
    sm_status st;
    CHECK(sm_lstsq(A, b, 4, 2, 1, x, &st) == 0);
    CHECK(NEAR(x[0], 3e-11, 1e-9) && NEAR(x[1], 0.002, 1e-9));
}

static double residual(const double *A, const double *b, int m, int n, const double *x)
{
    double s = 0;
    for (int i = 0; i < m; i++) {
        double r = b[i];
        for (int j = 0; j < n; j++)
            r -= A[j * m + i] * x[j];
        s += r * r;
    }
    return s;
}

/* Random problems with a negative truth: the NNLS residual equals the best over every subset of
 * columns whose unconstrained solution is positive (the optimum is one of them), and x >= 0. */
static void test_nnls_brute_force(void)
{
    enum { M = 12, N = 4 };
    unsigned seed = 12345;
    for (int trial = 0; trial < 20; trial++) {
        double A[M * N], b[M], x[N];
        for (int k = 0; k < M * N; k++) {
            seed = seed * 1103515245u + 12345u;
            A[k] = (double)(seed >> 8 & 0xffff) / 65536.0;
        }
        for (int i = 0; i < M; i++) {
            seed = seed * 1103515245u + 12345u;
            b[i] = A[i] - 0.8 * A[M + i] + 0.5 * A[2 * M + i] - 0.3 * A[3 * M + i] +
                   0.05 * ((double)(seed >> 8 & 0xffff) / 65536.0 - 0.5);
        }
        sm_status st;
        CHECK(sm_lstsq(A, b, M, N, 1, x, &st) == 0);
        for (int j = 0; j < N; j++)
            CHECK(x[j] >= 0);
        double best = residual(A, b, M, N, (double[N]){0});
        for (int mask = 1; mask < 1 << N; mask++) {
            double sub[M * N], z[N], full[N] = {0};
            int k = 0, cols[N];
            for (int j = 0; j < N; j++)
                if (mask >> j & 1) {
                    for (int i = 0; i < M; i++)
                        sub[k * M + i] = A[j * M + i];
                    cols[k++] = j;
                }
            if (sm_lstsq(sub, b, M, k, 0, z, &st))
                continue;
            int positive = 1;
            for (int j = 0; j < k; j++) {
                positive &= z[j] > 0;
                full[cols[j]] = z[j];
            }
            if (positive && residual(A, b, M, N, full) < best)
                best = residual(A, b, M, N, full);
        }
        CHECK(NEAR(residual(A, b, M, N, x), best, 1e-9));
    }
}

static void test_errors(void)
{
    sm_status st;
    double x[3];
    /* two equal columns: rank 1 of 2 */
    const double dup[] = {1, 2, 3, 1, 2, 3};
    CHECK(sm_lstsq(dup, line_b, 3, 2, 0, x, &st) == SM_LSTSQ_RANK_DEFICIENT);
    CHECK_CONTAINS(st.msg, "rank-deficient system: rank 1 for 2 coefficients");
    CHECK(sm_lstsq(dup, line_b, 3, 2, 1, x, &st) == SM_LSTSQ_RANK_DEFICIENT);
    CHECK_CONTAINS(st.msg, "rank-deficient");
    /* a zero column */
    const double zero[] = {1, 1, 1, 0, 0, 0};
    CHECK(sm_lstsq(zero, line_b, 3, 2, 0, x, &st) == SM_LSTSQ_RANK_DEFICIENT);
    CHECK_CONTAINS(st.msg, "term 2 is zero at every point");
    /* 2 points, 3 coefficients */
    const double wide[] = {1, 1, 1, 2, 1, 4};
    CHECK(sm_lstsq(wide, line_b, 2, 3, 0, x, &st) == -1);
    CHECK_CONTAINS(st.msg, "2 points for 3 coefficients: too few points");
    const double bad_b[] = {1, NAN, 3};
    CHECK(sm_lstsq(line_A, bad_b, 3, 2, 0, x, &st) == -1);
    CHECK_CONTAINS(st.msg, "point 2: measured value is not finite");
    /* a term of 1e-150 against values of 1e200: the coefficient, 1e350, is beyond a double
     * (found by fuzz_fit, which wrote it as c1_flops = -inf into a coefficient file) */
    const double tiny[] = {1e-150, 1e-150}, huge[] = {1e200, 1e200};
    CHECK(sm_lstsq(tiny, huge, 2, 1, 0, x, &st) == -1);
    CHECK_CONTAINS(st.msg, "coefficient 1 is not finite");
}

int main(void)
{
    test_exact_line();
    test_nnls_hand();
    test_nnls_matches_positive();
    test_scaled_columns();
    test_nnls_brute_force();
    test_errors();
    return check_summary();
}
