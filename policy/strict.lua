-- policy/strict.lua — for numbers that go into release notes and papers.
--
-- Everything of default.lua, and:
--   * the starting line must match: a cold-boot run is not compared with a
--     warm-cache one, and neither are different compile-cache / driver /
--     runtime states (default.lua only lists these differences);
--   * a lane needs 5 ok runs (not 3) and a tighter spread (3%, not 5%) to be
--     stable; changes under 0.5% are noise;
--   * the gate fails at a 2% regression, established at 99% confidence
--     against 2% run-to-run noise (dedicated nodes; default: 3%);
--   * two custom rules (Lua), each run on both sides of every compared pair
--     (`each = function(run, side)`: a rule that looks at one run at a time,
--     which keeps the frontier linear in a lane's runs):
--       enough_samples  each side needs at least 10 measured step samples,
--                       else the pair is insufficient (the interval would be
--                       too wide to mean anything);
--       verification_recorded
--                       a receipt that records no kernel verification at all
--                       is not comparable with anything (a failed verification
--                       is not comparable under every policy: the engine
--                       itself adds a `verification` row for it).
-- Fallbacks stay a qualification: the row names each one, and a lane with an
-- unresolved fallback is never stable on the frontier anyway.
return {
  include = { "default.lua" },
  name = "strict",
  version = 1,

  dimensions = {
    must_match = { "startup", "cache" },
  },

  noise = { max_rel_spread = 0.03, min_runs = 5, noise_floor = 0.005, run_to_run = 0.02 },
  gate = { max_regression = 0.02, confidence = 0.99 },

  rules = {
    {
      name = "enough_samples",
      each = function(run, side)
        local samples = run.metrics.step_time_s.samples
        local n = samples and #samples or 0
        if n < 10 then
          return "insufficient", ("%s has %d step samples; strict needs 10"):format(side, n)
        end
        return nil
      end,
    },
    {
      name = "verification_recorded",
      each = function(run, side)
        if run.backend.verification.status == nil then
          return "mismatch", side .. " records no kernel verification; strict needs one"
        end
        return nil
      end,
    },
  },
}
