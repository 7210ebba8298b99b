/*
 * test_policy_lua.c — Lua policy files: what they compile to, how includes
 * combine, how errors are located, the shipped policies, and custom rules with
 * read-only receipt views.
 *
 * usage: test_policy_lua POLICY_DIR EXAMPLES_RECEIPTS_DIR WORK_DIR
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"
#include "test_util.h"

static const char *policy_dir;
static const char *examples_dir;
static const char *work_dir;

/* ---- helpers ------------------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

/* A fresh directory under WORK_DIR for one test's files. */
static const char *scratch(const char *name)
{
    static char path[1024];
    mkdir(work_dir, 0755);
    snprintf(path, sizeof path, "%s/%s", work_dir, name);
    mkdir(path, 0755);
    return path;
}

static mcpp_policy *load_text(const char *text)
{
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_buffer(&p, text, strlen(text), "inline.lua", NULL) != MCPP_OK)
        return NULL;
    return p;
}

static mcpp_policy *load_shipped(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", policy_dir, name);
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_file(&p, path, NULL) != MCPP_OK) {
        fprintf(stderr, "load %s: %s\n", path, mcpp_error_last()->message);
        return NULL;
    }
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

/* The example receipt `name` with every occurrence of `from` replaced by `to`. */
static mcpp_receipt *example_edited(const char *name, const char *from, const char *to)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", examples_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char in[1 << 17], out[1 << 17];
    size_t n = fread(in, 1, sizeof in - 1, f);
    fclose(f);
    in[n] = '\0';
    size_t o = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = in; *p;) {
        if (strncmp(p, from, fl) == 0 && o + tl < sizeof out) {
            memcpy(out + o, to, tl);
            o += tl;
            p += fl;
        } else if (o + 1 < sizeof out) {
            out[o++] = *p++;
        } else {
            break;
        }
    }
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, out, o, MCPP_FORMAT_JSON, "edited.json", NULL) != MCPP_OK)
        fprintf(stderr, "edited %s: %s\n", name, mcpp_error_last()->message);
    return r;
}

static int find_dim(const mcpp_policy *p, const char *name)
{
    for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++)
        if (strcmp(mcpp_policy_dimension_name(p, i), name) == 0)
            return (int)i;
    return -1;
}

static int role_of(const mcpp_policy *p, const char *name)
{
    int i = find_dim(p, name);
    return i < 0 ? -1 : mcpp_policy_dimension_role(p, (size_t)i);
}

static mcpp_verdict verdict_of(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b)
{
    mcpp_comparison *c = NULL;
    if (mcpp_compare(&c, p, a, b) != MCPP_OK) {
        fprintf(stderr, "compare failed: %s\n", mcpp_error_last()->message);
        return (mcpp_verdict)-1;
    }
    mcpp_verdict v = mcpp_comparison_verdict(c);
    mcpp_comparison_free(c);
    return v;
}

/* ---- the declarative part ----------------------------------------------------- */

TEST(roles_lists_become_dimensions_with_those_roles)
{
    mcpp_policy *p = load_text("return { dimensions = { must_match = {'pattern', 'routing'},\n"
                               "  qualify = {'startup'}, ignore = {'cache'} } }");
    CHECK(p != NULL);
    CHECK_INT_EQ(mcpp_policy_dimension_count(p), 4);
    CHECK_INT_EQ(role_of(p, "pattern"), MCPP_ROLE_MUST_MATCH);
    CHECK_INT_EQ(role_of(p, "routing"), MCPP_ROLE_MUST_MATCH);
    CHECK_INT_EQ(role_of(p, "startup"), MCPP_ROLE_QUALIFY);
    CHECK_INT_EQ(role_of(p, "cache"), MCPP_ROLE_IGNORE);
    CHECK_INT_EQ(role_of(p, "hardware"), -1);
    CHECK_STR_EQ(mcpp_policy_name(p), "inline");
    mcpp_policy_free(p);
}

TEST(noise_gate_adjacency_and_required_fields_are_compiled)
{
    mcpp_policy *p = load_text(
        "return { name = 'x', version = 4,\n"
        "  require_fields = { 'lane.pattern', 'metrics.tokens_per_s', 'lane.pattern' },\n"
        "  noise = { max_rel_spread = 0.02, min_runs = 7, noise_floor = 0.004 },\n"
        "  gate = { metric = 'metrics.step_time_s.median', higher_is_better = false,\n"
        "           max_regression = 0.1, confidence = 0.9 },\n"
        "  adjacency = { width = 2 } }");
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_STR_EQ(mcpp_policy_name(p), "x");
    CHECK_INT_EQ(mcpp_policy_required_count(p), 2);
    CHECK_STR_EQ(mcpp_policy_required_at(p, 1), "metrics.tokens_per_s");
    CHECK(mcpp_policy_noise(p)->max_rel_spread == 0.02);
    CHECK_INT_EQ(mcpp_policy_noise(p)->min_runs, 7);
    CHECK(mcpp_policy_noise(p)->noise_floor == 0.004);
    CHECK_STR_EQ(mcpp_policy_gate(p)->metric, "metrics.step_time_s.median");
    CHECK_INT_EQ(mcpp_policy_gate(p)->higher_is_better, 0);
    CHECK(mcpp_policy_gate(p)->max_regression == 0.1);
    CHECK(mcpp_policy_gate(p)->confidence == 0.9);
    CHECK_INT_EQ(mcpp_policy_adjacency_width(p), 2);
    mcpp_policy_free(p);
}

