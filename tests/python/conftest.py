"""Shared fixtures for the Python binding tests: a valid base receipt and
helpers to derive variants of it, so the tests do not depend on example files
other people edit."""

from __future__ import annotations

import copy
import json
import os
import pathlib

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "receipts"

BASE = {
    "schema": "mcpp.receipt/2",
    "id": "base-run1",
    "created_at": "2026-03-14T09:12:44Z",
    "source": {"tool": "pytest", "git_commit": "9f3c2e1a", "command": "train.py", "host": "n17"},
    "lane": {
        "name": "NAM56R hybrid MoE lane",
        "family": "NAM56R",
        "pattern": "AEMEAEMEAEMR",
        "depth": 52,
        "params_total": 56210000000,
        "params_active": 8930000000,
    },
    "workload": {
        "seq_len": 4096,
        "micro_batch": 2,
        "global_batch": 256,
        "tokens_per_step": 1048576,
        # No useful_tokens_per_step: the tests vary tokens_per_s freely, and with
        # the denominator stated validation would hold them to it (within 1%).
        "data": {"path": "real", "dataset": "fineweb-edu"},
    },
    "routing": {
        "mode": "token_choice",
        "score": "sigmoid",
        "num_experts": 64,
        "top_k": 6,
        "shared_experts": 2,
        "capacity_factor": 1.25,
        "overflow": "pad",
    },
    "compile": {"posture": "regional", "warmup": "explicit", "graph_breaks": 0, "compile_s": 84.6},
    "backend": {
        "precision": {"observed": "bf16"},
        "attention": {"requested": "flash_attn_3", "observed": "flash_attn_3"},
        "moe": {"requested": "padded", "observed": "padded"},
        "mamba": {"requested": "mamba2_triton", "observed": "mamba2_triton"},
        "recurrent": {"requested": "cuda", "observed": "cuda"},
        "gemm": {"requested": "cublaslt", "observed": "cublaslt"},
        "verification": {"status": "passed", "max_rel_err": 0.0031},
    },
    "hardware": {
        "requested": {"accelerator": "NVIDIA H100 80GB HBM3", "count": 8},
        "observed": {
            "accelerator": "NVIDIA H100 80GB HBM3",
            "count": 8,
            "memory_gib": 79.65,
            "driver": "550.54.15",
            "runtime": "CUDA 12.4",
        },
    },
    "topology": {
        "substrate": "cuda", "nodes": 1, "tp": 2, "pp": 1, "vpp": 1, "ep": 4, "cp": 1, "dp": 4,
        "sp": True, "fsdp": False,
    },
    "startup": {"state": "warm_cache"},
    "metrics": {
        "window": {"warmup_steps": 10, "measured_steps": 8},
        "step_time_s": {"samples": [2.617, 2.593, 2.641, 2.639, 2.61, 2.622, 2.594, 2.595]},
        "tokens_per_s": 396311.0,
        "peak_memory_gib": 71.3,
    },
    "status": {"outcome": "ok", "stability": "stable"},
    "extra": {"team": "perf-moe"},
}


def variant(changes: dict | None = None, drop: tuple[str, ...] = (), **top) -> dict:
    """A deep copy of BASE with dotted-path `changes` applied and `drop` removed."""
    d = copy.deepcopy(BASE)
    d.update(top)
    for path, value in (changes or {}).items():
        node = d
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    for path in drop:
        node = d
        *parents, leaf = path.split(".")
        for p in parents:
            node = node[p]
        node.pop(leaf, None)
    # The stated median must agree with the samples; let the library derive it.
    return d


def scaled_samples(factor: float) -> list[float]:
    return [round(s * factor, 6) for s in BASE["metrics"]["step_time_s"]["samples"]]


@pytest.fixture
def base_text() -> str:
    return json.dumps(BASE)


@pytest.fixture
def receipt_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """A directory of receipts: three runs of the base lane, one qualified
    (cold boot), one unstable jagged-fallback lane, in a nested folder too."""
    runs = [
        variant(id="padded-run1"),
        variant({"metrics.tokens_per_s": 395000.0}, id="padded-run2"),
        variant({"metrics.tokens_per_s": 397000.0}, id="padded-run3"),
        variant(
            {
                "backend.moe.observed": "jagged",
                "backend.fallbacks": ["moe:padded->jagged"],
                "status.stability": "unstable",
                "status.outcome": "partial",
                "status.blocker": "padded capacity buffer OOM at ep=4",
                "metrics.tokens_per_s": 365442.4,
            },
            id="jagged-fallback",
        ),
    ]
    (tmp_path / "nested").mkdir()
    for i, r in enumerate(runs):
        folder = tmp_path / "nested" if i == 3 else tmp_path
        (folder / f"{r['id']}.json").write_text(json.dumps(r, indent=2))
    return tmp_path
