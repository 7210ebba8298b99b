-- policy/shared_cpu.lua — for numbers taken on shared development machines
-- (a laptop, a CI runner, a 2-core VM) where other jobs steal cycles.
--
-- Everything of default.lua: the same dimensions must match, so a number still
-- belongs to exactly one lane. What changes is only how much noise is
-- tolerated, stated here in the open instead of hidden in a spreadsheet:
--
--   * a lane is stable with up to 15% run-to-run spread (default: 5%);
--   * deltas under 5% are treated as noise (default: 1%);
--   * the gate assumes 8% run-to-run noise between two runs of unchanged code
--     (default: 3%, and 5% for pytest-benchmark and Google Benchmark results;
--     the largest moves between unchanged runs on the project's shared 2-core
--     CI machine, docs/statistics.md), for every lane and suite, weighed as
--     10 runs' worth of evidence;
--   * the gate fails only on a regression beyond 10% (default: 3%).
--
-- The frontier and every comparison print the policy's name, so a reader sees
-- that "stable" here means "stable on a shared machine". Do not use it for
-- release numbers or for the merge gate of dedicated benchmark nodes: use
-- default.lua or strict.lua there.
return {
  include = { "default.lua" },
  name = "shared_cpu",
  version = 1,

  noise = {
    max_rel_spread = 0.15, min_runs = 3, noise_floor = 0.05, run_to_run = 0.08, run_to_run_df = 10,
    suites = { ["pytest-benchmark"] = { run_to_run = 0.08 }, ["google-benchmark"] = { run_to_run = 0.08 } },
  },
  gate = { max_regression = 0.10 },
}