TEST(defined_dimension_gets_its_fields_and_role)
{
    mcpp_policy *p = load_text("return { dimensions = {\n"
                               "  define = { moe_lane = { 'backend.moe.observed', 'routing.top_k' } },\n"
                               "  qualify = { 'moe_lane' } } }");
    CHECK(p != NULL);
    int i = p ? find_dim(p, "moe_lane") : -1;
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_INT_EQ(mcpp_policy_dimension_role(p, (size_t)i), MCPP_ROLE_QUALIFY);
        CHECK_INT_EQ(mcpp_policy_dimension_field_count(p, (size_t)i), 2);
        CHECK_STR_EQ(mcpp_policy_dimension_field(p, (size_t)i, 0), "backend.moe.observed");
    }
    mcpp_policy_free(p);
}

TEST(unknown_top_level_key_is_an_error_naming_key_and_line)
{
    CHECK(load_text("return {\n  name = 'x',\n  nosie = { min_runs = 3 },\n}") == NULL);
    const mcpp_error *e = mcpp_error_last();
    CHECK_INT_EQ(e->code, MCPP_EPOLICY);
    CHECK_STR_EQ(e->kind, "policy");
    CHECK_INT_EQ(e->line, 3);
    CHECK_CONTAINS(e->message, "inline.lua:3:");
    CHECK_CONTAINS(e->message, "'nosie'");
}

/* The line is where the wrong value stands, with its table path: never an
 * earlier `key =` in a comment, a string or another table (issue 51 item 4). */
