-- %b() from each start scans to the end of the subject: 200,000 open
-- parentheses cost 2*10^10 steps in one C call (46.8 s, the count hook never
-- firing). The guarded find counts %b like a quantifier and refuses it.
local s = ("("):rep(200000)
s:find("%b()")
return {}
