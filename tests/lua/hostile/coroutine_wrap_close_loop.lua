-- a coroutine stopped by the budget keeps its hooks off, and coroutine.wrap
-- used to close its pending __close handlers right then: unbounded without
-- the sandbox's own wrap
local f = coroutine.wrap(function()
  local x <close> = setmetatable({}, { __close = function() while true do end end })
  while true do end
end)
f()
return {}
