/* The assertion kit of the C tests (every test uses it): each CHECK names its file and line when
 * it fails and the test goes on; check_fatal() ends it where it cannot go on; check_summary()
 * prints ctest-readable "N passed, N failed" and gives the exit status. */
#ifndef SCALEMETER_TEST_CHECK_H
#define SCALEMETER_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(actual, expected)                                                                 \
    do {                                                                                           \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                            \
        if (a_ == e_) {                                                                            \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #actual, a_, \
                    e_);                                                                           \
        }                                                                                          \
    } while (0)

/* A check that says more when it fails: a printf format and its arguments. */
#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_STR_EQ(actual, expected)                                                             \
    do {                                                                                           \
        const char *a_ = (actual), *e_ = (expected);                                               \
        if (a_ && strcmp(a_, e_) == 0) {                                                           \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #actual, \
                    a_ ? a_ : "(null)", e_);                                                       \
        }                                                                                          \
    } while (0)

/* |actual - expected| <= rel * |expected| (and exact for expected == 0). */
#define CHECK_NEAR(actual, expected, rel)                                                          \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected);                                                     \
        if (fabs(a_ - e_) <= (rel)*fabs(e_)) {                                                     \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: %s == %.10g, expected %.10g\n", __FILE__, __LINE__, #actual,   \
                    a_, e_);                                                                       \
        }                                                                                          \
    } while (0)

/* The text contains every needle; prints the text otherwise. */
#define CHECK_CONTAINS(text, needle)                                                               \
    do {                                                                                           \
        const char *t_ = (text), *n_ = (needle);                                                   \
        if (t_ && strstr(t_, n_)) {                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,         \
                    t_ ? t_ : "(null)", n_);                                                       \
        }                                                                                          \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

/* A failure the test cannot go on from (a network that did not load): says where and why,
 * prints the summary and exits 1. */
static void check_fatal(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn, unused));
static void check_fatal(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: check failed: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    check_failed++;
    exit(check_summary());
}

#endif
