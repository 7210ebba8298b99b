-- policy/ablation.lua — for ablations: measuring the tax of one feature
-- (a speculative-decoding head, an auxiliary loss, a debug hook) as a number,
-- the way the engineering notes do: the same lane with the feature on and off.
--
-- Everything of default.lua, except `features`, which only qualifies: a pair
-- that differs in one feature is compared (qualified, the feature named) and
-- the gate's change is the feature's tax. A feature stated false is off, the
-- same as not stated (default.lua's rule too). Two or more features toggled at
-- once are still not comparable (the one_feature_at_a_time rule): their taxes
-- cannot be told apart.
--
-- `policy check` lists the weakened `features` dimension as a warning on
-- purpose; a lane key under this policy leaves features out, so keep an
-- ablation's receipts apart from the frontier you publish.
-- A receipt's features reach a rule as their canonical JSON text, a flat
-- object of true, false, numbers and strings: read into a table.
local function feature_table(text)
  local t = {}
  if type(text) ~= "string" then return t end
  for name, value in text:gmatch('"([^"]*)":"([^"]*)"') do t[name] = '"' .. value .. '"' end
  for name, value in text:gmatch('"([^"]*)":([%w%.%-%+]+)') do t[name] = value end
  return t
end

local function on(features, name)
  local v = features[name]
  return v ~= nil and v ~= "false"
end

return {
  include = { "default.lua" },
  name = "ablation",
  version = 1,

  dimensions = {
    qualify = { "features" },
  },

  rules = {
    {
      name = "one_feature_at_a_time",
      fn = function(base, cand)
        local fb, fc = feature_table(base.features), feature_table(cand.features)
        local differ, seen = {}, {}
        for _, t in ipairs({ fb, fc }) do
          for name in pairs(t) do
            if not seen[name] then
              seen[name] = true
              if (on(fb, name) or on(fc, name)) and fb[name] ~= fc[name] then
                differ[#differ + 1] = name
              end
            end
          end
        end
        if #differ > 1 then
          table.sort(differ)
          return "mismatch", ("%d features differ (%s): an ablation toggles one at a time"):format(
            #differ, table.concat(differ, ", "))
        end
        return nil
      end,
    },
  },
}
