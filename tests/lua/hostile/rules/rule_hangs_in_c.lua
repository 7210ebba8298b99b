-- a rule that hangs in C calls each just under the pattern cap: `policy check`
-- runs it on sample pairs and the per-call time limit stops it
return {
  rules = {
    { name = "hangs", fn = function(base, cand)
        local s = string.rep("a", 4000)
        while true do s:find("a*b") end
      end },
  },
}
