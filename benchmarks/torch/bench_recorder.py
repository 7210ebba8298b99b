"""What mcpp_receipts.torch costs a training loop: the recorder's per-step
overhead against the same loop without it, and its one-time costs.

    .venv-py/bin/python benchmarks/torch/bench_recorder.py            # full
    .venv-py/bin/python benchmarks/torch/bench_recorder.py --quick    # seconds: checks it runs

Three measurements, each against a baseline taken in the same run:

1. an empty step (``with rec.step(tokens=n): pass``) against the bare loop:
   the recorder's own cost per step, which no step time hides;
2. a real ~20 ms training step (examples/torch's tiny transformer, sized up)
   in alternating blocks with and without the recorder: the overhead as a
   fraction of the step, the number the goal (< 1% at 20 ms) is about;
3. the one-time costs: constructing the Recorder, the profiled step (against
   the median measured step) and finish() (the probes and the Builder).

On the CPU no device synchronisation happens; on a GPU each measured step
adds two torch.cuda.synchronize() calls (not measured here: no GPU).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import torch

import mcpp_receipts as mr

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "torch"))
import tiny_transformer as tt  # noqa: E402


def empty_steps(n: int) -> tuple[float, float]:
    """Seconds per iteration: the bare loop, and the loop with rec.step()."""
    t = time.perf_counter()
    for _ in range(n):
        pass
    bare = (time.perf_counter() - t) / n
    rec = mr.torch.Recorder(lane={"name": "empty"}, warmup=0, measure=n, profile=False)
    t = time.perf_counter()
    for _ in range(n):
        with rec.step(tokens=1):
            pass
    return bare, (time.perf_counter() - t) / n


def real_steps(blocks: int, per_block: int, d_model: int, seq_len: int) -> dict:
    """Alternating blocks of plain and recorded steps of the same model; the
    recorded block's steps are timed from outside, like the plain ones."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = tt.TinyLM(d=d_model, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = torch.randint(0, 256, (8, seq_len + 1))

    def step() -> None:
        model(batch).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(3):
        step()  # warm the allocator and the kernels
    rec = mr.torch.Recorder(lane={"name": "bench"}, model=model, warmup=0,
                            measure=blocks * per_block, profile=False)
    plain, recorded = [], []
    for _ in range(blocks):
        for _ in range(per_block):
            t = time.perf_counter()
            step()
            plain.append(time.perf_counter() - t)
        for _ in range(per_block):
            t = time.perf_counter()
            with rec.step(tokens=8 * seq_len):
                step()
            recorded.append(time.perf_counter() - t)
    return {"plain": statistics.median(plain), "recorded": statistics.median(recorded),
            "rec": rec, "model": model, "step": step}


def one_time(model, step, seq_len: int) -> dict:
    t = time.perf_counter()
    rec = mr.torch.Recorder(lane={"name": "bench"}, model=model, warmup=1, measure=5)
    construct = time.perf_counter() - t
    while not rec.done:
        with rec.step(tokens=8 * seq_len):
            step()
    t = time.perf_counter()
    receipt = rec.finish()
    finish = time.perf_counter() - t
    return {"construct": construct, "finish": finish, "profiled": rec.profiled.wall_s,
            "median": receipt.metrics.step_time_s.median}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes: checks that it runs")
    p.add_argument("--d-model", type=int, default=64, help="model width (64: ~20 ms steps here, idle)")
    p.add_argument("--seq-len", type=int, default=64)
    args = p.parse_args()
    n = 2000 if args.quick else 200_000
    blocks, per_block = (2, 3) if args.quick else (10, 10)

    bare, with_rec = empty_steps(n)
    overhead = with_rec - bare
    real = real_steps(blocks, per_block, args.d_model, args.seq_len)
    once = one_time(real["model"], real["step"], args.seq_len)

    print(f"mcpp_receipts.torch recorder overhead (torch {torch.__version__}, CPU, 1 thread)\n")
    print("| measurement | baseline | with the recorder | overhead |")
    print("|---|---|---|---|")
    print(f"| empty step, {n} iterations | {bare * 1e6:.3f} us | {with_rec * 1e6:.3f} us "
          f"| {overhead * 1e6:.2f} us per step = {overhead / 0.020 * 100:.4f}% of a 20 ms step |")
    ratio = real["recorded"] / real["plain"] - 1
    print(f"| real step (d_model {args.d_model}, seq {args.seq_len}), median of {blocks * per_block} "
          f"each, alternating blocks of {per_block} | {real['plain'] * 1e3:.2f} ms "
          f"| {real['recorded'] * 1e3:.2f} ms | {ratio * 100:+.2f}% (machine noise included) |")
    print(f"| profiled step (once, not a sample) | median step {once['median'] * 1e3:.2f} ms "
          f"| {once['profiled'] * 1e3:.2f} ms | {once['profiled'] / once['median']:.2f}x one step |")
    print(f"| Recorder() construction (once) | - | {once['construct'] * 1e3:.2f} ms | - |")
    print(f"| finish(): probes + Builder (once) | - | {once['finish'] * 1e3:.2f} ms | - |")


if __name__ == "__main__":
    main()
