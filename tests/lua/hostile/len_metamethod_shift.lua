-- a __len that claims a billion elements: table.insert would shift a billion
-- absent slots in C (no memory, no instructions); the guard refuses the length
local t = setmetatable({}, { __len = function() return 1000000000 end })
table.insert(t, 1, "x")
return {}
