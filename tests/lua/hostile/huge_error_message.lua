-- a 10 MB error message is cut to one line
error(string.rep("x", 10000000))
