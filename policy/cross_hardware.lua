-- policy/cross_hardware.lua — for hardware-scaling studies: the same lane on
-- different accelerators (H100 vs H200 vs B200 ...).
--
-- Everything of default.lua, except that a difference in the observed
-- accelerator or its count qualifies the comparison instead of making it
-- not comparable. The comparison row still names both accelerators, so a
-- reader sees "H100 vs H200" next to every number.
--
-- What stays must-match on purpose: topology (tp/pp/dp... must be the same, so
-- the study compares chips, not parallelism layouts) and backend (a kernel that
-- only exists on one chip is a different lane: compare it with a custom rule
-- or a separate policy, not by loosening this one).
--
-- Do not use this policy for the merge gate: a faster chip would hide a
-- regression in the code.
return {
  include = { "default.lua" },
  name = "cross_hardware",
  version = 1,

  dimensions = {
    qualify = { "hardware" },
  },
}
