/*
 * policy_lua_load.c — reads a Lua policy file (and its includes) in a sandbox
 * and compiles the table it returns into an mcpp_policy.
 *
 * Files are applied in include order, depth first, each one after the files it
 * includes, so the including file's settings take precedence: a dimension's
 * role is the last one given, noise/gate/adjacency are overridden key by key,
 * required fields and rules accumulate. A file is applied once even when two
 * files include it; a file that includes itself (directly or not) is refused.
 *
 * Every value is read with raw access, so compiling the table runs no policy
 * code; Lua runs only while the chunks execute and, later, in custom rules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "util/c_locale.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/struct_version.h"
#include "policy/lua/lua_engine.h"
#include "policy/lua/policy_lua_lines.h"
#include "policy/policy_internal.h"
#include "mcpp_receipts/policy_lua.h"

enum { MAX_POLICY_BYTES = 1 << 20, MAX_INCLUDE_DEPTH = 16 };

const char mcpp_lua_rules_key = 'r';
const char mcpp_lua_rule_slots_key = 's';
const char mcpp_lua_rule_names_key = 'n';
const char mcpp_lua_rule_files_key = 'f';
const char mcpp_lua_rule_each_key = 'e';
static const char LOADING_KEY = 'l'; /* set of files being loaded (cycle check) */
static const char DONE_KEY = 'd';    /* set of files already applied            */

typedef struct load_ctx {
    mcpp_lua_sandbox *sb;
    const char *top_path; /* file to read, or NULL for a buffer       */
    const char *buf;      /* the buffer, when top_path is NULL         */
    size_t len;
    const char *name;     /* display name (path or the buffer's name)   */
    int includes_allowed; /* a buffer without a name has no directory    */
    mcpp_policy *policy;
    char policy_name[128];
    int64_t version;
    int n_rules;
    /* A failure found by the compiler (not by Lua) is recorded here. */
    int have_error;
    int error_code;
    int error_line;
    char error_file[512];
    char error_text[600];
} load_ctx;

/* The file being applied: its path and source, for messages with lines. */
typedef struct file_view {
    const char *path;
    const char *src;
    size_t len;
    int chunk; /* stack index of the file's compiled chunk */
} file_view;

void mcpp_lua_limits_default(mcpp_lua_limits *out)
{
    if (!out)
        return;
    /* 16 MiB of memory: a real policy needs well under 1 MiB, and a smaller
     * cap makes a memory bomb fail in a fraction of a second even under ASan.
     * 1 s per call stops a hanging rule quickly; 1.5 s in all keeps a whole
     * command (a 20x20 gate calls a rule 400 times) under 2 s of policy time
     * while leaving room for hundreds of thousands of ordinary rule calls. */
    const mcpp_lua_limits defaults = MCPP_LUA_LIMITS_INIT;
    *out = defaults;
}

/* ---- messages with lines ----------------------------------------------------- */

/* Line of the value at the table path `fmt`, ... ("noise.min_runs", "gate.metrics[2]") in
 * the file; when the file does not spell that value (computed, or inherited by a
 * missing key), the line of the nearest enclosing value it spells; 0 for none. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
line_of(const file_view *f, const char *fmt, ...)
{
    char path[256];
    va_list ap;
    va_start(ap, fmt);
    mcpp_vsnprintf_c(path, sizeof path, fmt, ap);
    va_end(ap);
    while (path[0]) {
        int line = mcpp_lua_line_of_path(f->src, f->len, path);
        if (line > 0)
            return line;
        char *dot = strrchr(path, '.'), *bracket = strrchr(path, '[');
        char *cut = dot > bracket ? dot : bracket;
        if (!cut)
            break;
        *cut = '\0';
    }
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static int raise_at(lua_State *L, load_ctx *ctx, int code, const file_view *f, int line,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcpp_vsnprintf_c(ctx->error_text, sizeof ctx->error_text, fmt, ap);
    va_end(ap);
    snprintf(ctx->error_file, sizeof ctx->error_file, "%s", f ? f->path : ctx->name);
    ctx->error_line = line;
    ctx->error_code = code;
    ctx->have_error = 1;
    lua_pushstring(L, ctx->error_text);
    return lua_error(L);
}

/* Raises with the library's last error (from an mcpp_policy_* call). */
static int raise_library_error(lua_State *L, load_ctx *ctx, const file_view *f, int line,
                               const char *what)
{
    const mcpp_error *e = mcpp_error_last();
    return raise_at(L, ctx, MCPP_EPOLICY, f, line, "%s: %s", what,
                    e->message && *e->message ? e->message : mcpp_status_name(e->code));
}

void mcpp_lua_fix_error_position(lua_State *L, const char *path)
{
    if (!path || lua_type(L, -1) != LUA_TSTRING)
        return;
    const char *msg = lua_tostring(L, -1);
    if (strncmp(msg, "...", 3) != 0)
        return;
    const char *colon = strchr(msg + 3, ':');
    if (!colon)
        return;
    size_t tail = (size_t)(colon - (msg + 3));
    size_t plen = strlen(path);
    if (tail == 0 || tail > plen || memcmp(path + plen - tail, msg + 3, tail) != 0)
        return;
    lua_pushstring(L, path);
    lua_pushstring(L, colon);
    lua_concat(L, 2);
    lua_replace(L, -2);
}

/* ---- raw reading helpers ------------------------------------------------------ */

