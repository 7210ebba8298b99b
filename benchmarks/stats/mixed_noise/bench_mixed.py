"""The pytest-benchmark half of the mixed-noise suite (benchmarks/stats/real_mixed_noise.py):
ten benchmarks of very different run-to-run noise, from a hash over 16 KiB
(quiet) to numpy sorts of large random arrays (noisy), 12 us to 40 ms a call.

Every benchmark does its work as UNITS equal units; MCPP_SLOW="name=percent,..."
adds percent/100 * UNITS more units to the named benchmarks (5% = 1 unit,
10% = 2, 30% = 6): an exact slowdown made by real extra work."""

import hashlib
import json
import os
import re

import numpy as np

UNITS = 20
SLOW = dict(item.split("=") for item in os.environ.get("MCPP_SLOW", "").split(",") if item)


def units(name: str) -> range:
    return range(UNITS + UNITS * int(SLOW.get(name, "0")) // 100)


BLOCK = bytes(range(256)) * 4  # 1 KiB: 16 blocks make the 16 KiB the hash reads
RNG = np.random.default_rng(7)
LARGE = RNG.random(60_000)
WORDS = [f"w{i}" for i in range(300)]
TEXT = " ".join(f"id={i} name=item{i};" for i in range(60))
DOC = {"id": 1, "tags": ["a", "b", "c"], "values": list(range(40)), "nested": {"x": 1.5, "y": None}}
TO_SORT = [(i * 2654435761) % 1000003 for i in range(3000)]


def test_hash(benchmark):  # quiet: 20 x 820 bytes through SHA-256, ~16 KiB a call
    def work():
        h = hashlib.sha256()
        for _ in units("test_hash"):
            h.update(BLOCK[:820])
        return h.digest()
    benchmark(work)


def test_numpy_sort(benchmark):  # noisy: large allocations and memory traffic
    def work():
        for _ in units("test_numpy_sort"):
            np.sort(LARGE)
    benchmark(work)


def test_join(benchmark):
    def work():
        for _ in units("test_join"):
            ",".join(WORDS)
    benchmark(work)


def test_dict_build(benchmark):
    def work():
        for _ in units("test_dict_build"):
            {i: i * 2 for i in range(400)}
    benchmark(work)


def test_alloc(benchmark):  # allocation-heavy, sleep-free
    def work():
        for _ in units("test_alloc"):
            [bytearray(256) for _ in range(200)]
    benchmark(work)


def test_sum(benchmark):
    def work():
        for _ in units("test_sum"):
            sum(range(2000))
    benchmark(work)


def test_sorted(benchmark):
    def work():
        for _ in units("test_sorted"):
            sorted(TO_SORT)
    benchmark(work)


def test_regex(benchmark):
    pattern = re.compile(r"id=(\d+) name=(\w+);")
    def work():
        for _ in units("test_regex"):
            pattern.findall(TEXT)
    benchmark(work)


def test_json(benchmark):
    def work():
        for _ in units("test_json"):
            json.dumps(DOC)
    benchmark(work)


def test_numpy_matmul(benchmark):  # noisy: BLAS threads and caches
    a = RNG.random((160, 160))
    def work():
        for _ in units("test_numpy_matmul"):
            a @ a
    benchmark(work)
