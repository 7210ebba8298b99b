-- a policy must return a table
return 42
