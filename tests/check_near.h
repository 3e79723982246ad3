/* CHECK_NEAR for the tests of floating-point predictions (curve, device, ring all-reduce). */
#ifndef SCALEMETER_TEST_CHECK_NEAR_H
#define SCALEMETER_TEST_CHECK_NEAR_H

#include <math.h>

#include "check.h"

/* |actual - expected| <= rel * |expected| (and exact for expected == 0). */
#define CHECK_NEAR(actual, expected, rel)                                                         \
    do {                                                                                          \
        double a_ = (actual), e_ = (expected);                                                   \
        if (fabs(a_ - e_) <= (rel) * fabs(e_)) {                                                  \
            check_passed++;                                                                       \
        } else {                                                                                  \
            check_failed++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %.10g, expected %.10g\n", __FILE__, __LINE__, #actual, \
                    a_, e_);                                                                      \
        }                                                                                         \
    } while (0)

#endif
