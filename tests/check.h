/* A minimal assertion kit for the C tests: each CHECK names its file and line when it fails, and
 * check_summary() prints ctest-readable "N passed, N failed" and gives the exit status. */
#ifndef SCALEMETER_TEST_CHECK_H
#define SCALEMETER_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (cond) {                                                                               \
            check_passed++;                                                                       \
        } else {                                                                                  \
            check_failed++;                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);             \
        }                                                                                         \
    } while (0)

#define CHECK_EQ(actual, expected)                                                                \
    do {                                                                                          \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                          \
        if (a_ == e_) {                                                                           \
            check_passed++;                                                                       \
        } else {                                                                                  \
            check_failed++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #actual,   \
                    a_, e_);                                                                      \
        }                                                                                         \
    } while (0)

/* The text contains every needle; prints the text otherwise. */
#define CHECK_CONTAINS(text, needle)                                                              \
    do {                                                                                          \
        const char *t_ = (text), *n_ = (needle);                                                 \
        if (t_ && strstr(t_, n_)) {                                                               \
            check_passed++;                                                                       \
        } else {                                                                                  \
            check_failed++;                                                                       \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,       \
                    t_ ? t_ : "(null)", n_);                                                      \
        }                                                                                         \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
