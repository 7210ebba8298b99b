-- a plain find of a 400k needle in an 800k subject is O(n*m) in Lua's own
-- lmemfind (4.5 s per call); the sandbox searches with memmem (linear) and
-- charges the bytes, so the loop ends on the instruction budget
local s = string.rep("a", 800000)
local needle = string.rep("a", 400000) .. "b"
while true do s:find(needle, 1, true) end