static int raw_field(lua_State *L, int t, const char *key)
{
    lua_pushstring(L, key);
    return lua_rawget(L, t);
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

/* Refuses keys that are not in `known`, naming the first (in byte order), at
 * the line of its value; `path` is the table's ("" for the policy table). */
static void check_keys(lua_State *L, load_ctx *ctx, const file_view *f, int t, const char *const *known,
                       const char *path)
{
    const char *where = *path ? path : "the policy table";
    char first[128] = "";
    int found = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", path), "%s: keys must be names, found a %s key", where,
                     luaL_typename(L, -1));
        const char *k = lua_tostring(L, -1);
        if (!in_list(known, k) && (!found || strcmp(k, first) < 0)) {
            snprintf(first, sizeof first, "%s", k);
            found = 1;
        }
    }
    if (found) {
        char allowed[256] = "";
        for (const char *const *k = known; *k; k++) {
            strncat(allowed, *k, sizeof allowed - strlen(allowed) - 1);
            if (k[1])
                strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
        }
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s%s%s", path, *path ? "." : "", first),
                 "unknown key '%s' in %s (allowed: %s)", first, where, allowed);
    }
}

/* The sequence at `t` as strings; raises unless it is a list of strings. */
static size_t check_string_list(lua_State *L, load_ctx *ctx, const file_view *f, int t, const char *what)
{
    if (lua_type(L, t) != LUA_TTABLE)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", what), "%s must be a list of strings, not a %s", what,
                 luaL_typename(L, t));
    size_t n = (size_t)lua_rawlen(L, t), entries = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        entries++;
    }
    if (entries != n)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", what), "%s must be a list (a sequence), not a map", what);
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, t, (lua_Integer)i) != LUA_TSTRING)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s[%zu]", what, i), "%s[%zu] must be a string, not a %s",
                     what, i, luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    return n;
}

static double get_number(lua_State *L, load_ctx *ctx, const file_view *f, int t, const char *key,
                         const char *where, int *present)
{
    int type = raw_field(L, t, key);
    *present = type != LUA_TNIL;
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    if (type != LUA_TNUMBER)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.%s", where, key), "%s.%s must be a number, not a %s", where,
                 key, luaL_typename(L, -1));
    double v = (double)lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (v != v)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.%s", where, key), "%s.%s is NaN", where, key);
    return v;
}

/* where.key into *out when present; raises for a negative number. */
static void get_nonnegative(lua_State *L, load_ctx *ctx, const file_view *f, int t, const char *key,
                            const char *where, double *out)
{
    int present;
    double v = get_number(L, ctx, f, t, key, where, &present);
    if (!present)
        return;
    if (v < 0)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.%s", where, key), "%s.%s must be >= 0 (got %g)", where, key,
                 v);
    *out = v;
}

/* Refuses a section (`name = {...}`) that is not a table or has a key
 * outside `known`. */
static void check_section(lua_State *L, load_ctx *ctx, const file_view *f, int t, const char *name,
                          const char *const *known)
{
    if (lua_type(L, t) != LUA_TTABLE)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", name), "%s must be a table", name);
    check_keys(L, ctx, f, t, known, name);
}

/* ---- applying one file's table ----------------------------------------------- */

static int find_dimension(const mcpp_policy *p, const char *name)
{
    size_t n = mcpp_policy_dimension_count(p);
    for (size_t i = 0; i < n; i++)
        if (strcmp(mcpp_policy_dimension_name(p, i), name) == 0)
            return (int)i;
    return -1;
}

static int is_default_dimension(const char *name)
{
    size_t n = mcpp_default_dimension_count();
    for (size_t i = 0; i < n; i++)
        if (strcmp(mcpp_default_dimension_name(i), name) == 0)
            return 1;
    return 0;
}

static void apply_define(lua_State *L, load_ctx *ctx, const file_view *f, int def)
{
    if (lua_type(L, def) != LUA_TTABLE)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "dimensions.define"),
                 "dimensions.define must be a table of name = {field paths}");
    /* Sorted, so the dimension order never depends on hash order. */
    lua_newtable(L);
    int names = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, def)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "dimensions.define"),
                     "dimensions.define: dimension names must be strings");
        lua_pushvalue(L, -1);
        lua_rawseti(L, names, ++n);
    }
    for (lua_Integer i = 1; i <= n; i++) {
        for (lua_Integer j = i + 1; j <= n; j++) {
            lua_rawgeti(L, names, i);
            lua_rawgeti(L, names, j);
            if (strcmp(lua_tostring(L, -1), lua_tostring(L, -2)) < 0) {
                lua_rawseti(L, names, i);
                lua_rawseti(L, names, j);
            } else {
                lua_pop(L, 2);
            }
        }
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, names, i);
        const char *dim = lua_tostring(L, -1);
        char what[160];
        snprintf(what, sizeof what, "dimensions.define.%s", dim);
        lua_pushvalue(L, -1);
        lua_rawget(L, def);
        int list = lua_gettop(L);
        size_t nf = check_string_list(L, ctx, f, list, what);
        if (nf == 0)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", what), "%s lists no fields", what);
        const char **fields = lua_newuserdatauv(L, nf * sizeof *fields, 0);
        for (size_t k = 0; k < nf; k++) {
            lua_rawgeti(L, list, (lua_Integer)k + 1);
            fields[k] = lua_tostring(L, -1); /* kept alive by the list */
            lua_pop(L, 1);
        }
        int existing = find_dimension(ctx->policy, dim);
        mcpp_role role = existing >= 0 ? (mcpp_role)mcpp_policy_dimension_role(ctx->policy, (size_t)existing)
                                       : MCPP_ROLE_MUST_MATCH;
        if (mcpp_policy_set_dimension(ctx->policy, dim, fields, nf, role) != MCPP_OK) {
            /* Point at the offending path when one is unknown to the schema. */
            int line = line_of(f, "%s", what);
            for (size_t k = 0; k < nf; k++)
                if (mcpp_schema_field_id(fields[k]) < 0) {
                    line = line_of(f, "%s[%zu]", what, k + 1);
                    break;
                }
            raise_library_error(L, ctx, f, line, what);
        }
        lua_pop(L, 3);
    }
    lua_pop(L, 1);
}

