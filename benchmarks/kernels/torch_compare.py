#!/usr/bin/env python3
"""torch_compare.py: the PyTorch side of the MoE speed table, on the same shapes as
mcpp-bench-kernels-gpu (d_model 2048, d_ff 1024, 8 experts, top-2): dense bf16 matmul,
a per-expert loop, and torch._grouped_mm where the installed torch has it. Both MoE
projections are timed (2 GEMMs), rates are TFLOP/s on useful rows, CUDA-event timed."""
import sys
import torch

D, F, E = 2048, 1024, 8


def timed(fn, reps=20):
    fn(); torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record(); torch.cuda.synchronize()
    return a.elapsed_time(b) / reps


def main():
    if not torch.cuda.is_available():
        print("skip: no CUDA device for torch"); return 0
    torch.manual_seed(0)
    gm = getattr(torch, "_grouped_mm", None) or getattr(torch.nn.functional, "grouped_mm", None)
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}; grouped_mm: {gm is not None}")
    print("| tokens/expert | dense bf16 TFLOP/s (1 proj) | per-expert loop (2 proj) | grouped_mm (2 proj) | max rel diff loop vs grouped |")
    print("|---:|---:|---:|---:|---:|")
    for per in (256, 512, 1024, 2048, 4096):
        # jagged routing: uneven counts around `per` (real routing is uneven), summing to E*per
        g = torch.Generator().manual_seed(per)
        w = torch.rand(E, generator=g) + 0.5
        counts = (w / w.sum() * E * per).long()
        counts[-1] += E * per - counts.sum()
        counts = (counts // 16) * 16  # grouped_mm wants 16-row aligned offsets on Hopper
        m = int(counts.sum())
        x = torch.randn(m, D, device="cuda", dtype=torch.bfloat16)
        w1 = (torch.randn(E, D, F, device="cuda") * 0.02).to(torch.bfloat16)
        w2 = (torch.randn(E, F, D, device="cuda") * 0.02).to(torch.bfloat16)
        dense_w = w1[0]
        flop1 = 2.0 * m * D * F
        dense_ms = timed(lambda: x @ dense_w)
        splits = counts.tolist()

        def loop():
            outs, s = [], 0
            for e, c in enumerate(splits):
                h = torch.nn.functional.gelu(x[s:s + c] @ w1[e])
                outs.append(h @ w2[e]); s += c
            return torch.cat(outs)
        loop_ms = timed(loop)
        offs = torch.cumsum(counts, 0).to(torch.int32).cuda()
        gm_tf, diff = float("nan"), float("nan")
        if gm is not None:
            def grouped():
                h = torch.nn.functional.gelu(gm(x, w1, offs=offs))
                return gm(h, w2, offs=offs)
            try:
                gms = timed(grouped)
                gm_tf = 2 * flop1 / (gms * 1e-3) * 1e-12
                ref, got = loop().float(), grouped().float()
                diff = float((got - ref).norm() / ref.norm())
            except Exception as ex:  # report, do not hide
                print(f"grouped_mm failed at {per}: {ex}")
        print(f"| {per} | {flop1/(dense_ms*1e-3)*1e-12:.1f} | {2*flop1/(loop_ms*1e-3)*1e-12:.1f} | {gm_tf:.1f} | {diff:.2e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
