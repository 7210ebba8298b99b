-- tampering with a protected metatable through setmetatable
setmetatable("", {})
return {}
