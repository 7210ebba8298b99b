/*
 * lua_guards.c — wrappers around the C library functions a sandboxed policy
 * may call, because the count hook never fires inside one C call.
 *
 * Every function of string, table and utf8 is wrapped: the wrapper charges
 * the bytes or elements it is given to the run's instruction budget and
 * checks the clock (mcpp_lua_sandbox_charge) before the real function runs,
 * so a loop of cheap-looking C calls is bounded. The ones whose single call
 * could still run long have a cap on their worst case first: pattern
 * matching (a cost estimate), plain find (done with memmem, linear, instead
 * of lstrlib's O(subject x needle) search), string.rep (the memory cap),
 * table.sort (comparisons x string length), table.move and any length taken
 * through __len (element counts). coroutine.close is refused once a limit is
 * hit. Each wrapper is a C closure whose upvalue is the original function.
 * tostring and string.format never show an address (table: 0x55d0...): a
 * rule that printed one into a reason or compared two got another verdict
 * on every run, since allocation addresses differ between runs.
 */
/* memmem() is a GNU extension (also in every BSD libc). */
#define _GNU_SOURCE
#include "policy/lua/lua_guards.h"

#include <string.h>

#include <lauxlib.h>

#include "policy/lua/lua_sandbox.h"

/* The largest cost (roughly subject_length ^ (quantifiers + 1)) a pattern
 * operation may have. Lua's matcher backtracks; beyond this a single C call
 * could run for minutes without the count hook ever firing. */
#define PATTERN_COST_MAX 5e7

/* Bytes of a set ([...]) whose test the cost estimate takes as free. */
#define SET_FREE 16

/* Largest element count one table.move may span, and the largest length a
 * guarded table function accepts (a __len can claim any length, and shifting
 * absent elements allocates nothing, so the memory cap would not stop it). */
#define TABLE_MOVE_MAX ((lua_Integer)1 << 24)

/* The largest cost (comparisons x (1 + longest string / 32)) of one
 * table.sort without a comparator: string comparisons run in C. */
#define SORT_COST_MAX 5e7

/* Index just past the set that starts at p[i] == '[' (as lstrlib's classEnd). */
static size_t skip_set(const char *p, size_t n, size_t i)
{
    i++;
    if (i < n && p[i] == '^')
        i++;
    do {
        if (i >= n)
            return n;
        if (p[i++] == '%' && i < n)
            i++;
    } while (i < n && p[i] != ']');
    return i < n ? i + 1 : n;
}

/* Counts what makes a Lua pattern's work grow with the subject at each
 * place it is tried: variable-length quantifiers, balanced matches (%b) and
 * back references (%1..%9). */
static int pattern_quantifiers(const char *p, size_t n, int *anchored, size_t *longest_set)
{
    size_t i = 0;
    int count = 0;
    *longest_set = 0;
    *anchored = n > 0 && p[0] == '^';
    if (*anchored)
        i = 1;
    while (i < n) {
        size_t end;
        char c = p[i];
        if (c == '(' || c == ')') {
            i++;
            continue;
        }
        if (c == '%') {
            if (i + 1 >= n)
                break;
            if (p[i + 1] == 'b') { /* %bxy: from each start it may scan the rest of the
                                    * subject, as a quantifier does (issue 48: ("("):rep(200000)
                                    * :find("%b()") ran 46.8 s in one call when counted as none) */
                count++;
                i += 4;
                continue;
            }
            if (p[i + 1] >= '1' && p[i + 1] <= '9') { /* %1: compares a capture as long as the subject */
                count++;
                i += 2;
                continue;
            }
            if (p[i + 1] == 'f') { /* %f[set] */
                i += 2;
                if (i < n && p[i] == '[')
                    i = skip_set(p, n, i);
                continue;
            }
            end = i + 2;
        } else if (c == '[') {
            end = skip_set(p, n, i);
            if (end - i > *longest_set)
                *longest_set = end - i;
        } else {
            end = i + 1;
        }
        if (end < n && (p[end] == '*' || p[end] == '+' || p[end] == '-' || p[end] == '?')) {
            count++;
            end++;
        }
        i = end;
    }
    return count;
}

static void check_pattern_cost(lua_State *L, int subject_arg, int pattern_arg, int can_anchor)
{
    size_t slen, plen;
    luaL_checklstring(L, subject_arg, &slen);
    const char *p = luaL_checklstring(L, pattern_arg, &plen);
    mcpp_lua_sandbox_charge(L, (double)slen + (double)plen);
    int anchored;
    size_t longest_set;
    int q = pattern_quantifiers(p, plen, &anchored, &longest_set);
    int power = q + ((anchored && can_anchor) ? 0 : 1);
    /* Without quantifiers each try compares up to the whole pattern; with
     * them, each character a set is tried on is compared with up to the
     * whole set ([bbb...ba]*x over 7,000 bytes ran past a minute). */
    double cost = q == 0 && plen > 1 ? (double)plen : longest_set > SET_FREE ? (double)longest_set / SET_FREE : 1.0;
    for (int k = 0; k < power && cost <= PATTERN_COST_MAX; k++)
        cost *= (double)slen + 1.0;
    if (cost > PATTERN_COST_MAX)
        luaL_error(L,
                   "pattern too expensive for the sandbox: %d quantifier(s) (counting %%b and back "
                   "references), %d pattern bytes over a %d-byte subject (use fewer, an anchor, or a "
                   "shorter subject)",
                   q, (int)(plen > 2147483647u ? 2147483647u : plen), (int)(slen > 2147483647u ? 2147483647u : slen));
}

