/*
 * test_util.h — a minimal test harness for the C tests.
 *
 * A test file defines functions with TEST(name) and lists them in main() with
 * RUN(name). Each check that fails prints file:line and the expression, and
 * the test binary exits 1 if any check failed. Test names state the behaviour
 * they prove, e.g. TEST(duplicate_key_is_refused_with_its_line).
 *
 * With MCPP_TEST_CASE=name in the environment only that case runs (and a name
 * no RUN line has fails): tests/CMakeLists.txt registers every RUN line as its
 * own ctest test that way, so a failure names its case.
 */
#ifndef MCPP_TEST_UTIL_H
#define MCPP_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures_total;
static int test_failures_current;
static int test_count;

/* The one case to run (MCPP_TEST_CASE), or NULL for all of them. */
static const char *test_selected_case(void)
{
    const char *name = getenv("MCPP_TEST_CASE");
    return name && *name ? name : NULL;
}

#define TEST(name) static void test_##name(void)

#define RUN(name)                                                                  \
    do {                                                                           \
        if (test_selected_case() && strcmp(test_selected_case(), #name) != 0)      \
            break;                                                                 \
        test_failures_current = 0;                                                 \
        test_count++;                                                              \
        test_##name();                                                             \
        printf("%s - %s\n", test_failures_current ? "not ok" : "ok", #name);       \
        fflush(stdout);                                                            \
        if (test_failures_current) test_failures_total++;                          \
    } while (0)

#define TEST_MAIN_END()                                                            \
    do {                                                                           \
        if (test_selected_case() && test_count == 0) {                             \
            fprintf(stderr, "no test case named '%s' in this binary\n",            \
                    test_selected_case());                                         \
            return 1;                                                              \
        }                                                                          \
        printf("%d passed, %d failed\n", test_count - test_failures_total,         \
               test_failures_total);                                               \
        return test_failures_total ? 1 : 0;                                        \
    } while (0)

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            test_failures_current++;                                               \
        }                                                                          \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                         \
    do {                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                        \
        if (_a != _b) {                                                            \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,    \
                    __LINE__, #a, #b, _a, _b);                                     \
            test_failures_current++;                                               \
        }                                                                          \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                         \
    do {                                                                           \
        const char *_a = (a), *_b = (b);                                           \
        if (!_a || !_b || strcmp(_a, _b) != 0) {                                   \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, \
                    __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");     \
            test_failures_current++;                                               \
        }                                                                          \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                           \
    do {                                                                           \
        const char *_h = (haystack), *_n = (needle);                               \
        if (!_h || !strstr(_h, _n)) {                                              \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,    \
                    __LINE__, _h ? _h : "(null)", _n);                             \
            test_failures_current++;                                               \
        }                                                                          \
    } while (0)

/* A gate outcome with "inconclusive" read as passed: for checks that a
 * change is not flagged (no false failure), whether or not the runs at hand
 * could also rule out a regression beyond gate.min_detectable. Tests of the
 * inconclusive outcome itself compare the outcome directly. */
static inline int not_failed_as_passed(int outcome) { return outcome == 4 /* MCPP_GATE_INCONCLUSIVE */ ? 0 : outcome; }

#endif /* MCPP_TEST_UTIL_H */