static void apply_dimensions(lua_State *L, load_ctx *ctx, const file_view *f, int dims)
{
    static const char *const KNOWN[] = {"must_match", "qualify", "ignore", "define", NULL};
    static const char *const ROLE_KEYS[] = {"must_match", "qualify", "ignore"};
    static const mcpp_role ROLES[] = {MCPP_ROLE_MUST_MATCH, MCPP_ROLE_QUALIFY, MCPP_ROLE_IGNORE};
    check_section(L, ctx, f, dims, "dimensions", KNOWN);
    if (raw_field(L, dims, "define") != LUA_TNIL)
        apply_define(L, ctx, f, lua_gettop(L));
    lua_pop(L, 1);

    lua_newtable(L); /* name -> role key, to refuse a name listed twice */
    int seen = lua_gettop(L);
    for (int r = 0; r < 3; r++) {
        if (raw_field(L, dims, ROLE_KEYS[r]) == LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        int list = lua_gettop(L);
        char what[64];
        snprintf(what, sizeof what, "dimensions.%s", ROLE_KEYS[r]);
        size_t n = check_string_list(L, ctx, f, list, what);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, list, (lua_Integer)i);
            const char *dim = lua_tostring(L, -1);
            int line = line_of(f, "%s[%zu]", what, i);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, seen) != LUA_TNIL)
                raise_at(L, ctx, MCPP_EPOLICY, f, line, "dimension '%s' is listed under both %s and %s",
                         dim, lua_tostring(L, -1), ROLE_KEYS[r]);
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushstring(L, ROLE_KEYS[r]);
            lua_rawset(L, seen);
            int rc = MCPP_OK;
            if (find_dimension(ctx->policy, dim) >= 0)
                rc = mcpp_policy_set_role(ctx->policy, dim, ROLES[r]);
            else if (is_default_dimension(dim))
                rc = mcpp_policy_set_dimension(ctx->policy, dim, NULL, 0, ROLES[r]);
            else
                raise_at(L, ctx, MCPP_EPOLICY, f, line,
                         "unknown dimension '%s' (not a default dimension and not in dimensions.define)", dim);
            if (rc != MCPP_OK)
                raise_library_error(L, ctx, f, line, what);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void apply_required(lua_State *L, load_ctx *ctx, const file_view *f, int list)
{
    size_t n = check_string_list(L, ctx, f, list, "require_fields");
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i);
        const char *path = lua_tostring(L, -1);
        int dup = 0;
        size_t have = mcpp_policy_required_count(ctx->policy);
        for (size_t k = 0; k < have; k++)
            if (strcmp(mcpp_policy_required_at(ctx->policy, k), path) == 0)
                dup = 1;
        if (!dup && mcpp_policy_add_required_field(ctx->policy, path) != MCPP_OK)
            raise_library_error(L, ctx, f, line_of(f, "require_fields[%zu]", i), "require_fields");
        lua_pop(L, 1);
    }
}

/* noise.suites = { ["pytest-benchmark"] = { run_to_run = 0.05, run_to_run_df = 20 }, ... }:
 * a suite's own figure (mcpp_policy_set_suite_noise); an including file's
 * entry for the same suite replaces the included one's. */
static void apply_suite_noise(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    static const char *const KNOWN[] = {"run_to_run", "run_to_run_df", NULL};
    int type = raw_field(L, t, "suites");
    int suites = lua_gettop(L);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (type != LUA_TTABLE)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "noise.suites"),
                 "noise.suites must be a table of suite = { run_to_run = ... }, not a %s", luaL_typename(L, -1));
    lua_pushnil(L);
    while (lua_next(L, suites)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "noise.suites"),
                     "noise.suites: keys must be suite names (benchmark.suite), found a %s key", luaL_typename(L, -2));
        const char *suite = lua_tostring(L, -2);
        char where[96];
        snprintf(where, sizeof where, "noise.suites[\"%.60s\"]", suite);
        int entry = lua_gettop(L);
        if (lua_type(L, entry) != LUA_TTABLE)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", where), "%s must be a table, not a %s", where,
                     luaL_typename(L, entry));
        check_keys(L, ctx, f, entry, KNOWN, where);
        int present;
        double run_to_run = get_number(L, ctx, f, entry, "run_to_run", where, &present), df = -1;
        if (!present)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", where), "%s needs run_to_run", where);
        get_nonnegative(L, ctx, f, entry, "run_to_run_df", where, &df);
        if (mcpp_policy_set_suite_noise(ctx->policy, suite, run_to_run, df) != MCPP_OK)
            raise_library_error(L, ctx, f, line_of(f, "%s", where), where);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void apply_noise(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    static const char *const KNOWN[] = {"max_rel_spread", "min_runs", "noise_floor", "run_to_run", "run_to_run_df",
                                        "suites", NULL};
    check_section(L, ctx, f, t, "noise", KNOWN);
    mcpp_noise_settings s = *mcpp_policy_noise(ctx->policy);
    get_nonnegative(L, ctx, f, t, "max_rel_spread", "noise", &s.max_rel_spread);
    get_nonnegative(L, ctx, f, t, "noise_floor", "noise", &s.noise_floor);
    get_nonnegative(L, ctx, f, t, "run_to_run", "noise", &s.run_to_run);
    get_nonnegative(L, ctx, f, t, "run_to_run_df", "noise", &s.run_to_run_df);
    int declared = raw_field(L, t, "run_to_run") != LUA_TNIL || mcpp_policy_noise_declared(ctx->policy);
    lua_pop(L, 1);
    int present;
    double v = get_number(L, ctx, f, t, "min_runs", "noise", &present);
    if (present) {
        if (v < 1 || v != (double)(int64_t)v || v > 1e9)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "noise.min_runs"),
                     "noise.min_runs must be a whole number >= 1 (got %g)", v);
        s.min_runs = (int64_t)v;
    }
    if (mcpp_policy_set_noise(ctx->policy, &s) != MCPP_OK)
        raise_library_error(L, ctx, f, line_of(f, "noise"), "noise");
    ctx->policy->noise_declared = declared; /* set_noise marks every figure declared */
    apply_suite_noise(L, ctx, f, t);
}