static int call_original(lua_State *L)
{
    lua_CFunction orig = lua_tocfunction(L, lua_upvalueindex(1));
    return orig(L);
}

/* As lstrlib's nospecials: the pattern has no magic character. */
static int has_no_specials(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] && strchr("^$*+?.([%-", p[i]))
            return 0;
    return 1;
}

/* string.find for a plain search: lstrlib's lmemfind is O(subject x needle)
 * in one C call (4.5 s for 800k/400k bytes); memmem is linear. Same results. */
static int plain_find(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    lua_Integer init = luaL_optinteger(L, 3, 1);
    size_t start; /* 1-based, as lstrlib's posrelatI */
    if (init > 0)
        start = (size_t)init;
    else if (init == 0 || init < -(lua_Integer)ls)
        start = 1;
    else
        start = (size_t)((lua_Integer)ls + init + 1);
    if (start - 1 > ls) {
        luaL_pushfail(L);
        return 1;
    }
    start -= 1;
    mcpp_lua_sandbox_charge(L, (double)(ls - start) + (double)lp);
    const char *hit = memmem(s + start, ls - start, p, lp);
    if (!hit) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
    lua_pushinteger(L, (lua_Integer)(hit - s + (ptrdiff_t)lp));
    return 2;
}

static int guarded_find(lua_State *L)
{
    size_t lp;
    const char *p = luaL_checklstring(L, 2, &lp);
    if (lua_toboolean(L, 4) || has_no_specials(p, lp))
        return plain_find(L);
    check_pattern_cost(L, 1, 2, 1);
    return call_original(L);
}

/* string.match and string.gsub: an anchored pattern is tried at one place only. */
static int guarded_match_or_gsub(lua_State *L)
{
    check_pattern_cost(L, 1, 2, 1);
    return call_original(L);
}

static int guarded_gmatch(lua_State *L)
{
    check_pattern_cost(L, 1, 2, 0);
    return call_original(L);
}

static int guarded_rep(lua_State *L)
{
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0) {
        if (l + lsep == 0) { /* would loop n times copying nothing */
            lua_pushliteral(L, "");
            return 1;
        }
        double total = (double)l * (double)n + (double)lsep * (double)(n - 1);
        if (total > (double)mcpp_lua_sandbox_of(L)->mem_cap)
            return luaL_error(L, "string.rep: a %f-byte result is over the memory cap", (lua_Number)total);
        mcpp_lua_sandbox_charge(L, total);
    }
    return call_original(L);
}

/* 1 when Lua would show the value by its address (table: 0x55d0...). */
static int shown_by_address(lua_State *L, int index)
{
    switch (lua_type(L, index)) {
    case LUA_TTABLE:
    case LUA_TFUNCTION:
    case LUA_TTHREAD:
    case LUA_TUSERDATA:
    case LUA_TLIGHTUSERDATA: return 1;
    default: return 0;
    }
}

