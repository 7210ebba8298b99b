-- policy/default.lua — the built-in default comparability policy, written out.
--
-- This file has exactly the effect of mcpp_policy_default(), whose dimensions
-- are lib/src/policy/dimension_table.h; tests compare the two (their content
-- digests, and their verdicts on every example receipt pair), so if you change
-- one, change the other. Other shipped policies include this
-- file and override what they need: the including file always wins.
--
-- Reading guide for reviewers:
--   must_match  a difference makes two receipts not comparable at all;
--   qualify     a difference is listed next to the comparison, which still stands;
--   ignore      never looked at (say so explicitly: an unlisted dimension is
--               silently skipped, and `policy check` warns about it).
return {
  name = "default",
  version = 1,

  dimensions = {
    -- The work itself: the same benchmark (for suite results), model
    -- pattern, routing, shapes, compile posture, topology, accelerator (by
    -- canonical id: "H100" = "NVIDIA H100 80GB HBM3"), data path, backends,
    -- launch contract and features, or the numbers describe different lanes.
    -- The model dimensions do not apply between two benchmark-suite results
    -- (pytest-benchmark, Google Benchmark, MLPerf): those compare on benchmark
    -- identity, topology, hardware and features.
    must_match = {
      "benchmark", -- benchmark.suite, .name, .params, .division,
                   -- .submitter, .system (only when a side is a benchmark-suite result)
      "pattern",   -- lane.pattern, lane.depth (the layers)
      "model_size", -- lane.params_total, .params_active, .d_model, .heads (absent on both
                    -- sides qualifies: "not recorded"; on one side only is insufficient)
      "routing",   -- routing.* (only when the pattern has an E block)
      "sequence",  -- workload.seq_len
      "batch",     -- workload.micro_batch, workload.global_batch
      "compile",   -- compile.posture, compile.warmup
      "topology",  -- topology.*
      "hardware",  -- hardware.observed.accelerator, .count, .per_node, .threads (what ran, not what was asked)
      "data",      -- workload.data.path, .dataset
      "backend",   -- backend.<family>.observed, backend.precision.observed (model runs,
                   -- and suite results that state one: a GEMM harness's implementation)
      "launch",    -- launch.* (MTP depth, CUDA graphs, fixed policy, generated args)
      "features",  -- features: a feature in force is a tax to measure, not to hide
    },
    -- What ran differently inside the lane, the starting line and the
    -- environment: worth knowing, not disqualifying.
    qualify = {
      "compile_detail", -- compile.graph_breaks, .disabled_regions, recompiles, graph and profiler captures in the window
      "software",  -- software.framework, .version, .image, .components (when a side states it)
      "suite_version", -- benchmark.suite_version: a tool upgrade (pytest-benchmark 5.3.1 -> 5.4.0)
                       -- or another MLPerf round qualifies; it is not a new lane
      "startup",   -- startup.state (cold boot vs warm cache vs snapshot restore)
      "position",  -- run.position.step, .tokens_seen by power-of-two range (a warm-up
                   -- window vs steady state; when a side states it)
      "window",    -- metrics.window.warmup_steps: none (compile and warm-up measured) vs some
      "denominator", -- workload.useful_tokens_per_step, when both sides state it
      "cache",     -- compile.cache_state, driver and runtime versions
      "quality",   -- quality.metric, .target, .achieved: another metric or target, or throughput
                   -- at unequal quality, qualifies (when a side states it)
      "fallbacks", -- backend.fallbacks and every request not met (precision included;
                   -- "auto" is met by whatever ran), each named
    },
  },

  -- Noise: a lane is stable with 3 ok runs whose p10..p90 spread is within 5%
  -- of the median; relative changes under 1% are reported as noise.
  -- run_to_run: how much a lane's headline moves between two runs of
  -- unchanged code (standard deviation of log values: 0.03 ~ 3%), weighed as
  -- 20 runs' worth of evidence against the runs at hand. Samples inside a
  -- run (steps) never stand in for it: runs are the unit (docs/statistics.md,
  -- where the figure's origin is documented).
  -- suites: the figure for results of a benchmark suite (their
  -- benchmark.suite), in place of run_to_run. A process of micro-benchmarks
  -- moves more from the one before than a training run between jobs: on the
  -- project's shared 2-core CI machine, each benchmark of 70 unchanged runs
  -- moved by 1.8-6.1% (standard deviation, pooled 3.8-4.2%). Gated one run
  -- against the one before, 5% failed 0-1 of 69 unchanged merges a suite and
  -- found 38-39 of 40 real 30% slowdowns exactly; 3% failed 2-3 (up to 12%
  -- in an earlier session), 8% found 0-28 (benchmarks/stats/
  -- real_declared_noise.py; docs/statistics.md).
  noise = {
    max_rel_spread = 0.05, min_runs = 3, noise_floor = 0.01, run_to_run = 0.03, run_to_run_df = 20,
    suites = {
      ["pytest-benchmark"] = { run_to_run = 0.05 },
      ["google-benchmark"] = { run_to_run = 0.05 },
    },
  },

  -- Gate: fail a merge when the headline metric regresses by more than 3%
  -- and the regression is established against the run-to-run noise (one-
  -- sided p below 2.5%, Benjamini-Hochberg over a gate's tests). "primary" is each
  -- receipt's metrics.primary (tokens_per_s for a step-runner receipt, the
  -- imported benchmark's time for pytest-benchmark or Google Benchmark); both
  -- sides must name the same one. Unit and direction come from the receipts.
  gate = {
    metric = "primary",
    max_regression = 0.03,
    confidence = 0.95,
  },

  -- Lanes whose keys differ in one must-match dimension are adjacent.
  adjacency = { width = 1 },
}
