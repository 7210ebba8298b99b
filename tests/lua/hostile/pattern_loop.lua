-- each match is just under the pattern cost cap (tens of ms of backtracking
-- in C, a single instruction for the hook): the wall-clock limit, checked
-- before every guarded call, stops the loop
local s = string.rep("a", 4000)
while true do s:find("a*b") end