/* One entry of gate.metrics (the table at stack index `t`) into *spec;
 * allowance and confidence default to the gate section's. The name stays on
 * the Lua stack (popped by the caller) until the list is copied in. */
static void read_gate_metric(lua_State *L, load_ctx *ctx, const file_view *f, int t, size_t i,
                             const mcpp_gate_settings *g, mcpp_gate_metric_spec *spec)
{
    static const char *const KNOWN[] = {"name", "direction", "max_regression", "confidence", NULL};
    char where[48];
    snprintf(where, sizeof where, "gate.metrics[%zu]", i + 1);
    check_section(L, ctx, f, t, where, KNOWN);
    if (raw_field(L, t, "name") != LUA_TSTRING)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.name", where), "%s.name must be a metric name string", where);
    spec->text = (char *)lua_tostring(L, -1); /* copied by mcpp_policy_set_gate_metrics */
    spec->direction = -1;
    int type = raw_field(L, t, "direction");
    if (type != LUA_TNIL) {
        const char *d = type == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(d, "higher") != 0 && strcmp(d, "lower") != 0)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.direction", where),
                     "%s.direction must be \"higher\" or \"lower\" (default: the receipts')", where);
        spec->direction = strcmp(d, "higher") == 0;
    }
    lua_pop(L, 1);
    spec->max_regression = g->max_regression;
    spec->confidence = g->confidence;
    get_nonnegative(L, ctx, f, t, "max_regression", where, &spec->max_regression);
    int present;
    double v = get_number(L, ctx, f, t, "confidence", where, &present);
    if (present && !(v > 0 && v < 1))
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.confidence", where),
                 "%s.confidence must be inside (0, 1) (got %g)", where, v);
    if (present) spec->confidence = v;
}

/* gate.metrics = { {name = ..}, .. } (stack index `t`): the multi-metric gate. */
static void apply_gate_metrics(lua_State *L, load_ctx *ctx, const file_view *f, int t, const mcpp_gate_settings *g)
{
    size_t n = lua_rawlen(L, t);
    if (n == 0 || n > 64)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.metrics"),
                 "gate.metrics must be a list of 1 to 64 tables {name = ..., max_regression = ...}");
    mcpp_gate_metric_spec specs[64];
    int top = lua_gettop(L);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, t, (lua_Integer)i + 1);
        read_gate_metric(L, ctx, f, lua_gettop(L), i, g, &specs[i]); /* leaves the entry and its name */
    }
    if (mcpp_policy_set_gate_metrics(ctx->policy, specs, n) != MCPP_OK)
        raise_library_error(L, ctx, f, line_of(f, "gate.metrics"), "gate");
    lua_settop(L, top);
}

/* gate.aggregate: "geometric_mean" (the default) or "olympic_mean" (MLPerf's score). */
static void apply_gate_aggregate(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    int type = raw_field(L, t, "aggregate");
    if (type != LUA_TNIL) {
        const char *a = type == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int olympic = strcmp(a, "olympic_mean") == 0;
        if (!olympic && strcmp(a, "geometric_mean") != 0)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.aggregate"),
                     "gate.aggregate must be \"geometric_mean\" or \"olympic_mean\"");
        mcpp_policy_set_run_aggregate(ctx->policy,
                                      olympic ? MCPP_AGGREGATE_OLYMPIC_MEAN : MCPP_AGGREGATE_GEOMETRIC_MEAN);
    }
    lua_pop(L, 1);
}

/* gate.min_detectable and gate.on_inconclusive (docs/statistics.md, "Inconclusive"). */
static void apply_gate_inconclusive(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    double bound;
    int fails;
    mcpp_policy_inconclusive(ctx->policy, &bound, &fails);
    get_nonnegative(L, ctx, f, t, "min_detectable", "gate", &bound);
    int type = raw_field(L, t, "on_inconclusive");
    if (type != LUA_TNIL) {
        const char *a = type == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(a, "pass") != 0 && strcmp(a, "fail") != 0)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.on_inconclusive"),
                     "gate.on_inconclusive must be \"pass\" or \"fail\"");
        fails = strcmp(a, "fail") == 0;
    }
    lua_pop(L, 1);
    if (mcpp_policy_set_inconclusive(ctx->policy, bound, fails) != MCPP_OK)
        raise_library_error(L, ctx, f, line_of(f, "gate.min_detectable"), "gate");
}

