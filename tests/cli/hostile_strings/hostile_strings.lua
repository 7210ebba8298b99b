-- hostile_strings.lua — a policy whose name, rule name, rule reason and rule
-- error carry terminal escapes and markdown/HTML injections (issue 18 item 4).
return {
  include = {},
  dimensions = { must_match = { "pattern" } },
  name = "pol\27]0;pwned\7icy`<b>x</b>`",
  rules = {
    { name = "reason\27[2J`|<script>alert(1)</script>", fn = function(base, cand)
        if base.id ~= cand.id then
          return "qualify", "reason \27[31mred\27[0m \7 `tick` | pipe\nnewline <img src=x onerror=alert(1)> [x](javascript:alert(2))"
        end
      end },
  },
}
