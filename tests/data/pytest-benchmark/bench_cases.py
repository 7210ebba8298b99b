import pytest

@pytest.mark.parametrize("n", [2000, 8000])
def test_sorted(benchmark, n):
    data = [(i * 2654435761) % 1000003 for i in range(n)]
    benchmark(sorted, data)

def test_join(benchmark):
    parts = [str(i) for i in range(2000)]
    benchmark(",".join, parts)
