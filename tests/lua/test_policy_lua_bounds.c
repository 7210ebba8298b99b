/*
 * test_policy_lua_bounds.c — what a Lua policy's rules may not do across and
 * within calls: keep state (every call runs in a fresh environment, so a
 * stateful rule gives the same verdict every time and from every thread),
 * write to library tables, or run past the per-call or total time bounds
 * (refused with MCPP_ELIMIT, kind "policy_limit", naming the rule and the
 * bound; compare returns MCPP_EPOLICY for any failed rule, the thread's last
 * error keeps the limit's code). No test measures speed: the limits are set small and the checks
 * are on outcomes and messages.
 *
 * usage: test_policy_lua_bounds EXAMPLES_RECEIPTS_DIR
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"
#include "test_util.h"

static const char *examples_dir;

/* A rule that would notice any state kept from an earlier call: a global, an
 * upvalue, a table reached from both, and a library field. */
static const char STATEFUL[] =
    "local calls = 0\n"
    "local seen = {}\n"
    "return { rules = { { name = 'stateful', fn = function(b, c)\n"
    "  calls = calls + 1\n"
    "  counter = (counter or 0) + 1\n"
    "  seen[#seen + 1] = c.id\n"
    "  if calls > 1 or counter > 1 or #seen > 1 then\n"
    "    return 'mismatch', 'state survived: call ' .. calls\n"
    "  end\n"
    "end } } }\n";

static mcpp_policy *load_with(const char *text, const mcpp_lua_limits *limits)
{
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_buffer(&p, text, strlen(text), "bounds.lua", limits) != MCPP_OK)
        fprintf(stderr, "load: %s\n", mcpp_error_last()->message);
    return p;
}

static mcpp_receipt *example(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", examples_dir, name);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_file(&r, NULL, path, NULL) != MCPP_OK)
        fprintf(stderr, "load %s: %s\n", path, mcpp_error_last()->message);
    return r;
}

TEST(defaults_are_one_second_per_call_and_one_and_a_half_in_total)
{
    mcpp_lua_limits l;
    mcpp_lua_limits_default(&l);
    CHECK_INT_EQ(l.max_call_ms, 1000);
    CHECK_INT_EQ(l.max_total_ms, 1500);
    CHECK_INT_EQ(l.max_instructions, 10000000);
}

TEST(a_stateful_rule_gives_the_same_verdict_on_every_call)
{
    mcpp_policy *p = load_with(STATEFUL, NULL);
    mcpp_receipt *a = example("nam56r_padded.json");
    mcpp_receipt *b = example("nam56r_padded_run2.json");
    CHECK(p && a && b);
    for (int i = 0; p && a && b && i < 200; i++) {
        mcpp_verdict v = MCPP_VERDICT_INSUFFICIENT;
        CHECK_INT_EQ(mcpp_compare_verdict(&v, p, i % 2 ? a : b, a), MCPP_OK);
        CHECK_INT_EQ(v, MCPP_VERDICT_COMPARABLE);
    }
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

typedef struct worker {
    const mcpp_policy *policy;
    const mcpp_receipt *a, *b;
    int calls, wrong;
} worker;

static void *call_many(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->calls; i++) {
        mcpp_verdict v;
        if (mcpp_compare_verdict(&v, w->policy, w->a, w->b) != MCPP_OK || v != MCPP_VERDICT_COMPARABLE)
            w->wrong++;
    }
    return NULL;
}

