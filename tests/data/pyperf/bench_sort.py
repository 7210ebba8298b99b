"""bench_sort.py — the pyperf benchmark of tests/data/make_import_data.sh.
MCPP_SLOW=N sorts N times per loop: the regression is extra work."""
import os

import pyperf

REPEAT = int(os.environ.get("MCPP_SLOW", "1"))
DATA = [(i * 2654435761) % 1000003 for i in range(5000)]


def work():
    for _ in range(REPEAT):
        sorted(DATA)


runner = pyperf.Runner()
runner.metadata["description"] = "sorted() of 5000 ints"
runner.bench_func("sort_5000", work)
runner.timeit("join_1000", stmt="','.join(parts)", setup="parts = [str(i) for i in range(1000)]")
