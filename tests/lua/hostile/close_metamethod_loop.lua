-- a to-be-closed variable whose __close loops: still under the budget
do
  local x <close> = setmetatable({}, { __close = function() while true do end end })
end
return {}
