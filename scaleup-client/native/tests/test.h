/* test.h -- a minimal test harness: CHECK macros that count, RUN that names each test. */
#ifndef SCALEUP_TEST_H
#define SCALEUP_TEST_H

#include <stdio.h>
#include <string.h>

extern int testFailures;
extern int testChecks;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        __atomic_add_fetch(&testChecks, 1, __ATOMIC_RELAXED);                       \
        if (!(cond)) {                                                              \
            __atomic_add_fetch(&testFailures, 1, __ATOMIC_RELAXED);                 \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                           \
    } while (0)

#define CHECK_EQ_INT(expected, actual)                                              \
    do {                                                                            \
        long long e_ = (long long)(expected), a_ = (long long)(actual);             \
        __atomic_add_fetch(&testChecks, 1, __ATOMIC_RELAXED);                       \
        if (e_ != a_) {                                                             \
            __atomic_add_fetch(&testFailures, 1, __ATOMIC_RELAXED);                 \
            fprintf(stderr, "  FAIL %s:%d: %s == %lld, expected %lld\n", __FILE__,  \
                    __LINE__, #actual, a_, e_);                                     \
        }                                                                           \
    } while (0)

#define CHECK_EQ_STR(expected, actual)                                              \
    do {                                                                            \
        const char *e_ = (expected), *a_ = (actual);                                \
        __atomic_add_fetch(&testChecks, 1, __ATOMIC_RELAXED);                       \
        if (strcmp(e_, a_) != 0) {                                                  \
            __atomic_add_fetch(&testFailures, 1, __ATOMIC_RELAXED);                 \
            fprintf(stderr, "  FAIL %s:%d: %s == \"%s\", expected \"%s\"\n",        \
                    __FILE__, __LINE__, #actual, a_, e_);                           \
        }                                                                           \
    } while (0)

#define RUN(test)                                                                   \
    do {                                                                            \
        int before_ = testFailures;                                                 \
        test();                                                                     \
        printf("%s %s\n", testFailures == before_ ? "ok  " : "FAIL", #test);        \
        testsRun++;                                                                 \
    } while (0)

/* Prints the summary and returns the process exit code. */
#define TEST_SUMMARY(name)                                                          \
    (printf("%s: %d tests, %d checks, %d failures\n", name, testsRun, testChecks,   \
            testFailures),                                                          \
     testFailures == 0 ? 0 : 1)

#define TEST_GLOBALS int testFailures, testChecks, testsRun

extern int testsRun;

#endif /* SCALEUP_TEST_H */
