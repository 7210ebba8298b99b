-- a rule that loops forever in Lua: stopped by the per-call instruction budget
return {
  rules = {
    { name = "loops", fn = function(base, cand) while true do end end },
  },
}
