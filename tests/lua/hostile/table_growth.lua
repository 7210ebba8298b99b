-- unbounded table growth: stopped by the memory cap
local t, i = {}, 0
while true do i = i + 1; t[i] = { i, tostring(i) } end
