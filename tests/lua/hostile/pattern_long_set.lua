-- a quantified set of 60,000 bytes over 7,000 bytes of subject: each
-- character is compared with the whole set at every place the match is
-- tried (past a minute in one C call); the cost estimate counts the set length
local set = "[" .. ("b"):rep(60000) .. "a]"
local s = ("a"):rep(7000)
s:find(set .. "*x")
return {}
