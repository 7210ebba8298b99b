-- the string metatable is protected: getmetatable gives a string, not the table
local mt = getmetatable("")
mt.__index.find = function() return 1 end
return {}
