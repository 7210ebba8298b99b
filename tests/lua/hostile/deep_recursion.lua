-- non-tail recursion: stack overflow (or the memory cap) is an error
local function f(n) return f(n + 1) + 1 end
return { version = f(1) }
