-- dofile/loadfile are not in the sandbox
return dofile("/etc/passwd")
