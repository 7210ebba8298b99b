-- debug is not in the sandbox
debug.sethook()
return debug.getregistry()