static void apply_gate(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    static const char *const KNOWN[] = {
        "metric",    "metrics",   "higher_is_better", "max_regression",  "confidence", "allow_point_comparisons",
        "aggregate", "new_lanes", "min_detectable",   "on_inconclusive", NULL};
    check_section(L, ctx, f, t, "gate", KNOWN);
    mcpp_gate_settings s = *mcpp_policy_gate(ctx->policy);
    int type = raw_field(L, t, "metric");
    if (type != LUA_TNIL) {
        if (type != LUA_TSTRING)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.metric"),
                     "gate.metric must be a string: \"primary\", a metric name or a schema path");
        s.metric = lua_tostring(L, -1); /* copied by set_gate below */
        mcpp_metric_ref ref;
        if (mcpp_metric_ref_init(&ref, s.metric, 1) != MCPP_OK)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.metric"), "gate.metric: %s", mcpp_error_last()->message);
    }
    type = raw_field(L, t, "higher_is_better");
    if (type != LUA_TNIL) {
        if (type != LUA_TBOOLEAN)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.higher_is_better"),
                     "gate.higher_is_better must be true or false");
        s.higher_is_better = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    type = raw_field(L, t, "allow_point_comparisons");
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.allow_point_comparisons"),
                 "gate.allow_point_comparisons must be true or false");
    if (type == LUA_TBOOLEAN) mcpp_policy_set_allow_point_comparisons(ctx->policy, lua_toboolean(L, -1));
    lua_pop(L, 1);
    type = raw_field(L, t, "new_lanes");
    if (type != LUA_TNIL) {
        const char *mode = type == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(mode, "pass") != 0 && strcmp(mode, "fail") != 0)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.new_lanes"),
                     "gate.new_lanes must be \"pass\" or \"fail\"");
        mcpp_policy_set_new_lanes_fail(ctx->policy, mode[0] == 'f');
    }
    lua_pop(L, 1);
    apply_gate_aggregate(L, ctx, f, t);
    apply_gate_inconclusive(L, ctx, f, t);
    get_nonnegative(L, ctx, f, t, "max_regression", "gate", &s.max_regression);
    int present;
    double v = get_number(L, ctx, f, t, "confidence", "gate", &present);
    if (present) {
        if (!(v > 0 && v < 1))
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.confidence"),
                     "gate.confidence must be inside (0, 1) (got %g)", v);
        s.confidence = v;
    }
    if (mcpp_policy_set_gate(ctx->policy, &s) != MCPP_OK)
        raise_library_error(L, ctx, f, line_of(f, "gate"), "gate");
    int has_metric = lua_type(L, -1) != LUA_TNIL;
    type = raw_field(L, t, "metrics");
    if (type != LUA_TNIL) {
        if (type != LUA_TTABLE || has_metric)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "gate.metrics"),
                     type != LUA_TTABLE ? "gate.metrics must be a list of tables"
                                        : "gate has both metric and metrics: name one metric, or list them all");
        apply_gate_metrics(L, ctx, f, lua_gettop(L), &s);
    }
    lua_pop(L, 2); /* metrics, metric */
}

static void apply_adjacency(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    static const char *const KNOWN[] = {"width", NULL};
    check_section(L, ctx, f, t, "adjacency", KNOWN);
    int present;
    double v = get_number(L, ctx, f, t, "width", "adjacency", &present);
    if (!present)
        return;
    if (v < 1 || v > 64 || v != (double)(int)v)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "adjacency.width"),
                 "adjacency.width must be a whole number from 1 to 64 (got %g)", v);
    if (mcpp_policy_set_adjacency_width(ctx->policy, (int)v) != MCPP_OK)
        raise_library_error(L, ctx, f, line_of(f, "adjacency.width"), "adjacency");
}

/* Entry `n` of the registry's rule table `key` becomes the value on top of
 * the stack (popped). */
static void set_rule_entry(lua_State *L, const void *key, lua_Integer n)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    lua_insert(L, -2);
    lua_rawseti(L, -2, n);
    lua_pop(L, 1);
}

/* Records rule number `slot` of file `f`: the file's chunk and the slot, so
 * each call can run the chunk afresh and take that rule from the result. */
static void append_rule(lua_State *L, load_ctx *ctx, const file_view *f, int fn, const char *name,
                        lua_Integer slot, int each)
{
    char fallback[600];
    if (!name) {
        lua_Debug ar;
        lua_pushvalue(L, fn);
        lua_getinfo(L, ">S", &ar);
        const char *base = strrchr(f->path, '/');
        snprintf(fallback, sizeof fallback, "%s:%d", base ? base + 1 : f->path, ar.linedefined);
        name = fallback;
    }
    lua_Integer n = ++ctx->n_rules;
    lua_pushvalue(L, f->chunk);
    set_rule_entry(L, &mcpp_lua_rules_key, n);
    lua_pushinteger(L, slot);
    set_rule_entry(L, &mcpp_lua_rule_slots_key, n);
    lua_pushstring(L, name);
    set_rule_entry(L, &mcpp_lua_rule_names_key, n);
    lua_pushstring(L, f->path);
    set_rule_entry(L, &mcpp_lua_rule_files_key, n);
    lua_pushboolean(L, each);
    set_rule_entry(L, &mcpp_lua_rule_each_key, n);
}

