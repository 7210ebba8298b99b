-- io is not in the sandbox
local f = io.open("/etc/passwd")
return { name = f:read("a") }
