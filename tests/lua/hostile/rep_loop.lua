-- each call copies 8 MB in C and runs one Lua instruction: the guard charges
-- the bytes to the instruction budget
while true do local x = string.rep("x", 8000000) end
