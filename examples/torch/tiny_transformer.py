"""A tiny decoder-only transformer (SDPA attention, optional top-k MoE) trained
on synthetic tokens, each step recorded by mcpp_receipts.torch.

    python examples/torch/tiny_transformer.py --out runs/eager.json
    python examples/torch/tiny_transformer.py --compile aot_eager --out runs/compiled.json
    python examples/torch/tiny_transformer.py --moe --attention efficient --out runs/moe.json
    mcpp-receipts frontier runs/

It runs on a CPU in seconds (eager) and is the model the tests of
mcpp_receipts.torch train. ``--graph-break`` inserts a deliberate graph break in
every block; ``--attention`` runs attention under ``sdpa_kernel([backend,
MATH])``: a backend that cannot run for these inputs falls back to math, and the
receipt says so.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

import mcpp_receipts as mr

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}


class Attention(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class MoE(nn.Module):
    """Top-k token-choice MoE with softmax router; every expert sees the whole
    batch masked to its tokens (simple, not fast)."""

    def __init__(self, d: int, experts: int, top_k: int) -> None:
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
                                     for _ in range(experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights, chosen = self.router(x).softmax(-1).topk(self.top_k, dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            w = (weights * (chosen == e)).sum(-1, keepdim=True)
            out = out + w * expert(x)
        return out


class Block(nn.Module):
    def __init__(self, d: int, heads: int, moe: tuple[int, int] | None, graph_break: bool) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.mlp = MoE(d, *moe) if moe else nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.graph_break = graph_break

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        if self.graph_break:
            torch._dynamo.graph_break()  # deliberate: the receipt must show it
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 256, d: int = 64, heads: int = 4, depth: int = 2,
                 moe: tuple[int, int] | None = None, graph_break: bool = False) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads, moe, graph_break) for _ in range(depth))
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens[:, :-1])
        for block in self.blocks:
            x = block(x)
        logits = self.head(x)
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))


def lane_of(args: argparse.Namespace) -> dict:
    """What the run declares: model identity and workload."""
    lane = {"name": "tiny transformer" + (" MoE" if args.moe else ""),
            "pattern": "AE" if args.moe else "A", "depth": 2 * args.depth if args.moe else args.depth,
            "d_model": args.d_model,
            "workload.seq_len": args.seq_len, "workload.micro_batch": args.batch,
            "workload.global_batch": args.batch, "workload.data.path": "synthetic"}
    if args.moe:
        lane.update({"routing.mode": "token_choice", "routing.score": "softmax",
                     "routing.num_experts": args.experts, "routing.top_k": args.top_k})
    return lane


def train(args: argparse.Namespace) -> mr.Receipt:
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)  # on a shared machine, fewer threads time steadier
    device = torch.device(args.device)
    model = TinyLM(d=args.d_model, depth=args.depth, moe=(args.experts, args.top_k) if args.moe else None,
                   graph_break=args.graph_break).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step_fn = model if args.compile == "eager" else torch.compile(model, backend=args.compile)
    requested = {"compile": "eager" if args.compile == "eager" else "whole_model"}
    if args.attention:
        requested["attention"] = args.attention
    if args.autocast:
        requested["precision"] = args.autocast
    autocast_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.autocast)
    rec = mr.torch.Recorder(lane=lane_of(args), requested=requested, model=model,
                            warmup=args.warmup, measure=args.measure,
                            fields={"run.seed": args.seed, "extra.example": "examples/torch/tiny_transformer.py"})
    gen = torch.Generator().manual_seed(args.seed)
    while not rec.done:
        batch = torch.randint(0, 256, (args.batch, args.seq_len + 1), generator=gen).to(device)
        with rec.step(tokens=args.batch * args.seq_len):
            with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
                if args.attention:
                    with sdpa_kernel([BACKENDS[args.attention], SDPBackend.MATH]):
                        loss = step_fn(batch)
                else:
                    loss = step_fn(batch)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if args.sleep_ms:
                time.sleep(args.sleep_ms / 1e3)  # a slower step, as a regression would be
    return rec.write(args.out) if args.out else rec.finish()


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="receipt file to write (.json or .yaml)")
    p.add_argument("--compile", default="eager", help="eager, or a torch.compile backend: aot_eager, inductor")
    p.add_argument("--attention", choices=sorted(BACKENDS), help="attention backend to request")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ...")
    p.add_argument("--autocast", choices=["bf16", "fp16"], help="autocast the forward to this dtype")
    p.add_argument("--graph-break", action="store_true", help="a deliberate graph break in every block")
    p.add_argument("--moe", action="store_true", help="MoE feed-forward layers")
    p.add_argument("--experts", type=int, default=4)
    p.add_argument("--top-k", type=int, default=2)
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--measure", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sleep-ms", type=float, default=0, help="sleep in every step (a made-up regression)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    return p.parse_args(argv)


if __name__ == "__main__":
    receipt = train(parse())
    print(f"{receipt.id}: {len(receipt.metrics.step_time_s.samples)} steps, "
          f"median {receipt.metrics.step_time_s.median * 1e3:.2f} ms, "
          f"{receipt.metrics.tokens_per_s:.0f} tokens/s, attention {receipt.backend.attention.observed}, "
          f"compile {receipt.compile.posture}", file=sys.stderr)
