/*
 * lua_sandbox.c — a lua_State that hostile policy files cannot escape, hang or
 * grow without bound.
 *
 * Bounds, and why each is where it is:
 *   - memory: our own lua_Alloc counts every byte and refuses past the cap, so
 *     `s = s .. s` or an ever-growing table ends in a memory error;
 *   - instructions: a count hook every HOOK_PERIOD instructions charges the
 *     budget. Once it is spent the hook raises on every instruction of every
 *     thread that runs, so a `pcall` around the loop cannot swallow it, and
 *     the flag it sets is checked after the run in case the chunk caught it
 *     anyway. New coroutines inherit the hook from the thread that creates
 *     them (lua_newthread copies it), so coroutines are bounded too;
 *   - wall clock: the same hook, every guarded C function and every large
 *     allocation compare CLOCK_MONOTONIC with the run's deadline (the
 *     per-call limit, or what is left of the policy's total, if sooner);
 *   - C functions that loop without running Lua (and so without the hook):
 *     every function of string, table and utf8 is wrapped (lua_guards.c). The wrapper
 *     charges the bytes/elements it is given to the instruction budget and
 *     checks the clock before the real function runs, so a loop of cheap-
 *     looking calls is bounded; the ones whose single call could run long
 *     have a cap on their worst case: pattern matching (a cost estimate),
 *     plain find (done with memmem, linear), string.rep (the memory cap),
 *     table.sort (comparisons x string length), table.move and any length
 *     taken through __len (element counts);
 *   - environment: chunks get a fresh, empty _ENV that reads through to a
 *     shared whitelist whose library tables are read-only proxies; io, os,
 *     debug, package, require, load*, dofile, collectgarbage, print, rawget,
 *     rawset, string.dump and math.random are simply not there. The string
 *     metatable is protected with __metatable and its __index is the reduced
 *     string table, so ("").dump is nil too;
 *   - determinism: no clock, no random, and `pairs` and `next` visit keys in
 *     sorted order (numbers, then strings, then booleans) instead of hash
 *     order; iterating a table keyed by tables or functions is refused;
 *   - xpcall runs its message handler after unwinding: an error raised by the
 *     hook leaves hooks off until the enclosing pcall returns, and a handler
 *     run at the error point could loop unbounded in that window;
 *   - setmetatable refuses __gc: finalizers run with hooks off.
 * C-stack overflow and deep recursion are errors by Lua's own LUAI limits.
 */
#include "policy/lua/lua_sandbox.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "policy/lua/lua_guards.h"
#include "util/c_locale.h"
#include "util/error_internal.h"

enum { HOOK_PERIOD = 1000 };

/* Bytes (or elements) of C-library work charged as one instruction. */
#define WORK_PER_INSTRUCTION 16.0

/* Allocations at least this large check the clock (a loop of `s .. "x"`
 * on a large s copies megabytes per instruction). */
#define LARGE_ALLOCATION ((size_t)1 << 16)

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char ENV_META_KEY = 'e'; /* registry key: metatable of every _ENV */

mcpp_lua_sandbox *mcpp_lua_sandbox_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (mcpp_lua_sandbox *)ud;
}

/* ---- memory cap ---------------------------------------------------------- */

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mcpp_lua_sandbox *sb = ud;
    size_t old = ptr ? osize : 0; /* for new blocks osize is a type tag, not a size */
    if (nsize == 0) {
        free(ptr);
        sb->mem_used -= old;
        return NULL;
    }
    if (nsize > old && (nsize - old > sb->mem_cap || sb->mem_used + (nsize - old) > sb->mem_cap)) {
        sb->out_of_memory = 1;
        return NULL;
    }
    if (nsize - old >= LARGE_ALLOCATION && nsize > old && sb->run_start_ns > 0 &&
        monotonic_ns() > sb->deadline_ns) {
        sb->out_of_time = 1; /* a memory error now; the hook raises the limit next */
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p)
        return NULL;
    sb->mem_used = sb->mem_used - old + nsize;
    return p;
}

/* ---- instruction budget -------------------------------------------------- */

static void record_limit_place(mcpp_lua_sandbox *sb, lua_State *L, lua_Debug *ar)
{
    if (sb->limit_line > 0 || !lua_getinfo(L, "Sl", ar) || ar->currentline <= 0)
        return;
    const char *src = ar->source && ar->source[0] == '@' ? ar->source + 1 : ar->short_src;
    snprintf(sb->limit_file, sizeof sb->limit_file, "%s", src);
    sb->limit_line = ar->currentline;
}

