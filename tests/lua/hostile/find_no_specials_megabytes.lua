-- the same search without the plain flag: a pattern with no magic characters
-- takes the same plain path inside string.find
local s = string.rep("a", 800000)
local needle = string.rep("a", 400000) .. "b"
while true do s:find(needle) end
