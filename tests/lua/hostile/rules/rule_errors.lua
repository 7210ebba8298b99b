-- a rule that fails on real receipts (a field that does not exist)
return {
  rules = {
    { name = "typo", fn = function(base, cand) return cand.compile.no_such_field end },
  },
}