static void sandbox_hook(lua_State *L, lua_Debug *ar);

/* Raises the limit that was hit. From now on every instruction of this
 * thread and of the main thread raises too: whatever pcall catches, the next
 * instruction outside it fails. */
static int raise_limit(lua_State *L, mcpp_lua_sandbox *sb, lua_Debug *ar)
{
    lua_Debug caller;
    if (!ar && lua_getstack(L, 1, &caller))
        ar = &caller;
    if (ar)
        record_limit_place(sb, L, ar);
    lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, 1);
    if (L != sb->L)
        lua_sethook(sb->L, sandbox_hook, LUA_MASKCOUNT, 1);
    return luaL_error(L, sb->out_of_time     ? "time limit exceeded"
                         : sb->out_of_memory ? "memory cap exceeded"
                                             : "instruction budget exhausted");
}

static void sandbox_hook(lua_State *L, lua_Debug *ar)
{
    mcpp_lua_sandbox *sb = mcpp_lua_sandbox_of(L);
    sb->executed += HOOK_PERIOD;
    if (sb->executed > sb->budget)
        sb->out_of_budget = 1;
    else if (monotonic_ns() > sb->deadline_ns)
        sb->out_of_time = 1;
    if (mcpp_lua_sandbox_limit_hit(sb))
        raise_limit(L, sb, ar);
}

void mcpp_lua_sandbox_charge(lua_State *L, double work)
{
    mcpp_lua_sandbox *sb = mcpp_lua_sandbox_of(L);
    double units = work / WORK_PER_INSTRUCTION;
    if (units > (double)(sb->budget - sb->executed))
        sb->out_of_budget = 1;
    else
        sb->executed += (int64_t)units;
    if (!sb->out_of_budget && monotonic_ns() > sb->deadline_ns)
        sb->out_of_time = 1;
    if (mcpp_lua_sandbox_limit_hit(sb))
        raise_limit(L, sb, NULL);
}

void mcpp_lua_sandbox_begin_run(mcpp_lua_sandbox *sb, const char *rule_name)
{
    sb->executed = 0;
    sb->out_of_budget = 0;
    sb->out_of_memory = 0;
    sb->out_of_time = 0;
    sb->limit_line = 0;
    sb->limit_file[0] = '\0';
    sb->rule_name = rule_name;
    sb->run_start_ns = monotonic_ns();
    mcpp_c_locale_enter(&sb->locale);
    sb->deadline_ns = sb->run_start_ns + sb->call_ns;
    sb->deadline_is_total = 0;
    if (sb->total_ns >= 0 && sb->total_ns - sb->spent_ns < sb->call_ns) {
        sb->deadline_ns = sb->run_start_ns + (sb->total_ns - sb->spent_ns);
        sb->deadline_is_total = 1;
    }
    lua_sethook(sb->L, sandbox_hook, LUA_MASKCOUNT, HOOK_PERIOD);
}

void mcpp_lua_sandbox_end_run(mcpp_lua_sandbox *sb)
{
    if (sb->run_start_ns > 0)
        sb->spent_ns += monotonic_ns() - sb->run_start_ns;
    sb->run_start_ns = 0;
    mcpp_c_locale_leave(&sb->locale);
}

void mcpp_lua_sandbox_settle(mcpp_lua_sandbox *sb)
{
    if (sb->settled_bytes == 0 || sb->mem_used > sb->settled_bytes + ((size_t)1 << 20)) {
        lua_gc(sb->L, LUA_GCCOLLECT); /* frees only: no __gc runs in a sandbox */
        if (sb->settled_bytes == 0)
            sb->settled_bytes = sb->mem_used;
    }
}

void mcpp_lua_sandbox_reset_total(mcpp_lua_sandbox *sb)
{
    sb->spent_ns = 0;
}

int mcpp_lua_sandbox_limit_hit(const mcpp_lua_sandbox *sb)
{
    return sb->out_of_budget || sb->out_of_memory || sb->out_of_time;
}

/* setmetatable for plain tables only: no protected metatables changed, no
 * __gc (finalizers would run at odd times, e.g. while the state closes). */