TEST(a_stateful_rule_shared_by_threads_gives_the_same_verdict_in_each)
{
    mcpp_policy *p = load_with(STATEFUL, NULL);
    mcpp_receipt *a = example("nam56r_padded.json");
    mcpp_receipt *b = example("nam56r_padded_run3.json");
    CHECK(p && a && b);
    if (!(p && a && b))
        return;
    enum { THREADS = 8 };
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){p, i % 2 ? a : b, i % 2 ? b : a, 150, 0};
        CHECK_INT_EQ(pthread_create(&th[i], NULL, call_many, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT_EQ(w[i].wrong, 0);
    }
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

TEST(a_rule_using_most_of_the_memory_cap_passes_on_every_call)
{
    /* 5 MB (10 MB at its peak inside string.rep) of a 16 MiB cap per call:
     * the garbage of the previous call must not count against the next one.
     * No total time bound: a sanitizer build copies slowly. */
    mcpp_lua_limits no_total;
    mcpp_lua_limits_default(&no_total);
    no_total.max_total_ms = -1;
    mcpp_policy *p = load_with("return { rules = { { name = 'big', fn = function(b, c)\n"
                               "  local s = string.rep('x', 5000000)\n"
                               "  if #s ~= 5000000 then return 'mismatch', 'short' end\n"
                               "end } } }\n",
                               &no_total);
    mcpp_receipt *a = example("nam56r_padded.json");
    CHECK(p && a);
    for (int i = 0; p && a && i < 12; i++) {
        mcpp_verdict v = MCPP_VERDICT_INSUFFICIENT;
        int rc = mcpp_compare_verdict(&v, p, a, a);
        if (rc != MCPP_OK)
            fprintf(stderr, "call %d: %s\n", i, mcpp_error_last()->message);
        CHECK_INT_EQ(rc, MCPP_OK);
        CHECK_INT_EQ(v, MCPP_VERDICT_COMPARABLE);
    }
    mcpp_receipt_free(a);
    mcpp_policy_free(p);
}

TEST(library_tables_are_read_only_at_load_and_in_rules)
{
    mcpp_policy *p = NULL;
    const char *at_load = "string.helper = function() end\nreturn {}";
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, at_load, strlen(at_load), "lib.lua", NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "read-only");
    p = load_with("return { rules = { { name = 'patch', fn = function(b, c) table.insert = nil end } } }", NULL);
    mcpp_receipt *a = example("nam56r_padded.json");
    mcpp_verdict v;
    CHECK(p && a);
    if (p && a) {
        CHECK_INT_EQ(mcpp_compare_verdict(&v, p, a, a), MCPP_EPOLICY);
        CHECK_CONTAINS(mcpp_error_last()->message, "rule 'patch'");
        CHECK_CONTAINS(mcpp_error_last()->message, "read-only");
    }
    mcpp_receipt_free(a);
    mcpp_policy_free(p);
}

static const char SLOW_RULE[] =
    "return { rules = { { name = 'slow', fn = function(b, c)\n"
    "  local s = string.rep('a', 3000)\n"
    "  for i = 1, %d do s:find('a*b') end\n"
    "end } } }\n";

TEST(a_rule_past_its_time_limit_is_refused_naming_the_rule_and_the_bound)
{
    char text[512];
    snprintf(text, sizeof text, SLOW_RULE, 1000000000);
    mcpp_lua_limits l;
    mcpp_lua_limits_default(&l);
    l.max_call_ms = 50;
    l.max_total_ms = -1;
    mcpp_policy *p = load_with(text, &l);
    mcpp_receipt *a = example("nam56r_padded.json");
    mcpp_verdict v;
    CHECK(p && a);
    if (p && a) {
        CHECK(mcpp_compare_verdict(&v, p, a, a) != MCPP_OK);
        const mcpp_error *e = mcpp_error_last();
        CHECK_INT_EQ(e->code, MCPP_ELIMIT);
        CHECK_CONTAINS(e->message, "rule 'slow'");
        CHECK_CONTAINS(e->message, "time limit of 50 ms per call");
        CHECK_STR_EQ(e->kind, "policy_limit");
        CHECK_INT_EQ(e->line, 3);
    }
    mcpp_receipt_free(a);
    mcpp_policy_free(p);
}

