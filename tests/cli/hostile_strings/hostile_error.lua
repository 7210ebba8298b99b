-- hostile_error.lua — a rule whose Lua error text carries terminal escapes.
return {
  rules = {
    { name = "fails", fn = function(base, cand)
        error("boom \27]0;pwned\7 \27[2J <script>alert(1)</script> `x`")
      end },
  },
}
