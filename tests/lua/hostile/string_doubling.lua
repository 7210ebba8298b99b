-- s = s .. s doubling: stopped by the memory cap
local s = "x"
while true do s = s .. s end
