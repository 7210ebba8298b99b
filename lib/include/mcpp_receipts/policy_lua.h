/*
 * mcpp_receipts/policy_lua.h — comparability policies from sandboxed Lua 5.4 files.
 *
 * A policy file is a Lua text chunk that returns a table
 * (keys: name, version, include, dimensions, required, noise, gate, adjacency,
 * rules; docs/guide/policies.md shows one). It runs in
 * a fresh, sandboxed lua_State: no bytecode, a whitelisted environment (no io,
 * os, debug, package, require, load*, dofile, collectgarbage, string.dump), an
 * instruction budget and a memory cap. The declarative part is compiled into an
 * mcpp_policy; custom rule functions stay in Lua and run through
 * mcpp_policy_add_rule() with read-only views of the receipts.
 *
 * In builds without Lua (MCPP_LUA=OFF) the loaders fail with MCPP_EUNSUPPORTED.
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_POLICY_LUA_H
#define MCPP_RECEIPTS_POLICY_LUA_H

#include "policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bounds on policy code, versioned like mcpp_limits: start from
 * MCPP_LUA_LIMITS_INIT or mcpp_lua_limits_default(). Zero in any bound means
 * its default. A load and
 * each rule call ("an evaluation") get the full per-call bounds; the total
 * bounds the wall-clock time spent in the policy's Lua over the policy's
 * whole life (its load and every rule call), which for the CLI is one
 * command. A policy that hits any bound fails with MCPP_ELIMIT (kind
 * "policy_limit") and a message naming the rule and the bound.
 */
#define MCPP_LUA_LIMITS_VERSION 1u
typedef struct mcpp_lua_limits {
    unsigned int version;     /* MCPP_LUA_LIMITS_VERSION                          */
    int64_t max_instructions; /* per load and per rule call; default 10,000,000  */
    size_t max_memory_bytes;  /* per policy state; default 16 MiB                */
    int64_t max_call_ms;      /* wall clock per load and per rule call; 1000 ms  */
    int64_t max_total_ms;     /* wall clock over the policy's life; 1500 ms;
                                 negative: no total bound (long-lived hosts)     */
} mcpp_lua_limits;

#define MCPP_LUA_LIMITS_INIT {MCPP_LUA_LIMITS_VERSION, 10000000, (size_t)16 << 20, 1000, 1500}

/* Fills *out with the defaults above. */
MCPP_API void mcpp_lua_limits_default(mcpp_lua_limits *out);

/*
 * Loads a policy file. `include = {...}` entries are plain file names
 * resolved by mcpp_policy_find() from the including file's directory; cycles
 * are refused. On failure returns MCPP_EPOLICY (or MCPP_EIO,
 * MCPP_ELIMIT) and mcpp_error_last() has the file and line.
 * `limits` may be NULL (defaults); a version it does not know is MCPP_EARG.
 * The caller frees *out with mcpp_policy_free.
 */
MCPP_API int mcpp_policy_load_lua_file(mcpp_policy **out, const char *path,
                                       const mcpp_lua_limits *limits);

/* As above for a chunk in memory; `name` is used in messages and includes are
 * resolved relative to the directory part of `name` (none when NULL). */
MCPP_EXPERIMENTAL int mcpp_policy_load_lua_buffer(mcpp_policy **out, const char *buf, size_t len, const char *name,
                                                  const mcpp_lua_limits *limits);

/*
 * Where policy files are found by name (`include = {"default.lua"}`, a
 * shipped policy): in `from_dir` (the including policy's own directory; may
 * be NULL), then in the installed policy directory (PREFIX/share/mcpp_receipts/
 * policy, found relative to the installed library or program, so an install
 * moved with `cmake --install --prefix` still finds it; for a shared object
 * with a `policies` directory beside it, as the Python package has, that
 * directory), then in each entry of
 * the environment variable MCPP_POLICY_PATH (':'-separated). The first
 * directory holding an entry of that name wins (a symbolic link is found, and
 * the loader then refuses it). `name` must be a plain file name (letters,
 * digits, '_', '-', '.'; no '/', no ".."): MCPP_EARG otherwise;
 * MCPP_ENOTFOUND when no directory has it, the message listing them. *out is
 * the path; free it with mcpp_free().
 */
MCPP_EXPERIMENTAL int mcpp_policy_find(char **out, const char *name, const char *from_dir);

/*
 * The file a policy argument names (the CLI's --policy, Lua's mr.policy):
 * `arg` itself when it is a file or reads as a path ('/' in it, or ".lua" at
 * its end); else a bare name ("strict") is the shipped policy NAME.lua
 * (mcpp_policy_find), and `arg` itself when there is none, for the load to
 * name. *out to free with mcpp_free(); MCPP_ENOMEM.
 */
MCPP_EXPERIMENTAL int mcpp_policy_locate(char **out, const char *arg);

/* The directories mcpp_policy_find() searches, in order, one per line
 * ('\n'-separated, no trailing newline). Free *out with mcpp_free(). */
MCPP_EXPERIMENTAL int mcpp_policy_search_path(char **out, const char *from_dir);

/* The installed policy directory alone (it may not exist). Free with mcpp_free(). */
MCPP_EXPERIMENTAL int mcpp_policy_install_dir(char **out);

/*
 * Starts a new total time budget (max_total_ms) for the Lua policy `policy`
 * was loaded from, for hosts that keep one policy across many commands (a
 * notebook, a server). No effect on a policy without Lua rules.
 */
MCPP_EXPERIMENTAL void mcpp_policy_lua_reset_budget(const mcpp_policy *policy);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_POLICY_LUA_H */
