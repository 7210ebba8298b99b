-- test_store.lua — mr.store(location) from a plain lua5.4, on each store given:
--   LUA_CPATH=build/bindings/lua/?.so lua5.4 test_store.lua RECEIPTS_DIR EXTRA_DIR WORK_DIR LOCATION...
-- RECEIPTS_DIR holds the receipts store_test.py writes (two history lanes of 24
-- daily runs with hostile commits, 12 lanes of 3 runs, 84 receipts); EXTRA_DIR a
-- new run (a-new-run.json) and one clashing with lane00-run0 (clash.json). Each
-- LOCATION (a SQLite path or a postgresql:// URL, an empty store) gets the same
-- calls, checked on their own; with two, every answer (results as canonical
-- text, site pages) must be the same from both once the location is taken out.
-- With --damaged first, the stores are the ones those calls left, with a column
-- changed behind the store's back (row lane03-run2's lane_label): check() must
-- raise a "consistency" error naming it, check(true) repair it, check() be ok.
-- Prints "ok - NAME" per check and "N passed, N failed"; exits 1 on a failure.
local damaged = arg[1] == "--damaged"
if damaged then table.remove(arg, 1) end
local receipts_dir, extra_dir, work = arg[1], arg[2], arg[3]
local locations = { table.unpack(arg, 4) }
local lc = dofile((arg[0]:match("^(.*/)") or "./") .. "lua_check.lua")
local check, eq = lc.check, lc.eq

local mr = require "mcpp_receipts"