static void apply_rules(lua_State *L, load_ctx *ctx, const file_view *f, int t)
{
    static const char *const KNOWN[] = {"name", "fn", "each", NULL};
    if (lua_type(L, t) != LUA_TTABLE)
        raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "rules"), "rules must be a list");
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        int type = lua_rawgeti(L, t, i);
        int entry = lua_gettop(L);
        if (type == LUA_TFUNCTION) {
            append_rule(L, ctx, f, entry, NULL, i, 0);
        } else if (type == LUA_TTABLE) {
            char where[48];
            snprintf(where, sizeof where, "rules[%lld]", (long long)i);
            check_keys(L, ctx, f, entry, KNOWN, where);
            /* fn = function(base, cand) sees the pair; each = function(run, side)
             * sees one side at a time, so the frontier need not check pairs */
            int tf = raw_field(L, entry, "fn"), te = raw_field(L, entry, "each");
            int each = te != LUA_TNIL;
            if ((tf == LUA_TNIL) == (te == LUA_TNIL) || (each ? te : tf) != LUA_TFUNCTION)
                raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s", where),
                         "rules[%lld] needs one function: fn = function(base, cand) or "
                         "each = function(run, side)",
                         (long long)i);
            int fn = lua_gettop(L) - (each ? 0 : 1);
            int nt = raw_field(L, entry, "name");
            if (nt != LUA_TNIL && nt != LUA_TSTRING)
                raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "%s.name", where), "rules[%lld].name must be a string",
                         (long long)i);
            append_rule(L, ctx, f, fn, nt == LUA_TSTRING ? lua_tostring(L, -1) : NULL, i, each);
            lua_pop(L, 3);
        } else {
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "rules[%lld]", (long long)i),
                     "rules[%lld] must be a function, {name = ..., fn = function(base, cand)} or "
                     "{name = ..., each = function(run, side)}",
                     (long long)i);
        }
        lua_pop(L, 1);
    }
}

/* `top` is true for the file that was asked for: only its name and version
 * name the policy (strict.lua including default.lua is called "strict"). */
