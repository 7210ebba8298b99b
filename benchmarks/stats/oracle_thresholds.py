#!/usr/bin/env python3
"""oracle_thresholds.py — the most a rule on the mean or on the median of a
side's runs can find on the noise lab's machines, when the null is known
exactly: 50 benchmarks a merge, the lab's run-to-run shapes (Gaussian sd 5%;
bimodal: two states 5% either side, each blurred by 1.25%; the rounds' 3%
over 30 rounds on top), each rule's threshold on its largest unchanged change
set so that a given share of unchanged merges fail, and the share of 10%
slowdowns (5 of the 50) it then finds: the most a fixed threshold can find
(a Benjamini–Hochberg cutoff loosens with each discovery and can find more
when several slow at once); benchmarks/stats/noise_lab.c measures the gate.

    .venv-py/bin/python benchmarks/stats/oracle_thresholds.py --merges 20000
"""

from __future__ import annotations

import argparse

import numpy as np

K, SLOWED, ROUND_NOISE = 50, 5, 0.03 / np.sqrt(30) * 1.25


def runs(rng: np.random.Generator, shape: str, size: tuple[int, ...]) -> np.ndarray:
    """Log run values of unchanged code on one of the lab's machines."""
    if shape == "gaussian":
        machine = 0.05 * rng.standard_normal(size)
    else:
        machine = np.where(rng.random(size) < 0.5, -0.05, 0.05) + 0.0125 * rng.standard_normal(size)
    return machine + ROUND_NOISE * rng.standard_normal(size)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--merges", type=int, default=20000, help="merges per cell (default 20000)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    slowdown = np.zeros(K)
    slowdown[:SLOWED] = np.log(1.10)
    print("| noise | runs a side | unchanged merges failing | mean of runs: 10% found | median of runs: 10% found |")
    print("|---|---|---|---|---|")
    for shape in ("gaussian", "bimodal"):
        for n in (1, 3, 5):
            base, cand = runs(rng, shape, (args.merges, K, n)), runs(rng, shape, (args.merges, K, n))
            found = {}
            for name, centre in (("mean", np.mean), ("median", np.median)):
                change = centre(cand, axis=2) - centre(base, axis=2)
                for fp in (0.02, 0.05):
                    threshold = np.quantile(change.max(axis=1), 1 - fp)
                    found[name, fp] = ((change + slowdown)[:, :SLOWED] > threshold).mean()
            for fp in (0.02, 0.05):
                print(f"| {shape} | {n} | {100 * fp:.0f}% | {100 * found['mean', fp]:.1f}% | "
                      f"{100 * found['median', fp]:.1f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
