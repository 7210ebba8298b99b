-- a typo in a key is an error, not silently ignored
return {
  name = "typo",
  nosie = { min_runs = 3 },
}
