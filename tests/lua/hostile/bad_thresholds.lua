-- nonsensical thresholds
return {
  gate = { confidence = 1.5 },
}
