-- a rule that stays just under the per-call instruction budget (about 9M of
-- 10M instructions): each call is allowed, but a 20x20 gate calls it 400
-- times; the per-command total time budget refuses it
return {
  include = {},
  dimensions = { must_match = { "pattern" } }, -- gate refuses a policy without dimensions
  rules = {
    { name = "slow", fn = function(base, cand)
        local x = 0
        for i = 1, 4400000 do x = x + i end
        return nil
      end },
  },
}