static void apply_table(lua_State *L, load_ctx *ctx, const file_view *f, int t, int top)
{
    static const char *const KNOWN[] = {"name",     "version", "include", "dimensions", "require_fields",
                                        "noise",    "gate",    "adjacency", "rules",    NULL};
    check_keys(L, ctx, f, t, KNOWN, "");
    int type = raw_field(L, t, "name");
    if (type != LUA_TNIL) {
        if (type != LUA_TSTRING)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "name"), "name must be a string");
        if (top)
            snprintf(ctx->policy_name, sizeof ctx->policy_name, "%s", lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    type = raw_field(L, t, "version");
    if (type != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)
            raise_at(L, ctx, MCPP_EPOLICY, f, line_of(f, "version"), "version must be a whole number >= 0");
        if (top)
            ctx->version = (int64_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    /* Applied in this order, so of two bad sections the first one is reported. */
    static const struct {
        const char *key;
        void (*apply)(lua_State *L, load_ctx *ctx, const file_view *f, int t);
    } SECTIONS[] = {{"dimensions", apply_dimensions}, {"require_fields", apply_required},
                    {"noise", apply_noise},           {"gate", apply_gate},
                    {"adjacency", apply_adjacency},   {"rules", apply_rules}};
    for (size_t i = 0; i < sizeof SECTIONS / sizeof SECTIONS[0]; i++) {
        if (raw_field(L, t, SECTIONS[i].key) != LUA_TNIL)
            SECTIONS[i].apply(L, ctx, f, lua_gettop(L));
        lua_pop(L, 1);
    }
}

/* ---- files and includes --------------------------------------------------------- */

/* Pushes the contents of `path` as a string, or raises. Lua owns the bytes,
 * so nothing leaks when a later step raises. */
static void push_file(lua_State *L, load_ctx *ctx, const file_view *from, int line, const char *path,
                      int regular_only)
{
    struct stat st;
    int rc = regular_only ? lstat(path, &st) : stat(path, &st);
    if (rc != 0)
        raise_at(L, ctx, MCPP_EIO, from, line, "cannot open policy '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        raise_at(L, ctx, from ? MCPP_EPOLICY : MCPP_EIO, from, line,
                 "policy '%s' is not a regular file%s", path, regular_only ? " (symbolic links are not followed)" : "");
    if (st.st_size > MAX_POLICY_BYTES)
        raise_at(L, ctx, MCPP_ELIMIT, from, line, "policy '%s' is larger than %d bytes", path, MAX_POLICY_BYTES);
    luaL_Buffer b;
    char *dst = luaL_buffinitsize(L, &b, (size_t)st.st_size + 1);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        raise_at(L, ctx, MCPP_EIO, from, line, "cannot open policy '%s': %s", path, strerror(errno));
    size_t got = fread(dst, 1, (size_t)st.st_size + 1, fp);
    int failed = ferror(fp);
    fclose(fp);
    if (failed)
        raise_at(L, ctx, MCPP_EIO, from, line, "cannot read policy '%s'", path);
    if (got > (size_t)st.st_size)
        raise_at(L, ctx, MCPP_ELIMIT, from, line, "policy '%s' grew while being read", path);
    luaL_pushresultsize(&b, got);
}

/* Pushes the path `include = {name}` resolves to (policy_search.c: this
 * file's directory, the installed policies, MCPP_POLICY_PATH), or raises. */
static const char *push_include_path(lua_State *L, load_ctx *ctx, const file_view *f, int line, const char *name)
{
    const char *slash = strrchr(f->path, '/');
    if (slash)
        lua_pushlstring(L, f->path, (size_t)(slash - f->path + 1));
    else
        lua_pushliteral(L, ".");
    char *found = NULL;
    int rc = mcpp_policy_find(&found, name, lua_tostring(L, -1));
    lua_pop(L, 1);
    if (rc != MCPP_OK)
        raise_at(L, ctx, rc == MCPP_ENOTFOUND ? MCPP_EIO : rc, f, line, "include: %s", mcpp_error_last()->message);
    lua_pushstring(L, found);
    mcpp_free(found);
    return lua_tostring(L, -1);
}

static void load_file(lua_State *L, load_ctx *ctx, const char *path, int src_index, int depth);

static void load_includes(lua_State *L, load_ctx *ctx, const file_view *f, int t, int depth)
{
    int type = raw_field(L, t, "include");
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    int inc = lua_gettop(L);
    if (type == LUA_TSTRING) { /* include = "base.lua" is a list of one */
        lua_newtable(L);
        lua_pushvalue(L, inc);
        lua_rawseti(L, -2, 1);
        lua_replace(L, inc);
    }
    size_t n = check_string_list(L, ctx, f, inc, "include");
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, inc, (lua_Integer)i);
        const char *name = lua_tostring(L, -1);
        int line = line_of(f, "include[%zu]", i);
        if (!mcpp_policy_name_is_plain(name))
            raise_at(L, ctx, MCPP_EPOLICY, f, line,
                     "include '%s' refused: includes name a file next to this one "
                     "(letters, digits, '_', '-', '.'; no '/', no '..')", name);
        if (!ctx->includes_allowed)
            raise_at(L, ctx, MCPP_EPOLICY, f, line, "include '%s' needs a policy file name", name);
        const char *full = push_include_path(L, ctx, f, line, name);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &LOADING_KEY);
        lua_pushvalue(L, -2);
        if (lua_rawget(L, -2) != LUA_TNIL)
            raise_at(L, ctx, MCPP_EPOLICY, f, line, "include cycle: '%s' is already being loaded", full);
        lua_pop(L, 2);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &DONE_KEY);
        lua_pushvalue(L, -2);
        int done = lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 2);
        if (!done) {
            if (depth + 1 > MAX_INCLUDE_DEPTH)
                raise_at(L, ctx, MCPP_ELIMIT, f, line, "includes nest deeper than %d files", MAX_INCLUDE_DEPTH);
            push_file(L, ctx, f, line, full, 1);
            load_file(L, ctx, full, lua_gettop(L), depth + 1);
            lua_pop(L, 1);
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

static void mark(lua_State *L, const void *key, const char *path, int on)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    lua_pushstring(L, path);
    if (on)
        lua_pushboolean(L, 1);
    else
        lua_pushnil(L);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* Runs one file (source at src_index) and applies it after its includes. */
static void load_file(lua_State *L, load_ctx *ctx, const char *path, int src_index, int depth)
{
    file_view f;
    f.path = path;
    f.src = lua_tolstring(L, src_index, &f.len);
    /* the rules' source, for the policy's digest (policy_digest.c) */
    ctx->policy->rules_source = mcpp_fnv1a(f.src, f.len, ctx->policy->rules_source ? ctx->policy->rules_source
                                                                                  : MCPP_FNV_OFFSET);
    lua_pushfstring(L, "@%s", path);
    int status = luaL_loadbufferx(L, f.src, f.len, lua_tostring(L, -1), "t");
    lua_remove(L, -2);
    if (status != LUA_OK) {
        mcpp_lua_fix_error_position(L, path);
        lua_error(L);
    }
    f.chunk = lua_gettop(L); /* kept: rules run a fresh copy of the file */
    lua_pushvalue(L, f.chunk);
    mcpp_lua_sandbox_push_env(L);
    lua_setupvalue(L, -2, 1); /* a main chunk's only upvalue is its _ENV */
    status = lua_pcall(L, 0, 1, 0);
    if (status != LUA_OK) {
        mcpp_lua_fix_error_position(L, path);
        lua_error(L);
    }
    if (mcpp_lua_sandbox_limit_hit(ctx->sb)) /* the chunk swallowed the limit error */
        luaL_error(L, "limit hit");
    if (lua_type(L, -1) != LUA_TTABLE)
        raise_at(L, ctx, MCPP_EPOLICY, &f, 0, "a policy file must return a table (this one returned %s)",
                 luaL_typename(L, -1));
    int t = lua_gettop(L);
    mark(L, &LOADING_KEY, path, 1);
    load_includes(L, ctx, &f, t, depth);
    apply_table(L, ctx, &f, t, depth == 0);
    mark(L, &LOADING_KEY, path, 0);
    mark(L, &DONE_KEY, path, 1);
    lua_pop(L, 2);
}

static int load_main(lua_State *L)
{
    load_ctx *ctx = lua_touserdata(L, 1);
    /* A fresh table in the registry under each key the loader and the rules use. */
    static const char *const KEYS[] = {&LOADING_KEY,
                                       &DONE_KEY,
                                       &mcpp_lua_rules_key,
                                       &mcpp_lua_rule_slots_key,
                                       &mcpp_lua_rule_names_key,
                                       &mcpp_lua_rule_files_key,
                                       &mcpp_lua_rule_each_key};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
        lua_newtable(L);
        lua_rawsetp(L, LUA_REGISTRYINDEX, KEYS[i]);
    }
    if (ctx->top_path)
        push_file(L, ctx, NULL, 0, ctx->top_path, 0);
    else
        lua_pushlstring(L, ctx->buf, ctx->len);
    load_file(L, ctx, ctx->name, lua_gettop(L), 0);
    if (ctx->n_rules > 0)
        mcpp_lua_views_install(L);
    /* Loading state is not needed by rules; let it be collected. */
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &LOADING_KEY);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &DONE_KEY);
    return 0;
}