TEST(the_total_budget_refuses_many_calls_until_it_is_reset)
{
    /* About a millisecond per call. */
    const char *text = "return { rules = { { name = 'slow', fn = function(b, c)\n"
                       "  local x = 0\n"
                       "  for i = 1, 200000 do x = x + i end\n"
                       "end } } }\n";
    mcpp_lua_limits l;
    mcpp_lua_limits_default(&l);
    l.max_total_ms = 100;
    mcpp_policy *p = load_with(text, &l);
    mcpp_receipt *a = example("nam56r_padded.json");
    CHECK(p && a);
    if (!(p && a))
        return;
    int ok = 0, rc = MCPP_OK;
    mcpp_verdict v;
    for (int i = 0; i < 100000 && rc == MCPP_OK; i++)
        if ((rc = mcpp_compare_verdict(&v, p, a, a)) == MCPP_OK)
            ok++;
    CHECK(rc != MCPP_OK);
    CHECK_INT_EQ(mcpp_error_last()->code, MCPP_ELIMIT);
    CHECK(ok > 0);
    CHECK_CONTAINS(mcpp_error_last()->message, "rule 'slow' stopped");
    CHECK_CONTAINS(mcpp_error_last()->message, "total time budget of 100 ms");
    /* Spent stays spent ... */
    CHECK(mcpp_compare_verdict(&v, p, a, a) != MCPP_OK);
    CHECK_INT_EQ(mcpp_error_last()->code, MCPP_ELIMIT);
    /* ... until the host starts a new budget. */
    mcpp_policy_lua_reset_budget(p);
    CHECK_INT_EQ(mcpp_compare_verdict(&v, p, a, a), MCPP_OK);
    mcpp_receipt_free(a);
    mcpp_policy_free(p);
}

TEST(a_coroutine_error_under_a_long_path_shows_its_position_once)
{
    /* Lua shortens chunk names over 60 bytes to "...tail", and each
     * coroutine level puts its position in front again. */
    char name[200];
    memset(name, 'd', 100);
    strcpy(name + 100, "/nested.lua");
    const char *text = "local function f(n)\n"
                       "  if n == 0 then error('too deep here') end\n"
                       "  coroutine.wrap(function() f(n - 1) end)()\n"
                       "end\n"
                       "f(150)\n"
                       "return {}\n";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), name, NULL), MCPP_EPOLICY);
    const mcpp_error *e = mcpp_error_last();
    CHECK(strlen(e->message) < strlen(name) + 40);
    CHECK_CONTAINS(e->message, "too deep here");
    CHECK(strstr(e->message, "...") == NULL);
    CHECK_STR_EQ(e->file, name);
}

TEST(a_long_error_message_is_cut_between_words)
{
    const char *text = "local parts = {}\n"
                       "for i = 1, 300 do parts[i] = 'word' .. i end\n"
                       "error(table.concat(parts, ' '))\n";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), "long.lua", NULL), MCPP_EPOLICY);
    const char *msg = mcpp_error_last()->message;
    const char *more = strstr(msg, " [...]");
    CHECK(more != NULL && more[6] == '\0');
    /* What is kept ends with a whole "wordN": the next full word follows it
     * in the original sequence. */
    const char *last = more;
    while (last > msg && last[-1] != ' ')
        last--;
    int n = 0;
    CHECK(sscanf(last, "word%d", &n) == 1 && n > 10);
    char whole[32];
    snprintf(whole, sizeof whole, "word%d [...]", n);
    CHECK_STR_EQ(last, whole);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s EXAMPLES_RECEIPTS_DIR\n", argv[0]);
        return 2;
    }
    examples_dir = argv[1];
    RUN(defaults_are_one_second_per_call_and_one_and_a_half_in_total);
    RUN(a_stateful_rule_gives_the_same_verdict_on_every_call);
    RUN(a_stateful_rule_shared_by_threads_gives_the_same_verdict_in_each);
    RUN(a_rule_using_most_of_the_memory_cap_passes_on_every_call);
    RUN(library_tables_are_read_only_at_load_and_in_rules);
    RUN(a_rule_past_its_time_limit_is_refused_naming_the_rule_and_the_bound);
    RUN(the_total_budget_refuses_many_calls_until_it_is_reset);
    RUN(a_coroutine_error_under_a_long_path_shows_its_position_once);
    RUN(a_long_error_message_is_cut_between_words);
    TEST_MAIN_END();
}
