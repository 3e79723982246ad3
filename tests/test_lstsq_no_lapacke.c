/* fit's least squares where LAPACKE cannot be loaded (lstsq.c, built here against a soname
 * no machine has): every solve fails with one line naming the library, never a crash. */
#include <string.h>

#include "check.h"
#include "scalemeter/fit.h"

int main(void)
{
    static const double A[] = {1, 1, 1, 1, 2, 3}, b[] = {3, 2, 1};
    double x[2] = {0};
    sm_status st;
    for (int nonneg = 0; nonneg < 2; nonneg++) { /* the second ask repeats the first's reason */
        CHECK_EQ(sm_lstsq(A, b, 3, 2, nonneg, x, &st), -1);
        CHECK_CONTAINS(st.msg, "cannot load LAPACKE_dgelsd from libsm_no_such_lapacke.so.9");
        CHECK_CONTAINS(st.msg, "libsm_no_such_lapacke.so.9: cannot open shared object file");
        CHECK(strchr(st.msg, '\n') == NULL);
    }
    return check_summary();
}