-- A value as canonical text: keys sorted, so two equal tables give equal text.
local function dump(v, out)
  out = out or {}
  local t = type(v)
  if t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    out[#out + 1] = "{"
    for _, k in ipairs(keys) do
      out[#out + 1] = tostring(k) .. "="
      dump(v[k], out)
      out[#out + 1] = ","
    end
    out[#out + 1] = "}"
  elseif t == "number" and math.type(v) == "float" then
    out[#out + 1] = ("%.17g"):format(v)
  elseif t == "userdata" then
    out[#out + 1] = "receipt " .. v.id
  else
    out[#out + 1] = tostring(v)
  end
  return table.concat(out)
end

local function ids(list)
  local out = {}
  for i, r in ipairs(list) do out[i] = r.id end
  return table.concat(out, " ")
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a")
  f:close()
  return text
end

-- `text` with every `what` (plain text, not a pattern) replaced by `with`.
local function replace_plain(text, what, with)
  return (text:gsub(what:gsub("%p", "%%%0"), (with:gsub("%%", "%%%%"))))
end

local HISTORY_COMMIT = "<b>c0mmit</b>&'%03d"

-- Runs every call on the store at `location`; returns its answers by name.
local function exercise(location, tag)
  local answers = {}
  -- the store's location, as it is and as HTML escapes it, is the one difference allowed
  local function answer(name, value)
    value = replace_plain(value, location, "STORE")
    value = replace_plain(value, (location:gsub("&", "&amp;")), "STORE")
    answers[#answers + 1] = { name, value }
  end
  local function named(what) return tag .. ": " .. what end

  check(named("reading_an_empty_store_raises_the_modules_error_object"), function()
    local s <close> = mr.store(location)
    local ok, err = pcall(s.query, s)
    eq(ok, false, "query of a store never added to")
    eq(type(err), "table", "an error object")
    assert(type(err.code) == "number" and err.code ~= 0 and #err.message > 0, tostring(err))
    assert(tostring(err):find(location:sub(1, 12), 1, true) or tostring(err):find("store", 1, true), tostring(err))
  end)

  local s = mr.store(location)
  check(named("add_a_directory_then_again_is_a_no_op"), function()
    assert(tostring(s):find("mcpp_receipts.store", 1, true), tostring(s))
    eq(s.path, location, "path")
    local r = s:add(receipts_dir)
    eq(r.added, 84, "added")
    eq(r.unchanged, 0, "unchanged")
    r = s:add(receipts_dir)
    eq(r.added, 0, "added again")
    eq(r.unchanged, 84, "unchanged again")
    eq(#s, 84, "#store")
    local live, removed = s:count()
    eq(live, 84, "live")
    eq(removed, 0, "removed")
    r = s:add(s:query { limit = 3 })
    eq(r.unchanged, 3, "a list of receipts the store gave")
    r = s:add(mr.load(receipts_dir .. "/history/history-flat-000.json"))
    eq(r.unchanged, 1, "one receipt")
  end)

  local history
  check(named("query_by_lane_where_dates_limit"), function()
    local all = s:query()
    eq(#all, 84, "every receipt")
    for i = 2, #all do
      local a, b = all[i - 1], all[i]
      assert(a.created_at < b.created_at or (a.created_at == b.created_at and a.id < b.id),
        "ordered by created_at then id at " .. i)
    end
    history = s:history()
    local flat
    for _, lane in ipairs(history.lanes) do
      -- (a lane whose runs all fell back has none in its series: they are set aside)
      if lane.runs[1] and lane.runs[1].id == "history-flat-000" then flat = lane end
    end
    assert(flat, "the flat history lane")
    local by_short = s:query(flat.short_key)
    eq(#by_short, 24, "a lane by its short key")
    eq(ids(s:query { lane = flat.short_key }), ids(by_short), "the same as {lane = ...}")
    eq(#s:query { lane = "seq_len=1024" }, 3 * 3 + 24, "lane KEY=VALUE terms")
    local one = s:query { where = { git_commit = HISTORY_COMMIT:format(5) } }
    eq(ids(one), "history-flat-005 history-step-005", "where as a table")
    local named_lane = s:query { where = "name=NAM56R MoE s1024 top1" }
    eq(ids(named_lane), "lane00-run0 lane00-run1 lane00-run2", "where as text")
    eq(ids(s:query { where = { name = "NAM56R MoE s1024 top1" } }), ids(named_lane), "the same as a table")
    local window = s:query { since = "2026-04-10T00:00:00Z", ["until"] = "2026-04-12T23:59:59Z" }
    eq(#window, 6, "since/until: three days of two history lanes")
    eq(#s:query { since = "2026-04-10", ["until"] = "2026-04-12" }, 6, "since/until as dates: whole days")
    local no_time, why = pcall(s.query, s, { since = "yesterday" })
    eq(no_time, false, "a since that is no time")
    assert(tostring(why):find("since: 'yesterday' is not a time", 1, true), tostring(why))
    local newest = s:query { limit = 5, newest = true }
    eq(#newest, 5, "limit")
    local bad, err = pcall(s.query, s, { lnae = "x" })
    eq(bad, false, "a misspelt key")
    assert(tostring(err):find("unknown key 'lnae'", 1, true), tostring(err))
    answer("query", ids(all))
    answer("query lane", ids(by_short))
    answer("query where", ids(one))
    answer("query since until", ids(window))
    answer("query newest", ids(newest))
  end)

  check(named("export_frontier_claim_history_compare"), function()
    local jsonl = s:export()
    local lines = select(2, jsonl:gsub("\n", ""))
    eq(lines, 84, "jsonl lines")
    local three = s:export("json", { limit = 3 })
    assert(three:match("^%["), "json is an array")
    answer("export jsonl", jsonl)
    answer("export yaml", s:export("yaml", { where = { id = "lane00-run0" } }))

    local f = s:frontier()
    eq(f.schema, "mcpp.frontier/1", "frontier keys")
    eq(f.receipts, 84, "every receipt")
    answer("frontier", dump(f))
    local strict = mr.policy(arg[0]:match("^(.*)/tests/lua/") .. "/policy/strict.lua")
    answer("frontier strict", dump(s:frontier(strict)))
    local lanes = s:frontier(nil, { lane = "seq_len=1024" })
    eq(lanes.receipts, 33, "frontier of a query")
    answer("frontier query", dump(lanes))

    local c = s:claim("seq_len=2048,top_k=8", 400000)
    assert(c.verdict, "claim verdict")
    answer("claim", dump(c))

    eq(#history.lanes, 14, "history lanes")
    answer("history", dump(history))
    answer("history lane metric", dump(s:history("seq_len=2048,top_k=8", "tokens_per_s", { min_segment = 3 })))
    local step
    for _, lane in ipairs(history.lanes) do
      if lane.runs[1] and lane.runs[1].id == "history-step-000" then step = lane end
    end
    eq(#step.changes, 1, "the step lane's change point")
    eq(step.changes[1].run, 12, "at run 12")

    local cmp = s:compare("history-flat-003", "history-flat-004")
    eq(cmp.verdict, "comparable", "compare by id")
    answer("compare", dump(cmp))
    local ok, err = pcall(s.compare, s, "history-flat-003", "no-such-run")
    eq(ok, false, "an unknown id")
    eq(err.status, "notfound", "status")
    assert(tostring(err):find("no-such-run", 1, true), tostring(err))
  end)

  check(named("gate_with_history_and_lane_history"), function()
    local before = { where = { git_commit = HISTORY_COMMIT:format(22) } }
    local earlier = s:lane_history(s:query { where = { id = "history-flat-023" } }, 5)
    eq(ids(earlier), "history-flat-019 history-flat-020 history-flat-021 history-flat-022 history-flat-023",
      "the newest 5 runs of the lane")
    local plain = s:gate(before.where, { git_commit = HISTORY_COMMIT:format(23) })
    local g = s:gate(before.where, { git_commit = HISTORY_COMMIT:format(23) }, nil, { history = 20 })
    eq(g.schema, "mcpp.gate/2", "gate keys")
    eq(#g.candidates, 2, "both history lanes gated")
    local function candidate(report, id)
      for _, c in ipairs(report.candidates) do
        if c.id == id then return c end
      end
    end
    local flat, flat_plain = candidate(g, "history-flat-023"), candidate(plain, "history-flat-023")
    eq(flat.outcome, "passed", "the flat lane's newest commit")
    -- the newest 20 runs of the lane, less the two the gate compares
    assert(flat.reason:find("18 earlier runs of the lane", 1, true), flat.reason)
    assert(not flat_plain.reason:find("earlier runs", 1, true), flat_plain.reason)
    assert(dump(plain) ~= dump(g), "history=20 changes what the gate reports")
    local named_metric = s:gate(before.where, { git_commit = HISTORY_COMMIT:format(23) }, nil,
      { history = 20, metric = "tokens_per_s" })
    eq(candidate(named_metric, "history-flat-023").outcome, "passed", "metric= names the gate's metric")
    local ok, err = pcall(s.gate, s, before.where, { git_commit = HISTORY_COMMIT:format(23) }, nil,
      { metric = "tokens_per_sec" })
    eq(ok, false, "a metric no receipt states")
    assert(tostring(err):find("tokens_per_s", 1, true), tostring(err)) -- did you mean
    local team = lc.policy_file(mr, 'return { include = { "default.lua" }, name = "team", '
      .. 'gate = { metric = "tokens_per_sec" } }\n')
    for what, call in pairs({ gate = function() return s:gate(before.where, {}, team) end,
                              frontier = function() return s:frontier(team) end }) do
      ok, err = pcall(call)
      eq(ok, false, what .. ": a policy file gating on a metric no receipt states")
      assert(tostring(err):find("policy 'team' gates on the metric 'tokens_per_sec'", 1, true)
        and tostring(err):find("did you mean 'tokens_per_s'", 1, true), tostring(err))
    end
    ok, err = pcall(s.gate, s, before.where, {}, nil, { histroy = 3 })
    eq(ok, false, "a misspelt option")
    assert(tostring(err):find("unknown key 'histroy'", 1, true), tostring(err))
    answer("gate history", dump(g))
    answer("lane_history", ids(earlier))
  end)

  check(named("site_written_then_unchanged"), function()
    local dir = work .. "/site-" .. tag
    local r = s:site(dir, { title = "Lua <site>" })
    eq(r.pages, #history.lanes + 3, "pages: index, frontier, gate and the lanes")
    eq(r.written, r.pages, "all written")
    local again = s:site(dir, { title = "Lua <site>" })
    eq(again.written, 0, "nothing written again")
    eq(again.unchanged, r.pages, "every page unchanged")
    local index = read(dir .. "/index.html")
    assert(index:find("Lua &lt;site&gt;", 1, true), "the title, escaped")
    local pages = { "index.html", "frontier.html", "gate.html" }
    for _, lane in ipairs(history.lanes) do pages[#pages + 1] = "lanes/" .. lane.short_key .. ".html" end
    for _, page in ipairs(pages) do
      local text = read(dir .. "/" .. page)
      answer("site " .. page, text)
    end
  end)

  check(named("remove_keeps_a_tombstone_and_a_conflict_adds_nothing"), function()
    s:remove("history-flat-003", "throttled <node>")
    local r = s:add(receipts_dir .. "/history/history-flat-003.json")
    eq(r.skipped_removed, 1, "a removed id is not added again")
    local gone = s:removed()
    eq(#gone, 1, "one tombstone")
    eq(gone[1].id, "history-flat-003", "its id")
    eq(gone[1].reason, "throttled <node>", "its reason")
    eq(#s, 83, "#store after the removal")
    local ok, err = pcall(s.remove, s, "history-flat-003", "again")
    eq(ok, false, "removing it twice")
    eq(err.status, "notfound", "status")
    answer("frontier after removal", dump(s:frontier()))

    local new, clash = mr.load(extra_dir .. "/a-new-run.json"), mr.load(extra_dir .. "/clash.json")
    ok, err = pcall(s.add, s, { new, clash })
    eq(ok, false, "a conflicting id")
    eq(err.kind, "consistency", "kind")
    assert(tostring(err):find("lane00-run0", 1, true), tostring(err))
    eq(#s:query { where = { id = "a-new-run" } }, 0, "the whole add keeps nothing")
    ok, err = pcall(s.add, s, extra_dir .. "/no-such-file.json")
    eq(ok, false, "a missing path")
    assert(tostring(err):find("no-such-file.json", 1, true), tostring(err))
  end)

  check(named("check_reports_ok"), function()
    local report = s:check()
    assert(report:find("ok\n$"), report)
    answer("check", (report:gsub("schema version %d+", "schema version N")))
  end)

  check(named("close_then_use_raises"), function()
    s:close()
    assert(tostring(s):find("(closed)", 1, true), tostring(s))
    local ok, err = pcall(s.query, s)
    eq(ok, false, "a closed store")
    assert(tostring(err):find("closed", 1, true), tostring(err))
    s:close() -- twice is harmless
    do
      local again <close> = mr.store(location)
      eq(#again, 83, "a new handle reads what the first wrote")
    end
  end)
  return answers
end

local function check_damaged(location, tag)
  check(tag .. ": check_raises_a_consistency_error_naming_the_row_and_repair_mends_it", function()
    local s <close> = mr.store(location)
    local ok, err = pcall(s.check, s)
    eq(ok, false, "check of a damaged store")
    eq(err.kind, "consistency", "kind")
    local text = tostring(err)
    assert(text:find("the store is damaged", 1, true) and text:find("lane03-run2", 1, true)
      and text:find("lane_label", 1, true), text)
    local report = s:check(true)
    assert(report:find("ok\n$"), report)
    assert(s:check():find("ok\n$"), "ok after the repair")
  end)
end

if damaged then
  for _, location in ipairs(locations) do
    check_damaged(location, location:match("^postgres") and "postgresql" or "sqlite")
  end
  lc.finish()
end

-- A password in a URL is for libpq, not for a script's output or a CI log.
check("a_password_in_a_url_is_never_shown", function()
  local url = "postgresql://alice:s3cret@db.example:5432/receipts?password=hunter2&sslmode=require"
  local s = mr.store(url)
  local text = tostring(s)
  assert(not text:find("s3cret", 1, true) and not text:find("hunter2", 1, true), text)
  assert(text:find("postgresql://alice@db.example:5432/receipts?password=***&sslmode=require", 1, true), text)
  eq(s.path, url, "path, as given")
end)

local all = {}
for i, location in ipairs(locations) do
  all[i] = exercise(location, location:match("^postgres") and "postgresql" or "sqlite")
end

if #locations == 2 then
  local a, b = all[1], all[2]
  check("both_backends_gave_every_answer", function()
    eq(#a, #b, "answers")
    assert(#a >= 20, "answers: " .. #a)
  end)
  for i = 1, math.min(#a, #b) do
    check("same_answer_from_both_backends: " .. a[i][1], function()
      eq(b[i][1], a[i][1], "the same question")
      if a[i][2] ~= b[i][2] then
        local x, y = a[i][2], b[i][2]
        local at = 1
        while x:sub(at, at) == y:sub(at, at) do at = at + 1 end
        error(("differ at byte %d:\n  %s: %s\n  %s: %s"):format(at, locations[1], x:sub(at, at + 120),
          "postgresql", y:sub(at, at + 120)))
      end
    end)
  end
end

lc.finish()