/* Default policy name: the file's base name without ".lua". */
static void default_name(char *out, size_t cap, const char *name)
{
    const char *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : (name ? name : "policy");
    snprintf(out, cap, "%s", base);
    size_t n = strlen(out);
    if (n > 4 && strcmp(out + n - 4, ".lua") == 0)
        out[n - 4] = '\0';
}

static int load_policy(mcpp_policy **out, const char *path, const char *buf, size_t len,
                       const char *name, const mcpp_lua_limits *limits)
{
    if (limits && mcpp_struct_version_check(limits->version, MCPP_LUA_LIMITS_VERSION, "mcpp_lua_limits") != MCPP_OK)
        return MCPP_EARG;
    load_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.top_path = path;
    ctx.buf = buf;
    ctx.len = len;
    ctx.name = path ? path : (name ? name : "policy");
    ctx.version = 1;
    ctx.includes_allowed = path != NULL || name != NULL;
    default_name(ctx.policy_name, sizeof ctx.policy_name, ctx.name);

    mcpp_lua_engine *engine = calloc(1, sizeof *engine);
    if (!engine)
        return mcpp_error_nomem();
    int rc = mcpp_lua_sandbox_open(&engine->sb, limits);
    if (rc != MCPP_OK) {
        free(engine);
        return rc;
    }
    /* from here the sandbox and the policy being loaded are held until fail: or success */
    ctx.sb = &engine->sb;
    rc = mcpp_policy_new(&ctx.policy, ctx.policy_name);
    if (rc != MCPP_OK)
        goto fail;
    lua_State *L = engine->sb.L;
    lua_pushcfunction(L, load_main);
    lua_pushlightuserdata(L, &ctx);
    mcpp_lua_sandbox_begin_run(&engine->sb, NULL);
    int status = lua_pcall(L, 1, 0, 0);
    mcpp_lua_sandbox_end_run(&engine->sb);
    if (status != LUA_OK) {
        if (ctx.have_error && !mcpp_lua_sandbox_limit_hit(&engine->sb) && status != LUA_ERRMEM) {
            lua_pop(L, 1);
            rc = mcpp_error_set(ctx.error_code, ctx.error_code == MCPP_EIO ? "io" : ctx.error_code == MCPP_ELIMIT ? "policy_limit" : "policy",
                                ctx.error_file, NULL, ctx.error_line, 0, "%s", ctx.error_text);
        } else {
            rc = mcpp_lua_sandbox_error(&engine->sb, status, ctx.name);
        }
    } else if (mcpp_policy_set_name(ctx.policy, ctx.policy_name, ctx.version) != MCPP_OK) {
        rc = mcpp_error_last()->code ? mcpp_error_last()->code : MCPP_EINTERNAL;
    }
    lua_settop(L, 0);
    if (rc != MCPP_OK)
        goto fail;
    if (ctx.n_rules == 0) { /* no rule runs later: the engine is not kept */
        mcpp_lua_sandbox_close(&engine->sb);
        free(engine);
        *out = ctx.policy;
        return MCPP_OK;
    }
    mcpp_lua_sandbox_settle(&engine->sb);
    if (pthread_mutex_init(&engine->mutex, NULL) != 0) {
        rc = mcpp_error_set(MCPP_EINTERNAL, "internal", NULL, NULL, 0, 0, "cannot create a mutex");
        goto fail;
    }
    engine->refs = 1; /* the loader's own reference, dropped below */
    rc = mcpp_lua_rules_register(ctx.policy, engine, ctx.n_rules);
    if (rc != MCPP_OK) {
        mcpp_policy_free(ctx.policy); /* drops the rules' references */
        mcpp_lua_engine_release(engine);
        return rc;
    }
    mcpp_lua_engine_release(engine);
    *out = ctx.policy;
    return MCPP_OK;
fail:
    mcpp_policy_free(ctx.policy);
    mcpp_lua_sandbox_close(&engine->sb);
    free(engine);
    return rc;
}

int mcpp_policy_load_lua_file(mcpp_policy **out, const char *path, const mcpp_lua_limits *limits)
{
    if (!out)
        return mcpp_error_set(MCPP_EARG, "argument", NULL, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!path || !*path)
        return mcpp_error_set(MCPP_EARG, "argument", NULL, NULL, 0, 0, "no policy path given");
    return load_policy(out, path, NULL, 0, NULL, limits);
}

int mcpp_policy_load_lua_buffer(mcpp_policy **out, const char *buf, size_t len, const char *name,
                                const mcpp_lua_limits *limits)
{
    if (!out)
        return mcpp_error_set(MCPP_EARG, "argument", NULL, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!buf && len > 0)
        return mcpp_error_set(MCPP_EARG, "argument", name, NULL, 0, 0, "buffer is NULL");
    if (len > MAX_POLICY_BYTES)
        return mcpp_error_set(MCPP_ELIMIT, "limit", name, NULL, 0, 0, "policy is larger than %d bytes",
                              MAX_POLICY_BYTES);
    return load_policy(out, NULL, buf ? buf : "", len, name, limits);
}
