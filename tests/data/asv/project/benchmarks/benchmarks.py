"""The asv benchmarks of tests/data/make_import_data.sh. MCPP_SLOW=N sorts N
times per call: the regression is extra work, never an edited number."""
import os

REPEAT = int(os.environ.get("MCPP_SLOW", "1"))


class SortSuite:
    params = [1000, 10000]
    param_names = ["n"]

    def setup(self, n):
        self.data = [(i * 2654435761) % 1000003 for i in range(n)]

    def time_sorted(self, n):
        for _ in range(REPEAT):
            sorted(self.data)

    def peakmem_list(self, n):
        list(range(n * 10))


def time_join():
    ",".join(str(i) for i in range(1000))


def track_items():
    return 42
track_items.unit = "items"
