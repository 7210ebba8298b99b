-- an error object whose __tostring loops: the engine never calls it
error(setmetatable({}, { __tostring = function() while true do end end }))