/* 1 when the value at `index` would be shown by its address: no __tostring. */
static int address_only(lua_State *L, int index)
{
    if (!shown_by_address(L, index))
        return 0;
    if (luaL_getmetafield(L, index, "__tostring") == LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    return 0;
}

int mcpp_lua_sandbox_tostring(lua_State *L)
{
    luaL_checkany(L, 1);
    if (address_only(L, 1)) {
        lua_pushstring(L, luaL_typename(L, 1));
        return 1;
    }
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/* string.format without addresses: %p is refused, and a %s of a value that
 * would be shown by its address gets its type name (as tostring does). */
static int guarded_format(lua_State *L)
{
    size_t len = 0;
    const char *fmt = luaL_checklstring(L, 1, &len);
    double work = (double)len + 1;
    for (size_t i = 0; i + 1 < len; i++) {
        if (fmt[i] != '%')
            continue;
        size_t j = i + 1;
        while (j < len && fmt[j] && strchr("-+ #0123456789.", fmt[j]))
            j++;
        if (j < len && fmt[j] == 'p')
            return luaL_error(L, "string.format: %%p (a memory address) is not available in a policy: "
                                 "a verdict must not depend on where a value lives");
        i = j;
    }
    int top = lua_gettop(L);
    for (int i = 2; i <= top; i++) {
        if (address_only(L, i)) {
            lua_pushstring(L, luaL_typename(L, i));
            lua_replace(L, i);
        }
        if (lua_type(L, i) == LUA_TSTRING)
            work += (double)lua_rawlen(L, i);
    }
    mcpp_lua_sandbox_charge(L, work);
    return call_original(L);
}

static int guarded_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    if (e >= f && (lua_Unsigned)e - (lua_Unsigned)f >= (lua_Unsigned)TABLE_MOVE_MAX)
        return luaL_error(L, "table.move: more than %d elements", (int)TABLE_MOVE_MAX);
    mcpp_lua_sandbox_charge(L, e >= f ? (double)(e - f) + 1.0 : 1.0);
    return call_original(L);
}

/* table.sort: without a comparator, string comparisons run inside the one C
 * call (a table of 100k references to one 8 MB string compares for hours). */
static int guarded_sort(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    if (n > TABLE_MOVE_MAX)
        return luaL_error(L, "table.sort: %I elements are more than the sandbox allows", n);
    double longest = 0, log_n = 1;
    for (lua_Integer k = n; k > 1; k >>= 1)
        log_n++;
    if (lua_isnoneornil(L, 2))
        for (lua_Integer i = 1; i <= n; i++) {
            if (lua_rawgeti(L, 1, i) == LUA_TSTRING && (double)lua_rawlen(L, -1) > longest)
                longest = (double)lua_rawlen(L, -1);
            lua_pop(L, 1);
        }
    double cost = (double)n * log_n * (1.0 + longest / 32.0);
    if (cost > SORT_COST_MAX)
        return luaL_error(L, "table.sort too expensive for the sandbox: %I elements, the longest a "
                             "%I-byte string", n, (lua_Integer)longest);
    mcpp_lua_sandbox_charge(L, cost);
    return call_original(L);
}

/* Every other string/table/utf8 function: charged by the size of what it is
 * given, with the clock checked, before it runs. */
static int guarded_linear(lua_State *L)
{
    double work = 1;
    int top = lua_gettop(L);
    for (int i = 1; i <= top; i++) {
        if (lua_type(L, i) == LUA_TSTRING) {
            work += (double)lua_rawlen(L, i);
        } else if (lua_type(L, i) == LUA_TTABLE) {
            lua_Integer n = luaL_len(L, i); /* what the function will iterate over */
            if (n > TABLE_MOVE_MAX)
                return luaL_error(L, "a table of length %I is longer than the sandbox allows", n);
            work += (double)(n > 0 ? n : 0);
        }
    }
    mcpp_lua_sandbox_charge(L, work);
    return call_original(L);
}

/* A coroutine that the count hook stopped keeps hooks off (Lua restores them
 * only in pcall), and closing it runs its pending __close handlers: once a
 * limit is hit, closing is refused so those handlers can never run unbounded. */
static int guarded_close(lua_State *L)
{
    if (mcpp_lua_sandbox_limit_hit(mcpp_lua_sandbox_of(L)))
        return luaL_error(L, "coroutine.close refused: the policy has hit its limits");
    return call_original(L);
}

/* Replaces lib[name] by `guard` with the original as its upvalue. Table at -1. */
static void wrap_function(lua_State *L, const char *name, lua_CFunction guard)
{
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, guard, 1);
    lua_setfield(L, -2, name);
}

/* Wraps every C function of the library table at -1 not yet wrapped (those
 * named in `done`) in guarded_linear. */
static void guard_library(lua_State *L, const char *const *done)
{
    int lib = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, lib)) {
        int skip = !lua_iscfunction(L, -1) || lua_type(L, -2) != LUA_TSTRING;
        for (const char *const *d = done; !skip && *d; d++)
            skip = strcmp(lua_tostring(L, -2), *d) == 0;
        if (skip) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushcclosure(L, guarded_linear, 1);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, lib); /* replacing an existing key during lua_next is allowed */
    }
}

void mcpp_lua_guard_string_library(lua_State *L)
{
    static const char *const SPECIAL[] = {"find", "match", "gmatch", "gsub", "rep", "format", NULL};
    wrap_function(L, "format", guarded_format);
    wrap_function(L, "find", guarded_find);
    wrap_function(L, "match", guarded_match_or_gsub);
    wrap_function(L, "gmatch", guarded_gmatch);
    wrap_function(L, "gsub", guarded_match_or_gsub);
    wrap_function(L, "rep", guarded_rep);
    guard_library(L, SPECIAL);
}

void mcpp_lua_guard_table_library(lua_State *L)
{
    static const char *const SPECIAL[] = {"move", "sort", NULL};
    wrap_function(L, "move", guarded_move);
    wrap_function(L, "sort", guarded_sort);
    guard_library(L, SPECIAL);
}

void mcpp_lua_guard_utf8_library(lua_State *L)
{
    static const char *const NONE[] = {NULL};
    guard_library(L, NONE);
}

void mcpp_lua_guard_coroutine_library(lua_State *L)
{
    wrap_function(L, "close", guarded_close);
}
