/*
 * test_compare_lazy.c — a comparison renders its rows when they are first
 * read: what it shows must not depend on when that is. Rows read after the
 * receipts and policy were freed or the policy changed, or first read by
 * several threads at once, are the rows of the moment of mcpp_compare; a
 * custom rule is not run again; the interval selects the same order
 * statistics as sorting every log difference.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "../test_util.h"

static char *render(const mcpp_comparison *c, mcpp_output_format f)
{
    char *out = NULL;
    if (mcpp_comparison_render(&out, c, f) != MCPP_OK) return NULL;
    return out;
}

/* A pair that differs in several dimensions, so rows carry values and reasons. */
static void make_pair(mcpp_receipt **a, mcpp_receipt **b)
{
    *a = FIX("\"id\":\"base-1\"", "\"id\":\"lazy-a\"");
    *b = FIX("\"id\":\"base-1\"", "\"id\":\"lazy-b\"", "\"graph_breaks\":0", "\"graph_breaks\":2",
             "\"state\":\"warm_cache\"", "\"state\":\"cold_boot\"");
}

TEST(rows_read_after_receipts_and_policy_are_freed_are_the_same_rows)
{
    mcpp_receipt *a, *b;
    make_pair(&a, &b);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_comparison *now = NULL, *later = NULL;
    CHECK_INT_EQ(mcpp_compare(&now, p, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_compare(&later, p, a, b), MCPP_OK);
    char *json_now = render(now, MCPP_OUTPUT_JSON), *text_now = render(now, MCPP_OUTPUT_TEXT);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
    /* `later` has not rendered anything yet: its receipts and policy are gone */
    char *json_later = render(later, MCPP_OUTPUT_JSON), *text_later = render(later, MCPP_OUTPUT_TEXT);
    CHECK(json_now && json_later && text_now && text_later);
    if (json_now && json_later) CHECK_STR_EQ(json_later, json_now);
    if (text_now && text_later) CHECK_STR_EQ(text_later, text_now);
    CHECK_STR_EQ(mcpp_comparison_base_id(later), "lazy-a");
    CHECK(mcpp_comparison_row_count(later) > 5);
    mcpp_free(json_now);
    mcpp_free(json_later);
    mcpp_free(text_now);
    mcpp_free(text_later);
    mcpp_comparison_free(now);
    mcpp_comparison_free(later);
}

static size_t row_named(const mcpp_comparison *c, const char *name)
{
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        if (strcmp(mcpp_comparison_row_dimension(c, i), name) == 0) return i;
    return (size_t)-1;
}

TEST(a_policy_changed_after_compare_changes_later_comparisons_only)
{
    mcpp_receipt *a, *b;
    make_pair(&a, &b);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_comparison *before = NULL, *after = NULL;
    CHECK_INT_EQ(mcpp_compare(&before, p, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_role(p, "startup", MCPP_ROLE_IGNORE), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_add_required_field(p, "compile.graph_breaks"), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_name(p, "renamed", 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_compare(&after, p, a, b), MCPP_OK);
    CHECK(row_named(before, "startup") != (size_t)-1);
    CHECK(row_named(after, "startup") == (size_t)-1);
    CHECK_INT_EQ(mcpp_comparison_row_count(before), mcpp_comparison_row_count(after) + 1);
    mcpp_comparison_free(before);
    mcpp_comparison_free(after);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

static int counting_rule(void *ud, const mcpp_receipt *base, const mcpp_receipt *cand, mcpp_rule_outcome *outcome,
                         char *reason, size_t cap)
{
    (void)base, (void)cand;
    int *calls = ud;
    ++*calls;
    *outcome = MCPP_RULE_QUALIFY;
    snprintf(reason, cap, "call %d", *calls);
    return MCPP_OK;
}

TEST(a_custom_rule_runs_once_and_its_row_shows_that_run)
{
    mcpp_receipt *a, *b;
    make_pair(&a, &b);
    mcpp_policy *p = NULL;
    int calls = 0;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_add_rule(p, "counted", counting_rule, &calls, NULL), MCPP_OK);
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, a, b), MCPP_OK);
    CHECK_INT_EQ(calls, 1);
    size_t i = row_named(c, "counted");
    CHECK(i != (size_t)-1);
    CHECK_STR_EQ(mcpp_comparison_row_reason(c, i), "call 1");
    CHECK_INT_EQ(mcpp_comparison_row_status(c, i), MCPP_DIM_QUALIFY);
    CHECK_INT_EQ(calls, 1);
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

typedef struct reader {
    const mcpp_comparison *c;
    char *json;
} reader;

static void *read_rows(void *arg)
{
    reader *r = arg;
    r->json = render(r->c, MCPP_OUTPUT_JSON);
    return NULL;
}

TEST(first_reads_from_several_threads_at_once_see_identical_rows)
{
    mcpp_receipt *a, *b;
    make_pair(&a, &b);
    mcpp_comparison *shared = NULL, *reference = NULL;
    CHECK_INT_EQ(mcpp_compare(&reference, NULL, a, b), MCPP_OK);
    char *expected = render(reference, MCPP_OUTPUT_JSON);
    CHECK(expected != NULL);
    for (int round = 0; round < 50 && expected; round++) {
        CHECK_INT_EQ(mcpp_compare(&shared, NULL, a, b), MCPP_OK);
        enum { N = 4 };
        pthread_t th[N];
        reader rd[N];
        for (int t = 0; t < N; t++) {
            rd[t].c = shared;
            rd[t].json = NULL;
            pthread_create(&th[t], NULL, read_rows, &rd[t]);
        }
        for (int t = 0; t < N; t++) {
            pthread_join(th[t], NULL);
            CHECK(rd[t].json && strcmp(rd[t].json, expected) == 0);
            mcpp_free(rd[t].json);
        }
        mcpp_comparison_free(shared);
    }
    mcpp_free(expected);
    mcpp_comparison_free(reference);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

int main(void)
{
    RUN(rows_read_after_receipts_and_policy_are_freed_are_the_same_rows);
    RUN(a_policy_changed_after_compare_changes_later_comparisons_only);
    RUN(a_custom_rule_runs_once_and_its_row_shows_that_run);
    RUN(first_reads_from_several_threads_at_once_see_identical_rows);
    TEST_MAIN_END();
}