TEST(errors_point_at_the_line_of_the_wrong_value_with_its_path)
{
    CHECK(load_text("return {\n"
                    "  -- confidence = 0.9 would be looser\n"
                    "  noise = { min_runs = 3 },\n"
                    "  gate = {\n"
                    "    metrics = {\n"
                    "      { name = 'a', confidence = 0.9 },\n"
                    "      { name = 'b', confidence = 1.5 },\n"
                    "    },\n"
                    "  },\n"
                    "}") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 7);
    CHECK_CONTAINS(mcpp_error_last()->message, "inline.lua:7:");
    CHECK_CONTAINS(mcpp_error_last()->message, "gate.metrics[2].confidence must be inside (0, 1)");

    CHECK(load_text("return {\n"
                    "  name = 'min_runs = 1 is the least',\n"
                    "  --[[ noise = { min_runs = 2 } ]]\n"
                    "  noise = {\n"
                    "    max_rel_spread = 0.1,\n"
                    "    min_runs = 0 },\n"
                    "}") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 6);
    CHECK_CONTAINS(mcpp_error_last()->message, "noise.min_runs must be a whole number");

    /* A table built in a variable is found by the tail of the path. */
    CHECK(load_text("local g = {\n"
                    "  max_regression = 0.05,\n"
                    "  confidence = 2,\n"
                    "}\n"
                    "return { gate = g }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 3);

    /* The second listing, not the first occurrence of the name. */
    CHECK(load_text("return { dimensions = {\n"
                    "  must_match = { 'pattern' },\n"
                    "  qualify = {\n"
                    "    'hardware',\n"
                    "    'pattern' } } }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 5);
    CHECK_CONTAINS(mcpp_error_last()->message, "'pattern' is listed under both must_match and qualify");

    /* An unknown key inside a rules entry: the entry's path and the key's line. */
    CHECK(load_text("return { rules = {\n"
                    "  { name = 'r', fn = function(b, c) local x, y = 1, 2 return nil end },\n"
                    "  { name = 's',\n"
                    "    fun = function(b, c) return nil end } } }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 4);
    CHECK_CONTAINS(mcpp_error_last()->message, "unknown key 'fun' in rules[2]");
}

TEST(unknown_nested_keys_are_errors_with_lines)
{
    CHECK(load_text("return {\n gate = {\n  confidnce = 0.9 } }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 3);
    CHECK_CONTAINS(mcpp_error_last()->message, "'confidnce' in gate");
    CHECK(load_text("return { dimensions = { must_mach = {} } }") == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "must_mach");
    CHECK(load_text("return { noise = { min_run = 3 } }") == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "min_run");
}

TEST(unknown_dimension_and_field_paths_are_errors_with_lines)
{
    CHECK(load_text("return { dimensions = {\n must_match = {\n 'patern' } } }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 3);
    CHECK_CONTAINS(mcpp_error_last()->message, "unknown dimension 'patern'");
    CHECK(load_text("return {\n require_fields = {\n 'lane.patern' } }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 3);
    CHECK_CONTAINS(mcpp_error_last()->message, "lane.patern");
    CHECK(load_text("return { dimensions = { define = {\n x = {\n 'compile.postur' } } } }") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->line, 3);
    CHECK_CONTAINS(mcpp_error_last()->message, "compile.postur");
    CHECK(load_text("return { gate = { metric = 'lane.pattern' } }") == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "not a number field");
}

TEST(nonsensical_thresholds_are_errors)
{
    const char *bad[] = {
        "return { gate = { confidence = 1.5 } }",      "return { gate = { confidence = 0 } }",
        "return { gate = { max_regression = -0.1 } }", "return { noise = { min_runs = 0 } }",
        "return { noise = { min_runs = 2.5 } }",       "return { noise = { max_rel_spread = -1 } }",
        "return { noise = { noise_floor = -0.5 } }",   "return { adjacency = { width = 0 } }",
        "return { gate = { higher_is_better = 1 } }",  "return { noise = { min_runs = 'three' } }",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcpp_policy *p = load_text(bad[i]);
        if (p)
            fprintf(stderr, "accepted: %s\n", bad[i]);
        CHECK(p == NULL);
        CHECK_INT_EQ(mcpp_error_last()->code, MCPP_EPOLICY);
        mcpp_policy_free(p);
    }
}

TEST(dimension_listed_under_two_roles_in_one_file_is_refused)
{
    CHECK(load_text("return { dimensions = { must_match = {'startup'}, qualify = {'startup'} } }") == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "listed under both");
}

TEST(runtime_error_is_reported_with_file_and_line)
{
    CHECK(load_text("local x = 1\nlocal y = nil\nreturn y.z") == NULL);
    CHECK_INT_EQ(mcpp_error_last()->code, MCPP_EPOLICY);
    CHECK_INT_EQ(mcpp_error_last()->line, 3);
    CHECK_STR_EQ(mcpp_error_last()->file, "inline.lua");
}

TEST(pairs_visits_keys_in_sorted_order_so_results_are_deterministic)
{
    mcpp_policy *p = load_text("local t = { zeta = 1, alpha = 2, mid = 3, [2] = 0, [1] = 0 }\n"
                               "local s = ''\n"
                               "for k in pairs(t) do s = s .. tostring(k) .. ',' end\n"
                               "return { name = s }");
    CHECK(p != NULL);
    if (p)
        CHECK_STR_EQ(mcpp_policy_name(p), "1,2,alpha,mid,zeta,");
    mcpp_policy_free(p);
}

/* Issue 48 item 3: next() walked hash order, and string keys hash with a seed
 * of each Lua state (their order changed between processes: a verdict built
 * from it flipped in 4-5 of 20 runs). next now walks pairs' order: 20 loads,
 * each its own state, give one order, the sorted one. */
TEST(next_visits_keys_in_sorted_order_in_every_state)
{
    static const char text[] = "local t = {}\n"
                               "for _, w in ipairs({'kz', 'ka', 'km', 'kb', 'ky', 'kc'}) do t[w] = 1 end\n"
                               "t[3] = true; t[1] = true; t[false] = 1\n"
                               "local s, k = '', next(t)\n"
                               "while k ~= nil do s = s .. tostring(k) .. ','; k = next(t, k) end\n"
                               "return { name = s }";
    char want[1024] = "";
    for (int run = 0; run < 20; run++) {
        mcpp_policy *p = load_text(text);
        CHECK(p != NULL);
        if (p && run == 0)
            snprintf(want, sizeof want, "%s", mcpp_policy_name(p));
        else if (p)
            CHECK_STR_EQ(mcpp_policy_name(p), want);
        mcpp_policy_free(p);
    }
    CHECK_STR_EQ(want, "1,3,ka,kb,kc,km,ky,kz,false,");
    mcpp_policy *p = NULL;
    static const char by_table[] = "local t = { [{}] = 1, [{}] = 2 }\nfor k in pairs(t) do end\nreturn {}";
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, by_table, strlen(by_table), "keys.lua", NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "keys.lua:2: pairs: a table with table keys has no fixed order");
    static const char next_by_function[] = "local t = { [print or type] = 1 }\nlocal k = next(t)\nreturn {}";
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, next_by_function, strlen(next_by_function), "f.lua", NULL),
                 MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "next: a table with function keys has no fixed order");
}

/* A rule that shows a table or a function gets the same text on every run:
 * no addresses (issue 28: a policy's verdict changed in 6 of 20 runs). */
TEST(tostring_and_format_show_no_addresses_so_rules_are_deterministic)
{
    mcpp_policy *p = load_text("local t = setmetatable({}, { __tostring = function() return 'T' end })\n"
                               "local u = setmetatable({}, { __name = 'N' })\n"
                               "return { name = tostring({}) .. ',' .. tostring(print or tostring) .. ',' ..\n"
                               "  tostring(coroutine.create(function() end)) .. ',' .. tostring(t) .. ',' ..\n"
                               "  tostring(u) .. ',' .. string.format('%s|%5s|%d', {}, t, 7) .. ',' .. tostring(1.5) }");
    CHECK(p != NULL);
    if (p)
        CHECK_STR_EQ(mcpp_policy_name(p), "table,function,thread,T,table,table|    T|7,1.5");
    mcpp_policy_free(p);
    mcpp_policy *q = NULL;
    static const char text[] = "return { name = string.format('%p', {}) }";
    CHECK(mcpp_policy_load_lua_buffer(&q, text, strlen(text), "p.lua", NULL) != MCPP_OK);
    CHECK_CONTAINS(mcpp_error_last()->message, "%p (a memory address) is not available");
    mcpp_policy_free(q);
}

TEST(ordinary_string_and_table_functions_work_in_the_sandbox)
{
    mcpp_policy *p = load_text(
        "local a, b, c = string.match('attention:flash->sdpa', '^(%w+):(%w+)%->(%w+)$')\n"
        "local parts = {}\n"
        "for w in ('a,b,c'):gmatch('[^,]+') do parts[#parts + 1] = w end\n"
        "table.sort(parts, function(x, y) return x > y end)\n"
        "local empty = string.rep('', 2^40)\n"
        "return { name = a .. b .. c .. table.concat(parts) .. #empty .. math.floor(2.5) .. utf8.char(65) }");
    CHECK(p != NULL);
    if (p)
        CHECK_STR_EQ(mcpp_policy_name(p), "attentionflashsdpacba02A");
    mcpp_policy_free(p);
}

TEST(limits_are_configurable)
{
    mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    CHECK_INT_EQ(lim.max_instructions, 10000000);
    const char *loop = "local n = 0 for i = 1, 200000 do n = n + i end return {}";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, loop, strlen(loop), "l.lua", &lim), MCPP_OK);
    mcpp_policy_free(p);
    lim.max_instructions = 50000;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, loop, strlen(loop), "l.lua", &lim), MCPP_ELIMIT);
    CHECK_CONTAINS(mcpp_error_last()->message, "instruction budget of 50000");
    mcpp_lua_limits_default(&lim);
    lim.max_memory_bytes = 1 << 20;
    const char *big = "local s = string.rep('x', 600000) .. string.rep('y', 600000) return {}";
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, big, strlen(big), "m.lua", &lim), MCPP_ELIMIT);
    CHECK_CONTAINS(mcpp_error_last()->message, "memory cap");
    CHECK(p == NULL);
}

/* ---- includes --------------------------------------------------------------------- */

TEST(including_file_takes_precedence_key_by_key)
{
    const char *dir = scratch("precedence");
    write_file(dir, "base.lua",
               "return { name = 'base', dimensions = { must_match = {'pattern', 'hardware'},\n"
               "  qualify = {'startup'} }, require_fields = {'lane.pattern'},\n"
               "  noise = { max_rel_spread = 0.1, min_runs = 4 }, gate = { confidence = 0.8 } }");
    write_file(dir, "top.lua",
               "return { include = {'base.lua'}, name = 'top',\n"
               "  dimensions = { qualify = {'hardware'}, must_match = {'startup'} },\n"
               "  require_fields = {'metrics.tokens_per_s'}, noise = { min_runs = 6 } }");
    char path[1024];
    snprintf(path, sizeof path, "%s/top.lua", dir);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_OK);
    if (!p)
        return;
    CHECK_STR_EQ(mcpp_policy_name(p), "top");
    CHECK_INT_EQ(role_of(p, "pattern"), MCPP_ROLE_MUST_MATCH);
    CHECK_INT_EQ(role_of(p, "hardware"), MCPP_ROLE_QUALIFY);
    CHECK_INT_EQ(role_of(p, "startup"), MCPP_ROLE_MUST_MATCH);
    CHECK_INT_EQ(mcpp_policy_required_count(p), 2);
    CHECK(mcpp_policy_noise(p)->max_rel_spread == 0.1); /* kept from base */
    CHECK_INT_EQ(mcpp_policy_noise(p)->min_runs, 6);    /* overridden     */
    CHECK(mcpp_policy_gate(p)->confidence == 0.8);
    mcpp_policy_free(p);
}

TEST(diamond_include_applies_the_shared_file_once_and_the_top_file_names_the_policy)
{
    const char *dir = scratch("diamond");
    write_file(dir, "shared.lua", "return { rules = { function() return 'qualify', 'shared' end } }");
    write_file(dir, "left.lua", "return { include = 'shared.lua' }");
    write_file(dir, "right.lua", "return { include = {'shared.lua'} }");
    write_file(dir, "top.lua", "return { include = {'left.lua', 'right.lua'} }");
    char path[1024];
    snprintf(path, sizeof path, "%s/top.lua", dir);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_rule_count(p), 1);
    CHECK_STR_EQ(mcpp_policy_name(p), "top"); /* names come from the top file only */
    mcpp_policy_free(p);
}

TEST(include_cycle_is_refused)
{
    const char *dir = scratch("cycle");
    write_file(dir, "a.lua", "return { include = {'b.lua'} }");
    write_file(dir, "b.lua", "return {\n include = {'a.lua'} }");
    write_file(dir, "self.lua", "return { include = {'self.lua'} }");
    char path[1024];
    snprintf(path, sizeof path, "%s/a.lua", dir);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "include cycle");
    CHECK_CONTAINS(mcpp_error_last()->file, "b.lua");
    CHECK_INT_EQ(mcpp_error_last()->line, 2);
    snprintf(path, sizeof path, "%s/self.lua", dir);
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "include cycle");
}

