-- a include cycle: a -> b -> a
return { include = { "include_cycle_b.lua" } }
