-- a terabyte string in one C call: refused before it allocates
local s = string.rep("x", 2^40)
return { name = s }
