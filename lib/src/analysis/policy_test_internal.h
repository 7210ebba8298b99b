/*
 * policy_test_internal.h — what a policy case run holds: analysis/policy_test_file.c
 * runs the cases, render/policy_test_render.c writes the report.
 */
#ifndef MCPP_POLICY_TEST_INTERNAL_H
#define MCPP_POLICY_TEST_INTERNAL_H

#include <stddef.h>

#include "mcpp_receipts/compare.h"

#define MCPP_POLICY_TEST_REPORT_SCHEMA "mcpp.policy-test/1"

/* A row of the comparison that did not match, kept for a failed case so a
 * reviewer sees why without rerunning. */
typedef struct test_row {
    char *name, *status, *reason;
} test_row;

typedef struct test_case {
    char *name; /* NULL when the case has none */
    int number; /* 1-based position in the file */
    int passed;
    char *verdict;  /* the verdict the policy gave */
    char *failures; /* "expected X, got Y; row R expected ..." or NULL */
    test_row *rows; /* failed cases only: the rows that did not match */
    size_t n_rows;
} test_case;

struct mcpp_policy_test_report {
    char *file, *policy;
    test_case *cases;
    size_t count, failed;
};

#endif /* MCPP_POLICY_TEST_INTERNAL_H */
