-- collectgarbage is not in the sandbox
collectgarbage("stop")
return {}
