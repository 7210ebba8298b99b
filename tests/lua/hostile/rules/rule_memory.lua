-- a rule that grows a table without end: stopped by the memory cap
return {
  rules = {
    { name = "grows", fn = function(base, cand)
        local t = {}
        while true do t[#t + 1] = ("x"):rep(64) .. #t end
      end },
  },
}