static int sandbox_setmetatable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    if (t == LUA_TTABLE) {
        if (lua_getfield(L, 2, "__gc") != LUA_TNIL)
            return luaL_error(L, "__gc metamethods are not allowed in policies");
        lua_pop(L, 1);
    }
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* Library functions written in Lua, run in the sandbox:
 *   pairs, next  visit keys in a fixed order (numbers, strings, booleans),
 *           so a policy's result never depends on hash seeds (string keys'
 *           order changed between processes: a verdict built from next()
 *           flipped in 4-5 of 20 runs); a table with keys of another type
 *           (tables, functions: ordered by address) is refused;
 *   xpcall  runs the message handler after pcall has unwound instead of at the
 *           point of the error: an error raised by the count hook leaves hooks
 *           disabled until the enclosing pcall returns, and a handler running
 *           in that window could loop with no budget at all;
 *   coroutine.wrap  built on create/resume and the guarded close, because the
 *           C version closes a failed coroutine's __close handlers itself,
 *           with that coroutine's hooks still off. */
static const char PRELUDE[] =
    "local next, type, sort, rawget, rawequal, error, pcall, pack, unpack, create, resume, close, status = ...\n"
    "local rank = { number = 1, string = 2, boolean = 3 }\n"
    "local function before(a, b)\n"
    "  local ta, tb = type(a), type(b)\n"
    "  if ta ~= tb then return (rank[ta] or 4) < (rank[tb] or 4) end\n"
    "  if ta == 'number' or ta == 'string' then return a < b end\n"
    "  if ta == 'boolean' then return b and not a end\n"
    "  return false\n"
    "end\n"
    "local function sorted_keys(t, who)\n"
    "  if type(t) ~= 'table' then\n"
    "    error(\"bad argument #1 to '\" .. who .. \"' (table expected, got \" .. type(t) .. ')', 3)\n"
    "  end\n"
    "  local keys, n = {}, 0\n"
    "  for k in next, t do\n"
    "    if not rank[type(k)] then\n"
    "      error(who .. ': a table with ' .. type(k) .. ' keys has no fixed order (it changes between runs); '\n"
    "            .. 'a verdict must not depend on it: key the table by numbers or strings', 3)\n"
    "    end\n"
    "    n = n + 1; keys[n] = k\n"
    "  end\n"
    "  sort(keys, before)\n"
    "  return keys, n\n"
    "end\n"
    "local function pairs(t)\n"
    "  local keys = sorted_keys(t, 'pairs')\n"
    "  local i = 0\n"
    "  return function()\n"
    "    i = i + 1\n"
    "    local k = keys[i]\n"
    "    if k ~= nil then return k, rawget(t, k) end\n"
    "  end, t, nil\n"
    "end\n"
    "local function ordered_next(t, k)\n"
    "  local keys, n = sorted_keys(t, 'next')\n"
    "  local i = 0\n"
    "  if k ~= nil then\n"
    "    repeat i = i + 1 until i > n or rawequal(keys[i], k)\n"
    "    if i > n then error(\"invalid key to 'next'\", 2) end\n"
    "  end\n"
    "  local after = keys[i + 1]\n"
    "  if after ~= nil then return after, rawget(t, after) end\n"
    "  return nil\n"
    "end\n"
    "local function xpcall(f, handler, ...)\n"
    "  local r = pack(pcall(f, ...))\n"
    "  if r[1] then return unpack(r, 1, r.n) end\n"
    "  return false, handler(r[2])\n"
    "end\n"
    "local function wrap(f)\n"
    "  local co = create(f)\n"
    "  return function(...)\n"
    "    local r = pack(resume(co, ...))\n"
    "    if r[1] then return unpack(r, 2, r.n) end\n"
    "    if status(co) == 'dead' then pcall(close, co) end\n"
    "    if type(r[2]) == 'string' then error(r[2], 2) end\n"
    "    error(r[2], 0)\n"
    "  end\n"
    "end\n"
    "return pairs, xpcall, wrap, ordered_next\n";

static void copy_field(lua_State *L, int from, int to, const char *name)
{
    lua_getfield(L, from, name);
    lua_setfield(L, to, name);
}

/* Copies the fields of the library table at the top into a new table
 * (except `skip`, a NULL-terminated list), leaving the copy on top. */
