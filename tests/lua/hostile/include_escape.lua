-- includes resolve next to this file only: no ".."
return { include = { "../../../policy/default.lua" } }
