-- a 4 MB error message is cut to one line
error(string.rep("x", 4000000))