static void copy_library(lua_State *L, const char *const *skip)
{
    int src = lua_gettop(L);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, src)) {
        int skipped = 0;
        if (skip && lua_type(L, -2) == LUA_TSTRING)
            for (const char *const *s = skip; *s; s++)
                if (strcmp(lua_tostring(L, -2), *s) == 0)
                    skipped = 1;
        if (skipped) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_settable(L, src + 1);
    }
    lua_remove(L, src);
}

static int refuse_library_write(lua_State *L)
{
    return luaL_error(L, "library tables are read-only in policies (use a local table)");
}

/* Replaces every library table of the template at `tmpl` by an empty proxy
 * that reads through to it and refuses writes: the template is shared by
 * every environment, so nothing a chunk does can reach another run. */
static void protect_libraries(lua_State *L, int tmpl)
{
    lua_pushnil(L);
    while (lua_next(L, tmpl)) {
        int lib = lua_gettop(L);
        if (lua_type(L, lib) == LUA_TTABLE) {
            lua_newtable(L); /* the proxy */
            lua_createtable(L, 0, 3);
            lua_pushvalue(L, lib);
            lua_setfield(L, -2, "__index");
            lua_pushcfunction(L, refuse_library_write);
            lua_setfield(L, -2, "__newindex");
            lua_pushliteral(L, "library tables are protected");
            lua_setfield(L, -2, "__metatable");
            lua_setmetatable(L, lib + 1);
            lua_pushvalue(L, lib - 1);
            lua_insert(L, -2);
            lua_rawset(L, tmpl); /* replacing an existing key during lua_next is allowed */
        }
        lua_pop(L, 1);
    }
}

/* Runs in protected mode: opens the allowed libraries and builds the template. */
static int sandbox_setup(lua_State *L)
{
    static const char *const BASE_ALLOWED[] = {
        "assert", "error",  "ipairs",   "next",   "pcall",  "rawequal", "rawlen",
        "select", "tonumber", "type", "getmetatable", "_VERSION", NULL};
    static const char *const MATH_SKIP[] = {"random", "randomseed", NULL};

    luaL_requiref(L, LUA_GNAME, luaopen_base, 0);
    int g = lua_gettop(L);
    lua_newtable(L);
    int tmpl = lua_gettop(L);
    for (const char *const *n = BASE_ALLOWED; *n; n++)
        copy_field(L, g, tmpl, *n);
    lua_pushcfunction(L, sandbox_setmetatable);
    lua_setfield(L, tmpl, "setmetatable");
    lua_pushcfunction(L, mcpp_lua_sandbox_tostring); /* no addresses: lua_guards.c */
    lua_setfield(L, tmpl, "tostring");

    /* the prelude's arguments (its first line names them), from the base, table
     * and coroutine libraries, taken before any script can change them */
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 0);
    mcpp_lua_guard_table_library(L);
    int tab = lua_gettop(L);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 0);
    mcpp_lua_guard_coroutine_library(L);
    int co = lua_gettop(L);
    const struct {
        int lib;
        const char *name;
    } args[] = {{g, "next"},    {g, "type"},   {tab, "sort"}, {g, "rawget"},   {g, "rawequal"},
                {g, "error"},   {g, "pcall"},  {tab, "pack"}, {tab, "unpack"}, {co, "create"},
                {co, "resume"}, {co, "close"}, {co, "status"}};
    if (luaL_loadbufferx(L, PRELUDE, sizeof PRELUDE - 1, "=sandbox", "t") != LUA_OK)
        return lua_error(L);
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        lua_getfield(L, args[i].lib, args[i].name);
    lua_call(L, (int)(sizeof args / sizeof args[0]), 4);
    lua_remove(L, co);
    lua_remove(L, tab);
    lua_setfield(L, tmpl, "next"); /* in pairs' order, not the hash's */
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 0);
    lua_insert(L, -2);
    lua_setfield(L, -2, "wrap"); /* the coroutine library's own table */
    lua_pop(L, 1);
    lua_setfield(L, tmpl, "xpcall");
    lua_setfield(L, tmpl, "pairs");

    /* string: reduce the real library table, which is also the string
     * metatable's __index, then protect that metatable. */
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 0);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    mcpp_lua_guard_string_library(L);
    lua_setfield(L, tmpl, "string");
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushliteral(L, "the string metatable is protected");
        lua_setfield(L, -2, "__metatable");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 0);
    lua_setfield(L, tmpl, "table");
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 0);
    copy_library(L, MATH_SKIP);
    lua_setfield(L, tmpl, "math");
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 0);
    mcpp_lua_guard_utf8_library(L);
    lua_setfield(L, tmpl, "utf8");
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 0);
    lua_setfield(L, tmpl, "coroutine");

    protect_libraries(L, tmpl);
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, tmpl);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "the policy environment is protected");
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ENV_META_KEY);
    return 0;
}