TEST(include_escaping_its_directory_is_refused)
{
    const char *dir = scratch("escape");
    const char *names[] = {"../default.lua", "/etc/passwd", "sub/x.lua", "..", ".", "a\\\\b.lua", ""};
    char text[256], path[1024];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(text, sizeof text, "return { include = { '%s' } }", names[i]);
        write_file(dir, "top.lua", text);
        snprintf(path, sizeof path, "%s/top.lua", dir);
        mcpp_policy *p = NULL;
        CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_EPOLICY);
        CHECK_CONTAINS(mcpp_error_last()->message, "refused");
    }
}

TEST(include_of_a_symlink_or_missing_file_is_refused)
{
    const char *dir = scratch("symlink");
    char target[1024], link_path[1024], path[1024];
    snprintf(target, sizeof target, "%s/%s", policy_dir, "default.lua");
    snprintf(link_path, sizeof link_path, "%s/linked.lua", dir);
    remove(link_path);
    CHECK_INT_EQ(symlink(target, link_path), 0);
    write_file(dir, "top.lua", "return { include = { 'linked.lua' } }");
    snprintf(path, sizeof path, "%s/top.lua", dir);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, path, NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "not a regular file");
    write_file(dir, "top.lua", "return { include = { 'missing.lua' } }");
    CHECK(mcpp_policy_load_lua_file(&p, path, NULL) != MCPP_OK);
    CHECK_CONTAINS(mcpp_error_last()->message, "missing.lua");
}

TEST(buffer_without_a_name_cannot_include)
{
    const char *text = "return { include = { 'default.lua' } }";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), NULL, NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "needs a policy file name");
}

/* ---- shipped policies ---------------------------------------------------------------- */

