-- another coroutine (whose own hook has not fired yet) closes the stopped one:
-- coroutine.close is refused once a limit is hit
local co = coroutine.create(function()
  local x <close> = setmetatable({}, { __close = function() while true do end end })
  while true do end
end)
local closer = coroutine.wrap(function()
  coroutine.resume(co)
  coroutine.close(co)
end)
closer()
return {}
