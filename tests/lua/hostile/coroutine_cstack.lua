-- nested coroutines + pcall: Lua's C-stack limit (LUAI_MAXCCALLS) makes it an error
local function f() pcall(1); coroutine.wrap(f)() end
f()
return {}
