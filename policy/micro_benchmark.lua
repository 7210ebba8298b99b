-- policy/micro_benchmark.lua — for micro-benchmarks (pytest-benchmark, Google
-- Benchmark: microseconds to milliseconds per call) gated on shared CI
-- machines.
--
-- Everything of default.lua: a benchmark still compares only with runs of
-- the same benchmark, parameters, hardware, topology and software, so each
-- number belongs to exactly one lane. What changes is the run-to-run noise
-- the gate assumes, from default.lua's 5% for these suites (3% for other
-- lanes) to 8%, for machines noisier than the one default.lua's figure was
-- measured on, and why:
--
--   * Unchanged microsecond benchmarks moved by 5-8% (and up to +16%/-20%)
--     between two runs on the project's shared 2-core CI machine
--     (BM_Accumulate, the pytest-benchmark sort cases): the other jobs on
--     the machine changed between the runs. That shift is real for the whole
--     run, not sampling noise inside it: the thousands of rounds inside a run
--     say nothing about it (docs/statistics.md).
--   * So one run against one run establishes only a large change (about 25%
--     and more at 8%: half of the real 30% slowdowns that 5% finds); three
--     runs a side, or a store history of the lane (`gate --history DB`),
--     measure the real spread and catch 10% changes.
--     A gate over many benchmarks also never assumes less noise than the
--     spread of its own benchmarks shows.
--   * The allowance stays practical (5%): noise is the statistics' job.
return {
  include = { "default.lua" },
  name = "micro_benchmark",
  version = 2,

  noise = {
    run_to_run = 0.08, run_to_run_df = 10,
    suites = { ["pytest-benchmark"] = { run_to_run = 0.08 }, ["google-benchmark"] = { run_to_run = 0.08 } },
  },
  gate = { max_regression = 0.05 },
}
