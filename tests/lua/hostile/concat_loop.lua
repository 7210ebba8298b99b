-- each `..` copies 4 MB in one instruction: large allocations check the clock
local s = string.rep("x", 4000000)
while true do local y = s .. "x" end
