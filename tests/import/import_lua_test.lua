-- import_lua_test.lua — mr.import from a plain lua5.4: the MLPerf fixtures as
-- receipts, the same ids twice, and a malformed input raising FILE:LINE; the
-- other formats of the registry (go-bench, mlperf-inference, pyperf) by name, and an
-- import told its commit.
-- usage: lua5.4 import_lua_test.lua MLPERF_FIXTURES WORK_DIR
local mr = require "mcpp_receipts"
local fixtures, work = arg[1], arg[2]
local fails = 0
local function check(name, cond, detail)
  if cond then print("ok - " .. name) else fails = fails + 1; print("not ok - " .. name .. " " .. tostring(detail)) end
end

local rs = mr.import("mlperf", fixtures .. "/Dell")
check("three_dell_runs", #rs == 3, #rs)
check("benchmark_and_system", rs[1].benchmark.name == "dlrm_dcnv2" and
      rs[1].benchmark.system == "2xXE8640x4H100-SXM-80GB", rs[1].benchmark.system)
check("count_is_nodes_times_per_node", rs[1].hardware.observed.count == 8, rs[1].hardware.observed.count)
local again = mr.import("mlperf", { fixtures .. "/Dell/results" })
check("same_ids_on_reimport", again[1].id == rs[1].id and again[3].id == rs[3].id, again[1].id)

local bad = work .. "/not_a_log.txt"
os.execute("mkdir -p '" .. work .. "'")
local f = assert(io.open(bad, "w"))
f:write(':::MLLOG {"key": "run_start", "time_ms": 1}\n:::MLLOG {"key": "run_stop", "time_')
f:close()
local ok, err = pcall(mr.import, "mlperf", { bad }, work .. "/out")
check("truncated_log_raises_file_and_line", not ok and err:find("not_a_log.txt:2:", 1, true), err)
check("nothing_written", io.open(work .. "/out", "r") == nil)
-- the formats of the importer registry all come through the same entry point
local data = fixtures .. "/.."
local go = mr.import("go-bench", { data .. "/go/base.txt", data .. "/go/base.jsonl" })
check("go_bench_text_and_json_through_the_registry", #go == 6 and go[1].benchmark.suite == "go-bench", #go)
local told = mr.import("go-bench", data .. "/go/base.txt", nil, "0123456789abcdef")
check("go_bench_told_its_commit_names_it", #told == 3 and told[1].source.git_commit == "0123456789abcdef" and
      go[1].source.git_commit == nil, told[1].source.git_commit)
local ok4, err4 = pcall(mr.import, "asv", data .. "/asv/base/results", nil, "0123456789abcdef")
check("asv_told_another_commit_than_it_names_raises", not ok4 and err4:find("the input names commit", 1, true), err4)
local inf = mr.import("mlperf-inference", data .. "/mlperf-inference/base")
check("mlperf_inference_through_the_registry", #inf == 2 and inf[1].benchmark.name == "sort2000", #inf)
local ok3, err3 = pcall(mr.import, "pyperf", data .. "/hyperfine/base.json")
check("pyperf_refuses_hyperfine_json_naming_line_1", not ok3 and err3:find("base.json:1:1: not pyperf JSON", 1, true), err3)
-- '_' never names a format (import.h): "csv" would break the day a csv importer lands
local ok2, err2 = pcall(mr.import, "no_such_format", bad)
check("unknown_format_is_an_argument_error", not ok2 and err2:find("unknown import format", 1, true), err2)
print("# " .. fails .. " failed")
os.exit(fails == 0 and 0 or 1)
