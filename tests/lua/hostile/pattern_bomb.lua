-- catastrophic backtracking inside one C call (the count hook never fires
-- there): the guarded string.find refuses the pattern by its worst-case cost
local s = string.rep("a", 5000)
string.find(s, string.rep("a*", 30) .. "b")
return {}
