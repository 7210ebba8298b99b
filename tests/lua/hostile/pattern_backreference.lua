-- a back reference compares a capture as long as the subject at every place
-- it is tried: counted like a quantifier, refused by cost
local s = ("("):rep(100000) .. "x"
s:find("(%b())%1")
return {}
