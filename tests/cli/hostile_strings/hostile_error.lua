-- hostile_error.lua — a rule whose Lua error text carries terminal escapes.
return {
  dimensions = { must_match = { "pattern" } }, -- compare refuses a policy without dimensions
  rules = {
    { name = "fails", fn = function(base, cand)
        error("boom \27]0;pwned\7 \27[2J <script>alert(1)</script> `x`")
      end },
  },
}
