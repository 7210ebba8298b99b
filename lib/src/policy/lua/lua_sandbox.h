/*
 * lua_sandbox.h — the sandboxed lua_State that policy files and their custom
 * rules run in (internal to the library; nothing here is public API).
 *
 * One sandbox is one lua_State plus the bookkeeping that bounds it: an
 * allocator that enforces the memory cap, a count hook that enforces the
 * instruction budget and the wall-clock deadline (and keeps raising once one
 * is spent, so pcall cannot swallow it), guards on the C library functions
 * that can run long without executing Lua, and a whitelisted environment that is handed to every chunk
 * as its _ENV. All Lua API calls that can raise are made inside lua_pcall.
 */
#ifndef MCPP_LUA_SANDBOX_H
#define MCPP_LUA_SANDBOX_H

#include <lua.h>

#include "util/c_locale.h"
#include "mcpp_receipts/policy_lua.h"

typedef struct mcpp_lua_sandbox {
    lua_State *L;
    size_t mem_used;
    size_t mem_cap;
    int64_t budget;          /* instructions allowed for the current run       */
    int64_t executed;        /* instructions counted so far in the current run */
    int64_t call_ns;         /* wall clock allowed per run                     */
    int64_t total_ns;        /* wall clock allowed over all runs (<0: no bound) */
    int64_t spent_ns;        /* wall clock used by finished runs               */
    int64_t run_start_ns;    /* CLOCK_MONOTONIC at the start of this run       */
    int64_t deadline_ns;     /* when this run must have ended                  */
    int deadline_is_total;   /* the deadline comes from the total, not the call */
    int out_of_budget;       /* set by the hook; checked after every run       */
    int out_of_memory;       /* set by the allocator; checked after every run  */
    int out_of_time;         /* set by the hook and the guards; ditto          */
    const char *rule_name;   /* the rule being run, for messages (NULL: load)  */
    size_t settled_bytes;    /* memory in use after the load, garbage collected */
    int limit_line;          /* where the limit was hit, when known            */
    char limit_file[512];
    /* The receipts that the read-only views of a running rule look at
     * (NULL outside a rule call). Index 0 is the base, 1 the candidate. */
    const void *views[2];
    /* The caller's locale while a run is under way: Lua formats and reads
     * numbers through the C library, so runs are in the "C" locale. */
    mcpp_c_locale_scope locale;
} mcpp_lua_sandbox;

/* Opens the state, installs allocator, hook and the whitelist. Returns
 * MCPP_OK or a negative code with the last error set. On failure the sandbox
 * is closed again. */
int mcpp_lua_sandbox_open(mcpp_lua_sandbox *sb, const mcpp_lua_limits *limits);

/* Closes the state (finalizers run under the spent budget, so they end). */
void mcpp_lua_sandbox_close(mcpp_lua_sandbox *sb);

/* Starts a new run: a full instruction budget, cleared limit flags and a
 * deadline of the per-call time or what is left of the total, whichever is
 * sooner. `rule_name` (NULL while loading) is named in limit messages. */
void mcpp_lua_sandbox_begin_run(mcpp_lua_sandbox *sb, const char *rule_name);

/* Ends a run: its wall-clock time is charged to the total. */
void mcpp_lua_sandbox_end_run(mcpp_lua_sandbox *sb);

/* Collects the garbage earlier runs left when it is over 1 MiB, so every
 * rule call starts with (nearly) the whole memory cap, whatever ran before.
 * The first call (after the load) records the settled footprint. */
void mcpp_lua_sandbox_settle(mcpp_lua_sandbox *sb);

/* Starts a new total time budget. */
void mcpp_lua_sandbox_reset_total(mcpp_lua_sandbox *sb);

/* Charges `work` (about one unit per byte touched) of a C library call to
 * the run's budget and checks the deadline; raises when either is spent. */
void mcpp_lua_sandbox_charge(lua_State *L, double work);

/* True when the last run hit the instruction budget or the memory cap, even
 * if the chunk caught the resulting error itself. */
int mcpp_lua_sandbox_limit_hit(const mcpp_lua_sandbox *sb);

/* Pushes a fresh environment table holding the whitelisted globals. Call only
 * in protected mode (it allocates). */
void mcpp_lua_sandbox_push_env(lua_State *L);

/*
 * Turns a failed run into the thread's last error and returns its code: a
 * spent budget or memory cap is MCPP_ELIMIT (kind "limit") with the place it
 * was hit; anything else is MCPP_EPOLICY (kind "policy") with FILE:LINE taken
 * from Lua's message. The error object at the top of the stack is read
 * without running any metamethod. `file` names the input when the message
 * carries no position.
 */
int mcpp_lua_sandbox_error(mcpp_lua_sandbox *sb, int lua_status, const char *file);

/* The sandbox a state belongs to (its allocator's userdata). */
mcpp_lua_sandbox *mcpp_lua_sandbox_of(lua_State *L);

#endif /* MCPP_LUA_SANDBOX_H */
