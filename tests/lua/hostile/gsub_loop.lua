-- the same with gsub and gmatch: all pattern functions are guarded
local s = string.rep("a", 4000)
while true do
  s:gsub("a-b", "")
  for _ in s:gmatch("a*b") do end
end