void mcpp_lua_sandbox_push_env(lua_State *L)
{
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -1);
    lua_setfield(L, -2, "_G");
    lua_rawgetp(L, LUA_REGISTRYINDEX, &ENV_META_KEY);
    lua_setmetatable(L, -2);
}

/* ---- open / close ------------------------------------------------------------ */

int mcpp_lua_sandbox_open(mcpp_lua_sandbox *sb, const mcpp_lua_limits *limits)
{
    mcpp_lua_limits defaults;
    mcpp_lua_limits_default(&defaults);
    memset(sb, 0, sizeof *sb);
    sb->budget = limits && limits->max_instructions > 0 ? limits->max_instructions
                                                         : defaults.max_instructions;
    sb->mem_cap = limits && limits->max_memory_bytes > 0 ? limits->max_memory_bytes
                                                          : defaults.max_memory_bytes;
    int64_t call_ms = limits && limits->max_call_ms > 0 ? limits->max_call_ms : defaults.max_call_ms;
    int64_t total_ms = limits && limits->max_total_ms != 0 ? limits->max_total_ms : defaults.max_total_ms;
    sb->call_ns = call_ms * 1000000;
    sb->total_ns = total_ms < 0 ? -1 : total_ms * 1000000;
    sb->L = lua_newstate(sandbox_alloc, sb);
    if (!sb->L)
        return mcpp_error_set(MCPP_ELIMIT, "limit", NULL, NULL, 0, 0,
                              "cannot open a Lua state within the memory cap of %zu bytes",
                              sb->mem_cap);
    lua_pushcfunction(sb->L, sandbox_setup);
    mcpp_lua_sandbox_begin_run(sb, NULL);
    int status = lua_pcall(sb->L, 0, 0, 0);
    mcpp_lua_sandbox_end_run(sb);
    if (status != LUA_OK) {
        int rc = mcpp_lua_sandbox_error(sb, LUA_ERRRUN, NULL);
        mcpp_lua_sandbox_close(sb);
        return rc;
    }
    return MCPP_OK;
}

void mcpp_lua_sandbox_close(mcpp_lua_sandbox *sb)
{
    if (!sb || !sb->L)
        return;
    /* Pending __close/__gc code (if any slipped in) must not run long. */
    sb->out_of_budget = 1;
    lua_sethook(sb->L, sandbox_hook, LUA_MASKCOUNT, 1);
    lua_close(sb->L);
    sb->L = NULL;
}

/* ---- errors ---------------------------------------------------------------- */

/* Splits "FILE:LINE: TEXT" (Lua's position prefix); returns 0 when absent. */
static int split_position(const char *msg, char *file, size_t file_cap, int *line,
                          const char **text)
{
    for (const char *p = msg; (p = strchr(p, ':')) != NULL; p++) {
        const char *q = p + 1;
        long n = 0;
        while (*q >= '0' && *q <= '9' && n < 100000000)
            n = n * 10 + (*q++ - '0');
        if (q > p + 1 && q[0] == ':' && q[1] == ' ') {
            size_t flen = (size_t)(p - msg);
            if (flen >= file_cap)
                flen = file_cap - 1;
            memcpy(file, msg, flen);
            file[flen] = '\0';
            *line = (int)n;
            *text = q + 2;
            return 1;
        }
    }
    return 0;
}

/* Skips every leading "FILE:LINE: " (FILE without spaces): the positions
 * that each coroutine or error() level put in front of the real message. */
static const char *skip_positions(const char *msg)
{
    for (;;) {
        const char *space = strchr(msg, ' ');
        if (!space || space - msg < 4 || space[-1] != ':')
            return msg;
        const char *d = space - 2; /* the token must end in ":DIGITS:" */
        while (d > msg && *d >= '0' && *d <= '9')
            d--;
        if (d == space - 2 || d == msg || *d != ':')
            return msg;
        msg = space + 1;
    }
}

/* Copies `src` into `dst`; when it does not fit, cuts at the last space and
 * says so, never in the middle of a word. */
