-- rawset/rawget are not in the sandbox
rawset(string, "rep", nil)
return {}
