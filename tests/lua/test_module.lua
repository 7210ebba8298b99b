-- test_module.lua — the Lua module from a plain lua5.4:
--   LUA_CPATH=build/bindings/lua/?.so lua5.4 test_module.lua EXAMPLES_RECEIPTS_DIR POLICY_DIR
-- Prints "ok - NAME" per check and "N passed, N failed"; exits 1 on a failure.
local examples, policies = arg[1], arg[2]
local lc = dofile((arg[0]:match("^(.*/)") or "./") .. "lua_check.lua")
local check, eq = lc.check, lc.eq

local mr = require "mcpp_receipts"

check("module_reports_version_and_schema", function()
  eq(type(mr.version), "string")
  eq(mr.schema, "mcpp.receipt/2")
end)

local padded = mr.load(examples .. "/nam56r_padded.json")
local run2 = mr.load(examples .. "/nam56r_padded_run2.json")
local jagged = mr.load(examples .. "/nam56r_jagged_graph_breaks.json")

check("schema2_fields_and_named_metrics", function()
  local mlperf = mr.load(examples .. "/schema2/mlperf_llama2_70b_lora.json")
  eq(mlperf.benchmark.suite, "mlperf-training", "benchmark.suite")
  eq(mlperf["backend.precision.observed"], "bf16+fp8_e4m3", "precision.observed")
  eq(mlperf.lane.d_model, 8192, "lane.d_model")
  eq(mlperf:get("features.fused_rope"), true, "features.fused_rope")
  eq(padded.lane.blocks.E, 22, "lane.blocks.E")
  local t = mlperf:metric("time_to_train")
  eq(t.unit, "min", "unit")
  eq(t.direction, "lower", "direction")
  eq(t.value, 24.31, "value")
  eq(#t.samples, 1, "samples")
  local tps = padded:metric("tokens_per_s")
  eq(tps.unit, "tokens/s", "tokens_per_s unit")
  eq(tps.well_known, true, "well_known")
  eq(padded:metric("step_time_s").sample_kind, "step", "step sample kind")
  eq(mlperf:metric("tokens_per_s"), nil, "absent metric")
end)

check("receipt_fields_read_by_section_by_dotted_path_and_by_get", function()
  eq(padded.id, "nam56r-padded-2026-03-14-run1", "id")
  eq(padded.lane.pattern, "AEMEAEMEAEMR", "lane.pattern")
  eq(padded["routing.top_k"], 6, "routing.top_k")
  eq(padded:get("workload.seq_len"), 4096, "seq_len")
  eq(jagged.backend.moe.observed, "jagged", "backend.moe.observed")
  eq(jagged.compile.graph_breaks, 3, "graph_breaks")
  eq(type(padded.metrics.step_time_s.samples), "table", "samples")
  eq(#padded.metrics.step_time_s.samples, 16, "sample count")
  eq(padded.status.blocker, nil, "absent field is nil")
end)

check("unknown_field_and_writes_are_errors", function()
  local ok, err = pcall(function() return padded.lane.patern end)
  eq(ok, false, "unknown field")
  assert(tostring(err):find("lane.patern", 1, true), err)
  ok, err = pcall(function() padded.lane = 1 end)
  eq(ok, false, "write")
  assert(tostring(err):find("read-only", 1, true), err)
end)

check("tostring_names_the_receipt", function()
  assert(tostring(padded):find("nam56r-padded-2026-03-14-run1", 1, true), tostring(padded))
end)

check("loads_parses_text_and_json_round_trips", function()
  local text = padded:json()
  local again = mr.loads(text, "json")
  eq(again:json(), text, "canonical JSON round trip")
  eq(again.id, padded.id)
  local ok, err = pcall(mr.loads, "{\"schema\": \"mcpp.receipt/2\", \"bogus\": 1}", "json")
  eq(ok, false, "invalid receipt")
  assert(#tostring(err) > 0)
end)

check("compare_gives_verdict_rows_metric_and_gate", function()
  local r = mr.compare(padded, run2)
  eq(r.verdict, "comparable")
  eq(r.base, padded.id)
  eq(r.schema, "mcpp.compare/1", "the JSON renderer's keys")
  assert(#r.dimensions >= 10, "dimensions")
  eq(r.dimensions[1].name, "benchmark") -- not applicable to model runs: a match row that says so
  eq(r.dimensions[2].name, "pattern")
  eq(r.dimensions[2].status, "match")
  assert(r.metric and r.metric.name == "tokens_per_s" and r.metric.unit == "tokens/s", "metric")
  assert(#r.metric.interval == 2 and r.metric.interval[1] <= r.metric.interval[2], "interval")
  eq(r.gate.outcome, "passed")
  assert(r.text:find("comparable", 1, true), "rendered text")
  eq(mr.compare(padded, jagged).verdict, "not_comparable")
end)

check("policy_files_load_and_change_the_verdict", function()
  local cold = mr.load(examples .. "/nam56r_cold_boot.json")
  local strict = mr.policy(policies .. "/strict.lua")
  eq(strict.name, "strict")
  eq(#strict.rules, 2, "rules")
  local by_name = mr.policy("strict") -- a shipped policy by its name, as --policy strict
  eq(by_name.name, "strict")
  eq(#by_name.rules, 2, "rules")
  eq(mr.compare(padded, cold, by_name).verdict, mr.compare(padded, cold, strict).verdict)
  eq(mr.compare(padded, cold).verdict, "qualified")
  eq(mr.compare(padded, cold, mr.default_policy()).verdict, "qualified")
  eq(mr.compare(padded, cold, strict).verdict, "not_comparable")
  assert(tostring(strict):find("strict", 1, true))
  local roles = {}
  for _, d in ipairs(strict.dimensions) do roles[d.name] = d.role end
  eq(roles.startup, "must_match")
  eq(roles.hardware, "must_match")
end)

check("hostile_policy_is_a_lua_error_not_a_crash", function()
  local ok, err = pcall(mr.policy, policies .. "/../tests/lua/hostile/infinite_loop.lua")
  eq(ok, false)
  assert(tostring(err):find("instruction budget", 1, true), err)
end)

check("frontier_labels_lanes", function()
  local list = {}
  for _, name in ipairs({ "nam56r_padded", "nam56r_padded_run2", "nam56r_padded_run3",
                          "nam56r_jagged_graph_breaks", "nam52_dense" }) do
    list[#list + 1] = mr.load(examples .. "/" .. name .. ".json")
  end
  local f = mr.frontier(list)
  assert(#f.lanes >= 3, "lanes: " .. #f.lanes)
  eq(f.schema, "mcpp.frontier/1", "the JSON renderer's keys")
  local stable, n_stable = nil, 0
  for _, lane in ipairs(f.lanes) do
    if lane.status == "stable" then stable, n_stable = lane, n_stable + 1 end
  end
  eq(n_stable, 1, "stable lanes")
  eq(#stable.receipts, 3, "runs in the stable lane")
  assert(stable.headline and stable.headline.median > 0, "headline")
  assert(f.text:find("stable", 1, true), "rendered text")
  -- the padded and jagged lanes share lane.name; their display labels say what differs
  local labels = {}
  for _, lane in ipairs(f.lanes) do labels[lane.display_label] = lane.differences end
  eq(labels["NAM56R hybrid MoE lane (moe=padded)"], "moe=padded", "padded lane's display label")
  eq(labels["NAM56R hybrid MoE lane (moe=jagged)"], "moe=jagged", "jagged lane's display label")
  assert(f.text:find("NAM56R hybrid MoE lane (moe=jagged)", 1, true), "text shows the display label")
end)

check("claim_with_a_selector_matching_several_lanes_is_ambiguous", function()
  local run3 = mr.load(examples .. "/nam56r_padded_run3.json")
  local list = { padded, run2, run3, jagged }
  local c = mr.claim(list, "family=NAM56R", 395476)
  eq(c.verdict, "ambiguous", "verdict")
  eq(#c.matched, 2, "matched lanes")
  assert(c.reason:find("narrow the selector by backend", 1, true), c.reason)
  eq(mr.claim(list, "family=NAM56R,moe=padded", 395476).verdict, "supported", "narrowed")
end)

check("gate_explains_each_candidate_with_lane_baseline_files_and_blockers", function()
  local run3 = mr.load(examples .. "/nam56r_padded_run3.json")
  -- jagged: a run its tool marked partial (status.outcome), so it never counts:
  -- left out and named; run3 alone is gated (2+1 runs: inconclusive, exit 0)
  local g = mr.gate({ padded, run2 }, { run3, jagged })
  eq(g.schema, "mcpp.gate/2", "schema")
  eq(g.outcome, "inconclusive", "outcome")
  eq(g.exit_code, 0, "exit_code")
  local ok, other = g.candidates[1], g.candidates[2]
  eq(ok.outcome, "inconclusive", "run3 outcome: 2+1 runs cannot rule out +6%")
  eq(ok.lane.label, "NAM56R hybrid MoE lane", "lane label")
  eq(#ok.pooled, 2, "pooled baselines")
  assert(ok.pooled[1].path:find("nam56r_padded.json", 1, true), "pooled baseline path")
  assert(ok.path:find("nam56r_padded_run3.json", 1, true), "candidate path")
  eq(#ok.metrics, 1, "one metric in metrics")
  assert(ok.metric.change:find("^better by") or ok.metric.change:find("^worse by")
         or ok.metric.change == "unchanged", ok.metric.change)
  eq(other.reason_code, "candidate_not_ok", "jagged reason code")
  eq(other.outcome, "undetermined", "a partial run is never gated")
  eq(g.left_out[1].id, jagged.id, "named among the runs left out")
  eq(g.left_out[1].status, "partial", "with its status")
  assert(g.text:find("1 candidate run left out", 1, true), "text")
  eq(#g.skipped, 0, "nothing skipped")
end)

check("a_misspelt_metric_or_selector_value_is_an_error_with_a_suggestion", function()
  local run3 = mr.load(examples .. "/nam56r_padded_run3.json")
  for name, call in pairs({
    gate = function() return mr.gate({ padded, run2 }, { run3 }, nil, "tokens_per_sec") end,
    compare = function() return mr.compare(padded, run2, nil, "tokens_per_sec") end,
    frontier = function() return mr.frontier({ padded, run2 }, nil, "tokens_per_sec") end,
    claim = function() return mr.claim({ padded, run2, run3 }, "moe=paded", 395476) end,
  }) do
    local ok, err = pcall(call)
    assert(not ok, name .. " accepted a misspelt name")
    assert(tostring(err.message or err):find("did you mean", 1, true), name .. ": " .. tostring(err.message or err))
  end
end)

check("a_policy_file_gating_on_a_misspelt_metric_gets_the_same_suggestion", function()
  local run3 = mr.load(examples .. "/nam56r_padded_run3.json")
  local team = lc.policy_file(mr, 'return { include = { "default.lua" }, name = "team", '
    .. 'gate = { metric = "tokens_per_sec" } }\n')
  for name, call in pairs({
    gate = function() return mr.gate({ padded, run2 }, { run3 }, team) end,
    compare = function() return mr.compare(padded, run2, team) end,
    frontier = function() return mr.frontier({ padded, run2 }, team) end,
  }) do
    local ok, err = pcall(call)
    assert(not ok, name .. " gated on a metric no receipt states")
    local text = tostring(err.message or err)
    assert(text:find("policy 'team' gates on the metric 'tokens_per_sec'", 1, true)
      and text:find("did you mean 'tokens_per_s'", 1, true), name .. ": " .. text)
  end
  -- the metric named in the call still wins over the policy's
  eq(mr.compare(padded, run2, team, "tokens_per_s").verdict ~= nil, true, "an explicit metric")
end)

check("metric_argument_applies_to_one_call_and_leaves_the_policy_as_it_was", function()
  local run3 = mr.load(examples .. "/nam56r_padded_run3.json")
  local strict = mr.policy(policies .. "/strict.lua")
  local rules = #strict.rules
  assert(rules >= 1, "strict.lua has rules")
  local c = mr.compare(padded, run2, strict, "peak_memory_gib")
  eq(c.metric.name, "peak_memory_gib", "compare metric")
  eq(c.metric.point_comparison, false, "one value a side, against strict.lua's declared run-to-run noise")
  eq(c.metric.noise.source, "policy", "the noise source is named")
  local rule_rows = 0
  for _, d in ipairs(c.dimensions) do if d.role == "rule" then rule_rows = rule_rows + 1 end end
  eq(mr.compare(padded, run2, strict).metric.name, "tokens_per_s", "the policy still gates on its own metric")
  eq(#mr.compare(padded, run2, strict).dimensions, #c.dimensions, "the clone has the policy's rows, rules included")
  eq(#strict.rules, rules, "rules unchanged")
  eq(mr.compare(padded, run2, nil, "peak_memory_gib").metric.name, "peak_memory_gib", "default policy, metric")
  local f = mr.frontier({ padded, run2, run3 }, nil, "peak_memory_gib")
  eq(f.lanes[1].headline.metric, "peak_memory_gib", "frontier headline")
  eq(mr.frontier({ padded, run2, run3 }).lanes[1].headline.metric, "tokens_per_s", "frontier default")
  local g = mr.gate({ padded, run2 }, { run3 }, strict, "peak_memory_gib")
  eq(g.candidates[1].metrics[1].name, "peak_memory_gib", "gate metric")
  eq(g.metric, "peak_memory_gib", "gate report metric")
  eq(mr.gate({ padded, run2 }, { run3 }, strict).candidates[1].metrics[1].name, "primary", "gate default")
  local cl = mr.claim({ padded, run2, run3 }, "moe=padded", 71.3, nil, "peak_memory_gib")
  eq(cl.metric, "peak_memory_gib", "claim metric")
  local ok, err = pcall(mr.compare, padded, run2, strict, "")
  eq(ok, false, "an empty metric is refused")
  assert(tostring(err):find("metric name must not be empty", 1, true), tostring(err))
  eq(mr.compare(padded, run2, strict).metric.name, "tokens_per_s", "a refused metric changes nothing")
end)

check("claim_says_how_far_the_quoted_number_is_in_words", function()
  local run3 = mr.load(examples .. "/nam56r_padded_run3.json")
  local c = mr.claim({ padded, run2, run3 }, "moe=padded", 300000)
  eq(c.verdict, "contradicted", "verdict")
  assert(c.reason:find("the claimed value is worse by", 1, true), c.reason)
end)

check("two_different_runs_with_one_id_are_a_conflict", function()
  local text = run2:json():gsub('"tokens_per_s": [0-9.]+', '"tokens_per_s": 1'):gsub('"useful_tokens_per_step": [0-9]+,', '')
  local other = mr.loads(text)
  local ok, err = pcall(mr.frontier, { padded, run2, other })
  eq(ok, false)
  assert(tostring(err.message or err):find("conflict: receipt 'nam56r-padded-2026-03-14-run2'", 1, true), tostring(err))
  eq(mr.frontier({ padded, run2, mr.loads(run2:json()) }).duplicates, 1, "the same run twice is one run")
end)

check("close_frees_now_and_closed_receipt_refuses_use", function()
  local r = mr.load(examples .. "/nam52_dense.json")
  do
    local c <close> = r
  end
  local ok, err = pcall(function() return r.id end)
  eq(ok, false)
  assert(tostring(err):find("closed", 1, true), err)
  assert(tostring(r):find("closed", 1, true))
end)

check("load_of_a_missing_file_is_an_error", function()
  local ok, err = pcall(mr.load, examples .. "/no_such_receipt.json")
  eq(ok, false)
  assert(tostring(err):find("no_such_receipt", 1, true), err)
end)

check("render_gives_the_show_text_json_and_markdown", function()
  local text = padded:render()
  assert(text:find("^Receipt\n  file"), text)
  assert(text:find("requested", 1, true), "requested/observed columns")
  eq(padded:render("json"), padded:json())
  assert(padded:render("markdown"):find("^```text\n"), "markdown is fenced")
  eq(pcall(padded.render, padded, "html"), false)
end)

check("policy_test_runs_a_case_file_with_the_json_keys", function()
  local cases = policies .. "/tests/default.cases.json"
  local r = mr.policy_test(mr.policy(policies .. "/default.lua"), cases)
  eq(r.schema, "mcpp.policy-test/1")
  assert(r.total > 0 and r.total == #r.cases, "cases")
  eq(r.failed, 0)
  eq(r.cases[1].passed, true)
  assert(r.text:find("^ok   1 "), r.text)
  local wrong = mr.policy_test(mr.policy(policies .. "/cross_hardware.lua"), cases)
  assert(wrong.failed > 0, "the cases catch the wrong policy")
  local failing
  for _, c in ipairs(wrong.cases) do if not c.passed then failing = c end end
  assert(failing.failures and #failing.rows > 0, "a failed case says why")
  local ok, err = pcall(mr.policy_test, nil, examples .. "/no_such_cases.json")
  eq(ok, false)
  assert(tostring(err):find("no_such_cases", 1, true), err)
end)

-- Errors are objects: kind, code, status and message, and tostring() is the message.
check("errors_are_objects_with_kind_code_and_message", function()
  local ok, err = pcall(mr.load, examples .. "/no_such_receipt.json")
  eq(ok, false)
  eq(type(err), "table")
  eq(err.kind, "io")
  eq(math.type(err.code), "integer")
  assert(err.code < 0)
  eq(tostring(err), err.message)
  ok, err = pcall(function() return padded.lane.patern end)
  eq(err.kind, "unknown_field")
  eq(err.field, "lane.patern")
  ok, err = pcall(mr.loads, "{\"schema\": \"mcpp.receipt/1\",", "json")
  eq(type(err.line), "number")
  eq(err.kind, "syntax")
end)

-- The hostile corpus of the sandbox (tests/lua/hostile): every bound gives a
-- "policy_limit" error naming the rule and the bound, well within 2 s.
local hostile = policies .. "/../tests/lua/hostile"
local function cpu_seconds(fn)
  local start = os.clock()
  local ok, err = pcall(fn)
  return os.clock() - start, ok, err
end

check("hostile_load_time_policies_fail_fast_with_policy_errors", function()
  for _, name in ipairs({ "find_plain_megabytes", "rep_loop", "sort_loop", "pattern_loop",
                          "concat_loop", "sort_long_strings", "len_metamethod_shift" }) do
    local took, ok, err = cpu_seconds(function() return mr.policy(hostile .. "/" .. name .. ".lua") end)
    eq(ok, false, name)
    assert(took < 2, name .. " took " .. took .. " s")
    assert(err.kind == "policy_limit" or err.kind == "policy", name .. ": " .. tostring(err.kind))
    assert(tostring(err):find(name, 1, true), tostring(err))
  end
end)

check("hostile_rules_fail_the_comparison_naming_the_rule", function()
  for _, name in ipairs({ "rule_hangs_in_c", "rule_loops", "rule_memory" }) do
    local p = mr.policy(hostile .. "/rules/" .. name .. ".lua")
    local took, ok, err = cpu_seconds(function() return mr.compare(padded, run2, p) end)
    eq(ok, false, name)
    assert(took < 2, name .. " took " .. took .. " s")
    eq(err.kind, "policy_limit", name)
    assert(err.message:find("rule '", 1, true), err.message)
  end
end)

check("a_rule_just_under_the_call_budget_is_stopped_by_the_total_over_400_calls", function()
  local p = mr.policy(hostile .. "/gate/just_under_budget.lua")
  local took, ok, err = cpu_seconds(function()
    for _ = 1, 20 do for _ = 1, 20 do mr.compare(padded, run2, p) end end
  end)
  eq(ok, false)
  assert(took < 2, "took " .. took .. " s")
  assert(err.message:find("rule 'slow' stopped: the policy used up its total time budget of 1500 ms", 1, true),
    err.message)
end)

-- docs/statistics.md: one estimator gives the headline and its interval, so
-- over random run sets the change lies inside its interval and the printed
-- bounds run low to high, in the tables and in the text.
check("the_headline_lies_inside_its_interval_and_bounds_print_low_to_high", function()
  local text = padded:json()
  local function run(id, gib)
    local t = text:gsub('"id": *"[^"]*"', '"id": "' .. id .. '"', 1)
    t = t:gsub('"peak_memory_gib": *[%d%.eE+-]+', ('"peak_memory_gib": %.6f'):format(gib), 1)
    return mr.loads(t, "json")
  end
  math.randomseed(2026)
  local checked = 0
  for trial = 1, 40 do
    local bs, cs, shift = {}, {}, 0.6 + 0.8 * math.random()
    for i = 1, math.random(1, 4) do bs[#bs + 1] = run(("b%d-%d"):format(trial, i), 70 * (0.95 + 0.1 * math.random())) end
    for i = 1, math.random(1, 3) do
      cs[#cs + 1] = run(("c%d-%d"):format(trial, i), 70 * shift * (0.95 + 0.1 * math.random()))
    end
    local g = mr.gate(bs, cs, nil, "peak_memory_gib")
    for _, c in ipairs(g.candidates) do
      local m = c.metric
      assert(m.interval[1] <= m.rel_delta and m.rel_delta <= m.interval[2], c.reason)
      eq(m.noise.runs_base, #bs, "runs, not samples")
      checked = checked + 1
    end
    for lo, hi in g.text:gmatch("interval ([%-%+%d%.]+)%% %.%. ([%-%+%d%.]+)%%") do
      assert(tonumber(lo) <= tonumber(hi), g.text)
    end
  end
  assert(checked >= 40, "every trial compared")
end)

check("time_limits_are_arguments_of_policy", function()
  local p = mr.policy(hostile .. "/rules/rule_hangs_in_c.lua", { time_limit_ms = 30, total_time_limit_ms = -1 })
  local ok, err = pcall(mr.compare, padded, run2, p)
  eq(ok, false)
  assert(err.message:find("time limit of 30 ms per call", 1, true), err.message)
  ok, err = pcall(mr.policy, hostile .. "/rules/rule_loops.lua", { time_limit_ms = 0 })
  eq(ok, false)
end)

-- Text from a receipt, a policy or an error is escaped exactly as the CLI
-- prints it (issue 28: tostring(receipt) and policy errors sent raw ESC/BEL).
local RAW = "[%z\1-\8\11-\31\127]"
check("tostring_and_errors_escape_control_characters_as_the_cli_does", function()
  local f = assert(io.open(examples .. "/nam56r_padded.json"))
  local text = f:read("a")
  f:close()
  local hostile = "run\27]0;pwned\7\27[31mred"
  local doc = text:gsub('"id": "[^"]*"', '"id": "run\\u001b]0;pwned\\u0007\\u001b[31mred"', 1)
  local r = mr.loads(doc)
  eq(r.id, hostile, "the value itself is kept as it is")
  local shown = tostring(r)
  assert(not shown:find(RAW), shown)
  assert(shown:find("run\\x1B]0;pwned\\x07\\x1B[31mred", 1, true), shown)
  local ok, err = pcall(mr.loads, (doc:gsub('"top_k"', '"top\\u001b[2Jk"', 1)))
  eq(ok, false, "an unknown field fails")
  assert(not tostring(err):find(RAW), tostring(err))
  assert(tostring(err):find("top\\x1B[2Jk", 1, true), tostring(err))
  local path = os.tmpname()
  local pf = assert(io.open(path, "w"))
  pf:write('return { name = "p", version = 1, dimensions = { ["x\\27[31m"] = { role = "bogus" } } }\n')
  pf:close()
  local ok2, perr = pcall(mr.policy, path)
  os.remove(path)
  eq(ok2, false, "a broken policy fails")
  assert(not tostring(perr):find(RAW), tostring(perr))
  assert(tostring(perr):find("unknown key 'x\\x1B[31m'", 1, true), tostring(perr))
end)

-- A host script may switch to a comma-decimal locale; the library's numbers
-- must not follow it (docs/output-safety.md).
if os.setlocale("de_DE.UTF-8") then
  check("numbers_are_locale_independent_under_a_comma_locale", function()
    eq(tostring(1.5), "1,5", "the interpreter itself uses the comma locale")
    local y = mr.load(examples .. "/nam56r_padded.yaml")
    eq(y["routing.capacity_factor"] == 1.25, true, "capacity_factor read from YAML")
    assert(y:json():find('"capacity_factor": 1.25', 1, true), "JSON holds 1.25")
    local c = mr.compare(y, run2)
    assert(not c.text:find("%d,%d"), "no decimal comma in the comparison text")
    eq(os.setlocale(nil), "de_DE.UTF-8", "the host's locale is left as it was")
  end)
  os.setlocale("C")
else
  print("skip - numbers_are_locale_independent_under_a_comma_locale: locale de_DE.UTF-8 is not installed "
        .. "(scripts/install-deps.sh generates it)")
end

lc.finish() -- closes the state: receipts are freed by __gc