TEST(shipped_default_policy_compiles_to_the_builtin_default)
{
    mcpp_policy *lua = load_shipped("default.lua");
    mcpp_policy *builtin = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&builtin), MCPP_OK);
    CHECK(lua != NULL);
    if (!lua || !builtin)
        return;
    CHECK_STR_EQ(mcpp_policy_name(lua), mcpp_policy_name(builtin));
    CHECK_INT_EQ(mcpp_policy_dimension_count(lua), mcpp_policy_dimension_count(builtin));
    for (size_t i = 0; i < mcpp_policy_dimension_count(builtin) && i < mcpp_policy_dimension_count(lua); i++) {
        CHECK_STR_EQ(mcpp_policy_dimension_name(lua, i), mcpp_policy_dimension_name(builtin, i));
        CHECK_INT_EQ(mcpp_policy_dimension_role(lua, i), mcpp_policy_dimension_role(builtin, i));
        CHECK_INT_EQ(mcpp_policy_dimension_field_count(lua, i), mcpp_policy_dimension_field_count(builtin, i));
        for (size_t k = 0; k < mcpp_policy_dimension_field_count(builtin, i); k++)
            CHECK_STR_EQ(mcpp_policy_dimension_field(lua, i, k), mcpp_policy_dimension_field(builtin, i, k));
    }
    CHECK_INT_EQ(mcpp_policy_required_count(lua), mcpp_policy_required_count(builtin));
    CHECK(memcmp(mcpp_policy_noise(lua), mcpp_policy_noise(builtin), sizeof(mcpp_noise_settings)) == 0);
    CHECK_STR_EQ(mcpp_policy_gate(lua)->metric, mcpp_policy_gate(builtin)->metric);
    CHECK_INT_EQ(mcpp_policy_gate(lua)->higher_is_better, mcpp_policy_gate(builtin)->higher_is_better);
    CHECK(mcpp_policy_gate(lua)->max_regression == mcpp_policy_gate(builtin)->max_regression);
    CHECK(mcpp_policy_gate(lua)->confidence == mcpp_policy_gate(builtin)->confidence);
    CHECK_INT_EQ(mcpp_policy_adjacency_width(lua), mcpp_policy_adjacency_width(builtin));
    CHECK_INT_EQ(mcpp_policy_rule_count(lua), 0);
    mcpp_policy_free(lua);
    mcpp_policy_free(builtin);
}

/* Same verdict, rows and gate as the built-in default on every ordered pair of
 * the examples and of receipts edited here. */
TEST(shipped_default_policy_decides_every_example_and_built_pair_like_the_builtin)
{
    mcpp_policy *lua = load_shipped("default.lua");
    mcpp_policy *builtin = NULL;
    mcpp_policy_default(&builtin);
    mcpp_receipt *r[64];
    size_t n = 0;
    DIR *d = opendir(examples_dir);
    CHECK(d != NULL);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && n < 64) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && (r[n] = example(e->d_name)) != NULL)
            n++;
    }
    if (d)
        closedir(d);
    CHECK(n >= 8);
    /* And pairs built here: each differs from an example in one dimension. */
    mcpp_receipt *built[] = {
        example_edited("nam56r_padded.json", "\"seq_len\": 4096", "\"seq_len\": 8192"),
        example_edited("nam56r_padded.json", "NVIDIA H100 80GB HBM3", "NVIDIA H200"),
        example_edited("nam52_dense.json", "\"precision\": \"bf16\"", "\"precision\": \"fp8\""),
        example_edited("nam56r_padded.json", "\"top_k\": 6", "\"top_k\": 4"),
    };
    for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) {
        CHECK(built[i] != NULL);
        if (built[i] && n < 64)
            r[n++] = built[i];
    }
    size_t pairs = 0, differing = 0;
    for (size_t i = 0; i < n && lua; i++) {
        for (size_t j = 0; j < n; j++) {
            mcpp_comparison *a = NULL, *b = NULL;
            CHECK_INT_EQ(mcpp_compare(&a, lua, r[i], r[j]), MCPP_OK);
            CHECK_INT_EQ(mcpp_compare(&b, builtin, r[i], r[j]), MCPP_OK);
            if (a && b) {
                pairs++;
                int same = mcpp_comparison_verdict(a) == mcpp_comparison_verdict(b) &&
                           mcpp_comparison_gate(a) == mcpp_comparison_gate(b) &&
                           mcpp_comparison_row_count(a) == mcpp_comparison_row_count(b);
                for (size_t k = 0; same && k < mcpp_comparison_row_count(a); k++)
                    same = mcpp_comparison_row_status(a, k) == mcpp_comparison_row_status(b, k) &&
                           strcmp(mcpp_comparison_row_reason(a, k), mcpp_comparison_row_reason(b, k)) == 0;
                differing += !same;
            }
            mcpp_comparison_free(a);
            mcpp_comparison_free(b);
        }
    }
    CHECK_INT_EQ(pairs, n * n);
    CHECK_INT_EQ(differing, 0);
    for (size_t i = 0; i < n; i++)
        mcpp_receipt_free(r[i]);
    mcpp_policy_free(lua);
    mcpp_policy_free(builtin);
}

