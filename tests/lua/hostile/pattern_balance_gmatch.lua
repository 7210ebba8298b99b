-- the same balanced match through gmatch and gsub: refused by cost
local s = ("["):rep(100000)
for _ in s:gmatch("%b[]") do end
s:gsub("%b[]", "")
return {}
