-- a memory error caught by pcall still fails the load
local t = {}
pcall(function() while true do t[#t + 1] = ("x"):rep(1000) .. #t end end)
return {}
