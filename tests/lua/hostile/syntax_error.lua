-- a syntax error, reported with its line
return {
  name = "broken",,
}
