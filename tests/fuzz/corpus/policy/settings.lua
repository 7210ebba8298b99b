return { noise = { min_runs = 3 }, gate = { max_regression = 0.05 } }
