-- __gc finalizers are refused (they would run while the state closes)
setmetatable({}, { __gc = function() while true do end end })
return {}
