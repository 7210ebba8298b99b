-- a rule whose verdict would follow the order of table keys, which is their
-- addresses (it changed between runs): pairs and next refuse such a table
return {
  rules = {
    { name = "first_side", fn = function(base, cand)
        local seen = { [base] = "base", [cand] = "cand" }
        for _, side in pairs(seen) do
          if side == "cand" then return "qualify", "candidate came first" end
          return nil
        end
      end },
  },
}
