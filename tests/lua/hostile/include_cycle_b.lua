-- a include cycle: b -> a -> b
return { include = { "include_cycle_a.lua" } }
