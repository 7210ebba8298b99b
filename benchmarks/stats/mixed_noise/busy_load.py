"""A bounded background load for benchmarks/stats/real_mixed_noise.py: one
process per core that alternates copies of 32 MiB arrays (memory bandwidth and
caches, which the other jobs of a shared CI machine take) with pure-Python
arithmetic (the CPU), and stops by itself after --seconds (its caller also
stops it by its process id when the run it loads is over).

    python busy_load.py --seconds 60
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, required=True, help="stop after this many seconds (at most 600)")
    args = ap.parse_args()
    deadline = time.monotonic() + min(args.seconds, 600.0)
    src, dst = np.ones(4 << 20), np.empty(4 << 20)  # 32 MiB each
    while time.monotonic() < deadline:
        for _ in range(4):
            np.copyto(dst, src)
        x = 0
        for i in range(200_000):
            x += i * i
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
