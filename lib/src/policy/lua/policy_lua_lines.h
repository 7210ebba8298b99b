/*
 * policy_lua_lines.h — where a value of a policy table stands in its Lua
 * source (internal to policy/lua). The loader reads the table Lua built, which
 * keeps no positions; to point an error at the line that is wrong it reads the
 * source's table constructors itself (comments and strings skipped as Lua's
 * lexer does), so a key named in a comment or in another table is never taken
 * for the value.
 */
#ifndef MCPP_POLICY_LUA_LINES_H
#define MCPP_POLICY_LUA_LINES_H

#include <stddef.h>

/* Line (1-based) of the first token of the value at `path` in the Lua source
 * `src` (`len` bytes), 0 when the source does not spell it in a table
 * constructor. `path` is a table path as messages write it: "noise.min_runs",
 * "gate.metrics[2].confidence", "noise.suites[\"pytest-benchmark\"].run_to_run",
 * "dimensions.must_match[3]"; "" is the returned table itself. The table that
 * `return` hands back is the root; a table assigned to a variable (`local g =
 * {...}` then `gate = g`) is found by the longest tail of the path it spells. */
int mcpp_lua_line_of_path(const char *src, size_t len, const char *path);

#endif /* MCPP_POLICY_LUA_LINES_H */
