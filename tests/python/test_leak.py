"""Memory stays flat over 10^5 load/compare cycles (no leaked receipts,
comparisons, exceptions or rendered text)."""

from __future__ import annotations

import gc
import json
import os

import pytest

import mcpp_receipts as mr
from mcpp_receipts import _core
from conftest import variant


# Under AddressSanitizer freed memory sits in a quarantine, so RSS says nothing.
pytestmark = pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""),
                                reason="RSS is meaningless under ASan's quarantine")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def cycle(i: int, text: str, bad: str, base: mr.Receipt, policy: mr.Policy) -> None:
    r = _core.loads(text)
    # Compare without rendering (rendering is covered below); every 16th cycle
    # also renders JSON and raises an error with a location.
    _core._compare(base, r, policy, "" if i % 16 else "j")
    if i % 16 == 0:
        try:
            _core.loads(bad)
        except mr.ValidationError:
            pass


def test_rss_is_flat_over_1e5_load_compare_cycles():
    text = json.dumps(variant(id="leak"))
    bad = json.dumps(variant({"routing.top_k": "x"}))
    base = mr.loads(text)
    policy = mr.Policy.default()
    for i in range(5_000):  # warm-up: allocator pools, caches
        cycle(i, text, bad, base, policy)
    gc.collect()
    before = rss_bytes()
    for i in range(100_000):
        cycle(i, text, bad, base, policy)
    gc.collect()
    grown = rss_bytes() - before
    # One leaked 100-byte block per cycle would be 10 MB; allow allocator noise.
    assert grown < 4 * 1024 * 1024, f"RSS grew by {grown / 1e6:.1f} MB over 1e5 cycles"


def test_python_layer_objects_are_freed():
    text = json.dumps(variant(id="leak"))
    base = mr.loads(text)
    for _ in range(1_000):
        mr.compare(base, mr.loads(text)).rows
    gc.collect()
    before = rss_bytes()
    for _ in range(5_000):
        c = mr.compare(base, mr.loads(text))
        c.to_dict()
        c._repr_html_()
    gc.collect()
    # A leaked rendering (~2 KB) per cycle would be 10 MB.
    assert rss_bytes() - before < 4 * 1024 * 1024