TEST(strict_policy_requires_the_same_starting_line_and_five_runs)
{
    mcpp_policy *def = load_shipped("default.lua");
    mcpp_policy *strict = load_shipped("strict.lua");
    mcpp_receipt *cold = example("nam56r_cold_boot.json");
    mcpp_receipt *warm = example("nam56r_warm_cache.json");
    CHECK(def && strict && cold && warm);
    if (def && strict && cold && warm) {
        CHECK_INT_EQ(verdict_of(def, cold, warm), MCPP_VERDICT_QUALIFIED);
        CHECK_INT_EQ(verdict_of(strict, cold, warm), MCPP_VERDICT_NOT_COMPARABLE);
        CHECK_STR_EQ(mcpp_policy_name(strict), "strict");
        CHECK_INT_EQ(mcpp_policy_noise(strict)->min_runs, 5);
        CHECK(mcpp_policy_noise(strict)->max_rel_spread < mcpp_policy_noise(def)->max_rel_spread);
        CHECK_INT_EQ(role_of(strict, "cache"), MCPP_ROLE_MUST_MATCH);
        CHECK_INT_EQ(role_of(strict, "fallbacks"), MCPP_ROLE_QUALIFY);
        CHECK_INT_EQ(mcpp_policy_rule_count(strict), 2);
    }
    mcpp_receipt_free(cold);
    mcpp_receipt_free(warm);
    mcpp_policy_free(def);
    mcpp_policy_free(strict);
}

TEST(cross_hardware_policy_qualifies_a_different_accelerator)
{
    mcpp_policy *def = load_shipped("default.lua");
    mcpp_policy *cross = load_shipped("cross_hardware.lua");
    mcpp_receipt *h100 = example("nam56r_padded.json");
    mcpp_receipt *h200 = example_edited("nam56r_padded.json", "NVIDIA H100 80GB HBM3", "NVIDIA H200");
    CHECK(def && cross && h100 && h200);
    if (def && cross && h100 && h200) {
        CHECK_INT_EQ(verdict_of(def, h100, h200), MCPP_VERDICT_NOT_COMPARABLE);
        CHECK_INT_EQ(verdict_of(cross, h100, h200), MCPP_VERDICT_QUALIFIED);
        CHECK_INT_EQ(role_of(cross, "hardware"), MCPP_ROLE_QUALIFY);
        CHECK_INT_EQ(role_of(cross, "topology"), MCPP_ROLE_MUST_MATCH);
    }
    mcpp_receipt_free(h100);
    mcpp_receipt_free(h200);
    mcpp_policy_free(def);
    mcpp_policy_free(cross);
}

/* ---- custom rules -------------------------------------------------------------------- */

static const char *row_reason(const mcpp_comparison *c, const char *dim, int *status)
{
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        if (strcmp(mcpp_comparison_row_dimension(c, i), dim) == 0) {
            *status = mcpp_comparison_row_status(c, i);
            return mcpp_comparison_row_reason(c, i);
        }
    *status = -1;
    return NULL;
}

TEST(rule_reads_nested_sections_and_dotted_paths_of_both_receipts)
{
    mcpp_policy *p = load_text(
        "return { dimensions = { must_match = {'pattern'} }, rules = { { name = 'breaks', fn =\n"
        "  function(base, cand)\n"
        "    local k = base['routing.top_k'] + cand.routing.top_k\n"
        "    if cand.compile.graph_breaks > base.compile.graph_breaks then\n"
        "      return 'qualify', ('%d graph breaks, top_k sum %d, moe %s, fb %s'):format(\n"
        "        cand.compile.graph_breaks, k, cand.backend.moe.observed, cand.backend.fallbacks[1])\n"
        "    end\n"
        "  end } } }");
    mcpp_receipt *padded = example("nam56r_padded.json");
    mcpp_receipt *jagged = example("nam56r_jagged_graph_breaks.json");
    CHECK(p && padded && jagged);
    if (p && padded && jagged) {
        mcpp_comparison *c = NULL;
        CHECK_INT_EQ(mcpp_compare(&c, p, padded, jagged), MCPP_OK);
        int status;
        const char *reason = row_reason(c, "breaks", &status);
        CHECK_INT_EQ(status, MCPP_DIM_QUALIFY);
        CHECK_CONTAINS(reason, "3 graph breaks, top_k sum 12, moe jagged, fb moe:padded->jagged");
        CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_QUALIFIED);
        mcpp_comparison_free(c);
        CHECK_INT_EQ(mcpp_compare(&c, p, padded, padded), MCPP_OK);
        reason = row_reason(c, "breaks", &status);
        CHECK_INT_EQ(status, MCPP_DIM_MATCH);
        CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_COMPARABLE);
        mcpp_comparison_free(c);
    }
    mcpp_receipt_free(padded);
    mcpp_receipt_free(jagged);
    mcpp_policy_free(p);
}

TEST(rule_mismatch_and_insufficient_drive_the_verdict)
{
    mcpp_policy *p = load_text("return { rules = {\n"
                               "  function(b, c) if c.status.outcome ~= 'ok' then return 'mismatch', 'not ok' end end,\n"
                               "  function(b, c) if c.routing.top_k == nil then return 'insufficient' end end } }");
    mcpp_receipt *ok = example("nam56r_padded.json");
    mcpp_receipt *partial = example("nam56r_jagged_graph_breaks.json");
    mcpp_receipt *dense = example("nam52_dense.json");
    CHECK(p && ok && partial && dense);
    if (p && ok && partial && dense) {
        CHECK_INT_EQ(verdict_of(p, ok, ok), MCPP_VERDICT_COMPARABLE);
        CHECK_INT_EQ(verdict_of(p, ok, partial), MCPP_VERDICT_NOT_COMPARABLE);
        CHECK_INT_EQ(verdict_of(p, ok, dense), MCPP_VERDICT_INSUFFICIENT);
    }
    mcpp_receipt_free(ok);
    mcpp_receipt_free(partial);
    mcpp_receipt_free(dense);
    mcpp_policy_free(p);
}

/* A clone decides as the original, rules included (shared, alive after the
 * original is freed), and changing the clone leaves the original as it was. */