static void copy_at_word(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n < cap) {
        memcpy(dst, src, n + 1);
        return;
    }
    static const char MORE[] = " [...]";
    size_t keep = cap - sizeof MORE;
    while (keep > cap / 2 && src[keep] != ' ')
        keep--;
    while (keep > 0 && src[keep - 1] == ' ')
        keep--;
    memcpy(dst, src, keep);
    memcpy(dst + keep, MORE, sizeof MORE);
}

/* The thread's last error for a run stopped by one of its bounds. */
static int limit_error(mcpp_lua_sandbox *sb, int lua_status, const char *file)
{
    char who[200];
    if (sb->rule_name)
        snprintf(who, sizeof who, "rule '%.160s'", sb->rule_name);
    else
        snprintf(who, sizeof who, "policy (while loading)");
    const char *where = sb->limit_line > 0 ? sb->limit_file : file;
    if (sb->out_of_time && sb->deadline_is_total)
        return mcpp_error_set(MCPP_ELIMIT, "policy_limit", where, NULL, sb->limit_line, 0,
                              "%s stopped: the policy used up its total time budget of %lld ms "
                              "(max_total_ms)",
                              who, (long long)(sb->total_ns / 1000000));
    if (sb->out_of_time)
        return mcpp_error_set(MCPP_ELIMIT, "policy_limit", where, NULL, sb->limit_line, 0,
                              "%s exceeded the time limit of %lld ms per call (max_call_ms)", who,
                              (long long)(sb->call_ns / 1000000));
    if (sb->out_of_memory || lua_status == LUA_ERRMEM)
        return mcpp_error_set(MCPP_ELIMIT, "policy_limit", where, NULL, sb->limit_line, 0,
                              "%s exceeded its memory cap of %zu bytes (max_memory_bytes)", who,
                              sb->mem_cap);
    return mcpp_error_set(MCPP_ELIMIT, "policy_limit", where, NULL, sb->limit_line, 0,
                          "%s exceeded its instruction budget of %lld per call (max_instructions)",
                          who, (long long)sb->budget);
}

int mcpp_lua_sandbox_error(mcpp_lua_sandbox *sb, int lua_status, const char *file)
{
    lua_State *L = sb->L;
    if (mcpp_lua_sandbox_limit_hit(sb) || lua_status == LUA_ERRMEM) {
        if (lua_gettop(L) > 0)
            lua_pop(L, 1);
        return limit_error(sb, lua_status, file);
    }
    char own[160];
    const char *msg = own;
    int t = lua_gettop(L) > 0 ? lua_type(L, -1) : LUA_TNIL;
    if (t == LUA_TSTRING) /* neither allocates nor runs metamethods */
        msg = lua_tostring(L, -1);
    else if (t == LUA_TNUMBER)
        mcpp_snprintf_c(own, sizeof own, "error %.14g", (double)lua_tonumber(L, -1));
    else /* never call __tostring here: it is policy code and could loop */
        snprintf(own, sizeof own, "policy raised an error object of type %s", lua_typename(L, t));

    char where[512], text[600];
    int line = 0;
    const char *rest = msg;
    int located = split_position(msg, where, sizeof where, &line, &rest);
    if (located) {
        /* Errors passed up through coroutines repeat the position, in
         * Lua's shortened "...tail" form when the path is long. */
        rest = skip_positions(rest);
        size_t wlen = strlen(where);
        /* Lua shortens long chunk names to "...tail"; give the full name back. */
        size_t flen = file ? strlen(file) : 0;
        if (wlen > 3 && strncmp(where, "...", 3) == 0 && flen >= wlen - 3 &&
            strcmp(file + flen - (wlen - 3), where + 3) == 0)
            snprintf(where, sizeof where, "%s", file);
    }
    copy_at_word(text, sizeof text, rest);
    if (lua_gettop(L) > 0)
        lua_pop(L, 1);
    for (char *c = text; *c; c++) /* one line for people */
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    char who[200] = "";
    if (sb->rule_name)
        snprintf(who, sizeof who, "rule '%.160s': ", sb->rule_name);
    if (located)
        return mcpp_error_set(MCPP_EPOLICY, "policy", where, NULL, line, 0, "%s%s", who, text);
    return mcpp_error_set(MCPP_EPOLICY, "policy", file, NULL, 0, 0, "%s%s", who, text);
}
