-- lua_check.lua — what the Lua module's test scripts share (test_module.lua,
-- test_store.lua), loaded with dofile from beside them:
--   check(name, fn)   runs fn, prints "ok - NAME" or "not ok - NAME: error"
--   eq(a, b, what)    raises "WHAT: expected B, got A" unless a == b
--   finish()          prints "N passed, N failed" and exits 1 on a failure
--                     (closing the state: receipts are freed by __gc)
--   policy_file(mr, text)  a policy loaded from `text` written to a
--                     temporary .lua file (removed once loaded)
local M = { passed = 0, failed = 0 }

function M.check(name, fn)
  local ok, err = pcall(fn)
  if ok then
    M.passed = M.passed + 1
    print("ok - " .. name)
  else
    M.failed = M.failed + 1
    print("not ok - " .. name .. ": " .. tostring(err))
  end
end

function M.eq(a, b, what)
  if a ~= b then error(("%s: expected %s, got %s"):format(what or "value", tostring(b), tostring(a)), 2) end
end

function M.finish()
  print(("%d passed, %d failed"):format(M.passed, M.failed))
  os.exit(M.failed == 0 and 0 or 1, true)
end

function M.policy_file(mr, text)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  local ok, policy = pcall(mr.policy, path)
  os.remove(path)
  if not ok then error(policy, 2) end
  return policy
end

return M