TEST(clone_shares_rules_and_changes_independently)
{
    mcpp_policy *p = load_text("return { name = 'cloned', gate = { metric = 'tokens_per_s', max_regression = 0.07 },\n"
                               "  rules = { function(b, c) if c.status.outcome ~= 'ok' then return 'mismatch', 'not ok' end end } }");
    mcpp_receipt *ok = example("nam56r_padded.json");
    mcpp_receipt *partial = example("nam56r_jagged_graph_breaks.json");
    mcpp_policy *c = NULL;
    CHECK(p && ok && partial);
    if (!p || !ok || !partial) goto done;
    CHECK_INT_EQ(mcpp_policy_clone(&c, p), MCPP_OK);
    CHECK(c != NULL && c != p);
    if (!c) goto done;
    CHECK_STR_EQ(mcpp_policy_name(c), "cloned");
    CHECK_INT_EQ(mcpp_policy_rule_count(c), 1);
    CHECK_INT_EQ(mcpp_policy_dimension_count(c), mcpp_policy_dimension_count(p));
    CHECK_STR_EQ(mcpp_policy_gate(c)->metric, "tokens_per_s");
    CHECK(mcpp_policy_gate(c)->max_regression == 0.07);
    mcpp_gate_settings g = *mcpp_policy_gate(c);
    g.metric = "peak_memory_gib";
    CHECK_INT_EQ(mcpp_policy_set_gate(c, &g), MCPP_OK);
    CHECK_STR_EQ(mcpp_policy_gate(c)->metric, "peak_memory_gib");
    CHECK_STR_EQ(mcpp_policy_gate(p)->metric, "tokens_per_s");
    CHECK_INT_EQ(verdict_of(c, ok, partial), MCPP_VERDICT_NOT_COMPARABLE);
    mcpp_policy_free(p); /* the clone keeps the rule's sandbox alive */
    p = NULL;
    CHECK_INT_EQ(verdict_of(c, ok, partial), MCPP_VERDICT_NOT_COMPARABLE);
    CHECK_INT_EQ(verdict_of(c, ok, ok), MCPP_VERDICT_COMPARABLE);
    mcpp_policy *multi = load_text("return { gate = { metrics = { { name = 'tokens_per_s', max_regression = 0.02 },\n"
                                   "  { name = 'peak_memory_gib', max_regression = 0.05 } } } }");
    mcpp_policy *multi_copy = NULL;
    CHECK(multi != NULL);
    CHECK_INT_EQ(mcpp_policy_clone(&multi_copy, multi), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_gate_metric_count(multi_copy), 2);
    mcpp_gate_settings second = MCPP_GATE_SETTINGS_INIT;
    CHECK_INT_EQ(mcpp_policy_gate_metric_at(&second, multi_copy, 1), MCPP_OK);
    CHECK_STR_EQ(second.metric, "peak_memory_gib");
    CHECK(second.max_regression == 0.05);
    mcpp_policy_free(multi);
    mcpp_policy_free(multi_copy);
    mcpp_policy *d = NULL; /* NULL: a copy of the default */
    CHECK_INT_EQ(mcpp_policy_clone(&d, NULL), MCPP_OK);
    CHECK_STR_EQ(mcpp_policy_name(d), "default");
    CHECK_INT_EQ(mcpp_policy_clone(NULL, c), MCPP_EARG);
    mcpp_policy_free(d);
done:
    mcpp_policy_free(c);
    mcpp_policy_free(p);
    mcpp_receipt_free(ok);
    mcpp_receipt_free(partial);
}

static int compare_fails_with(const mcpp_policy *p, const mcpp_receipt *r, const char *needle)
{
    mcpp_comparison *c = NULL;
    int rc = mcpp_compare(&c, p, r, r);
    mcpp_comparison_free(c);
    if (rc == MCPP_OK)
        return 0;
    if (!strstr(mcpp_error_last()->message, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", mcpp_error_last()->message, needle);
        return 0;
    }
    return 1;
}

TEST(rule_cannot_write_receipts_loop_forever_or_return_nonsense)
{
    mcpp_receipt *r = example("nam56r_padded.json");
    mcpp_policy *writer = load_text("return { rules = { function(b, c) c.lane.depth = 1 end } }");
    mcpp_policy *looper = load_text("return { rules = { function(b, c) while true do end end } }");
    mcpp_policy *liar = load_text("return { rules = { function(b, c) return 'maybe' end } }");
    mcpp_policy *typo = load_text("return { rules = { function(b, c) return c.lane.dept end } }");
    CHECK(r && writer && looper && liar && typo);
    if (r && writer && looper && liar && typo) {
        CHECK(compare_fails_with(writer, r, "read-only"));
        CHECK(compare_fails_with(looper, r, "instruction budget"));
        CHECK(compare_fails_with(looper, r, "instruction budget")); /* and again: budget is per call */
        CHECK(compare_fails_with(liar, r, "\"maybe\""));
        CHECK(compare_fails_with(typo, r, "lane.dept"));
    }
    mcpp_receipt_free(r);
    mcpp_policy_free(writer);
    mcpp_policy_free(looper);
    mcpp_policy_free(liar);
    mcpp_policy_free(typo);
}

TEST(rule_budget_resets_so_a_heavy_but_finite_rule_passes_every_call)
{
    mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    lim.max_instructions = 200000;
    const char *text = "return { rules = { function(b, c) local n = 0\n"
                       "  for i = 1, 30000 do n = n + i end end } }";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), "heavy.lua", &lim), MCPP_OK);
    mcpp_receipt *r = example("nam56r_padded.json");
    for (int i = 0; p && r && i < 20; i++)
        CHECK_INT_EQ(verdict_of(p, r, r), MCPP_VERDICT_COMPARABLE);
    mcpp_receipt_free(r);
    mcpp_policy_free(p);
}

