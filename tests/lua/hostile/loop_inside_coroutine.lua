-- coroutines inherit the count hook
coroutine.wrap(function() while true do end end)()
return {}