TEST(rule_that_hit_a_limit_leaves_the_policy_usable_for_the_next_call)
{
    /* One pair bombs (memory, or the budget), the next call passes: the
     * state recovers and each call starts with full bounds. Which bomb runs
     * depends on the receipts, never on earlier calls. */
    const char *text = "return { rules = { function(b, c)\n"
                       "  if b.id ~= c.id then return nil end\n"
                       "  if c.id:find('run1') then local t = {} while true do t[#t + 1] = ('x'):rep(100) .. #t end end\n"
                       "  if c.id:find('run2') then while true do end end\n"
                       "end } }";
    /* Memory and instruction bombs only: no total bound and a generous
     * per-call one, so a slow (sanitizer) build or a loaded machine does not
     * reach the time bounds first. */
    mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    lim.max_total_ms = -1;
    lim.max_call_ms = 60000;
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), "inline.lua", &lim), MCPP_OK);
    mcpp_receipt *r = example("nam56r_padded.json");
    mcpp_receipt *r2 = example("nam56r_padded_run2.json");
    CHECK(p && r && r2);
    if (p && r && r2) {
        CHECK(compare_fails_with(p, r, "memory cap"));
        CHECK_INT_EQ(mcpp_error_last()->code, MCPP_ELIMIT);
        CHECK(compare_fails_with(p, r2, "instruction budget"));
        CHECK_INT_EQ(verdict_of(p, r, r2), MCPP_VERDICT_COMPARABLE);
        CHECK(compare_fails_with(p, r, "memory cap"));
        CHECK_INT_EQ(verdict_of(p, r2, r), MCPP_VERDICT_COMPARABLE);
    }
    mcpp_receipt_free(r2);
    mcpp_receipt_free(r);
    mcpp_policy_free(p);
}

typedef struct thread_arg {
    const mcpp_policy *policy;
    const mcpp_receipt *a, *b;
    int wrong;
} thread_arg;

static void *compare_many(void *arg)
{
    thread_arg *t = arg;
    for (int i = 0; i < 300; i++) {
        mcpp_verdict v;
        if (mcpp_compare_verdict(&v, t->policy, t->a, t->b) != MCPP_OK || v != MCPP_VERDICT_QUALIFIED)
            t->wrong++;
    }
    return NULL;
}

TEST(one_policy_with_rules_is_safe_to_share_between_threads)
{
    mcpp_policy *p = load_text("return { dimensions = { must_match = {'pattern'} }, rules = {\n"
                               "  function(b, c) if c.compile.graph_breaks ~= b.compile.graph_breaks then\n"
                               "    return 'qualify', 'breaks' end end } }");
    mcpp_receipt *a = example("nam56r_padded.json");
    mcpp_receipt *b = example("nam56r_jagged_graph_breaks.json");
    CHECK(p && a && b);
    if (!(p && a && b))
        return;
    pthread_t th[4];
    thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (thread_arg){p, a, b, 0};
        pthread_create(&th[i], NULL, compare_many, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT_EQ(args[i].wrong, 0);
    }
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s POLICY_DIR EXAMPLES_RECEIPTS_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    policy_dir = argv[1];
    examples_dir = argv[2];
    work_dir = argv[3];
    RUN(roles_lists_become_dimensions_with_those_roles);
    RUN(noise_gate_adjacency_and_required_fields_are_compiled);
    RUN(defined_dimension_gets_its_fields_and_role);
    RUN(unknown_top_level_key_is_an_error_naming_key_and_line);
    RUN(unknown_nested_keys_are_errors_with_lines);
    RUN(errors_point_at_the_line_of_the_wrong_value_with_its_path);
    RUN(unknown_dimension_and_field_paths_are_errors_with_lines);
    RUN(nonsensical_thresholds_are_errors);
    RUN(dimension_listed_under_two_roles_in_one_file_is_refused);
    RUN(runtime_error_is_reported_with_file_and_line);
    RUN(pairs_visits_keys_in_sorted_order_so_results_are_deterministic);
    RUN(next_visits_keys_in_sorted_order_in_every_state);
    RUN(tostring_and_format_show_no_addresses_so_rules_are_deterministic);
    RUN(ordinary_string_and_table_functions_work_in_the_sandbox);
    RUN(limits_are_configurable);
    RUN(including_file_takes_precedence_key_by_key);
    RUN(diamond_include_applies_the_shared_file_once_and_the_top_file_names_the_policy);
    RUN(include_cycle_is_refused);
    RUN(include_escaping_its_directory_is_refused);
    RUN(include_of_a_symlink_or_missing_file_is_refused);
    RUN(buffer_without_a_name_cannot_include);
    RUN(shipped_default_policy_compiles_to_the_builtin_default);
    RUN(shipped_default_policy_decides_every_example_and_built_pair_like_the_builtin);
    RUN(strict_policy_requires_the_same_starting_line_and_five_runs);
    RUN(cross_hardware_policy_qualifies_a_different_accelerator);
    RUN(rule_reads_nested_sections_and_dotted_paths_of_both_receipts);
    RUN(rule_mismatch_and_insufficient_drive_the_verdict);
    RUN(clone_shares_rules_and_changes_independently);
    RUN(rule_cannot_write_receipts_loop_forever_or_return_nonsense);
    RUN(rule_budget_resets_so_a_heavy_but_finite_rule_passes_every_call);
    RUN(rule_that_hit_a_limit_leaves_the_policy_usable_for_the_next_call);
    RUN(one_policy_with_rules_is_safe_to_share_between_threads);
    TEST_MAIN_END();
}
