"""What one profiled training step says about the run (mcpp_receipts.torch).

The recorder runs ``torch.profiler`` around exactly one step after the
measured window and reads from its events: which scaled-dot-product
attention kernel executed, whether compiled code ran, the dtypes the matrix
multiplies ran in, and how busy the device (or, on a CPU, the operator
threads) was. The profiled step's time never enters the step samples.
"""

from __future__ import annotations

from typing import Any, Iterable

import torch

# Operator (and kernel) names -> the attention backend they mean, most specific
# first: "_scaled_dot_product_flash_attention_for_cpu" must not read as CUDA flash
# only because it starts the same way (both read as "flash": the substrate field
# says which device ran it).
ATTENTION_OPS: tuple[tuple[str, str], ...] = (
    ("_scaled_dot_product_flash_attention_for_cpu", "flash"),
    ("_scaled_dot_product_flash_attention", "flash"),
    ("_flash_attention_forward", "flash"),
    ("_scaled_dot_product_efficient_attention", "efficient"),
    ("_efficient_attention_forward", "efficient"),
    ("_scaled_dot_product_cudnn_attention", "cudnn"),
    ("_scaled_dot_product_fused_attention_overrideable", "overrideable"),
    ("_scaled_dot_product_attention_math", "math"),
    ("flex_attention", "flex"),
    ("flash_attn::", "flash_attn"),  # Dao's flash-attn package (flash_attn_2/3)
)

#: Names a user may request -> the backend name the observation uses.
REQUESTED_ALIASES = {
    "flash": "flash", "flash_attention": "flash", "flash_attn_sdpa": "flash",
    "efficient": "efficient", "efficient_attention": "efficient", "mem_efficient": "efficient",
    "memory_efficient": "efficient",
    "cudnn": "cudnn", "cudnn_attention": "cudnn",
    "math": "math", "overrideable": "overrideable", "flex": "flex", "flex_attention": "flex",
    "flash_attn": "flash_attn", "flash_attn_2": "flash_attn", "flash_attn_3": "flash_attn",
}

#: Matrix-multiply operators whose input dtype is the precision the run computes in:
#: the leaf operators only. Composite ones (aten::linear, aten::matmul,
#: aten::scaled_dot_product_attention) are recorded before autocast casts their
#: inputs, so they would report fp32 under bf16 autocast.
GEMM_OPS = frozenset({
    "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_mm",
    "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_dot_product_flash_attention_for_cpu",
})

#: The profiler's dtype names -> the receipt's precision formats.
DTYPE_FORMATS = {
    "float": "fp32", "c10::BFloat16": "bf16", "BFloat16": "bf16", "c10::Half": "fp16",
    "Half": "fp16", "c10::Float8_e4m3fn": "fp8_e4m3", "Float8_e4m3fn": "fp8_e4m3",
    "c10::Float8_e5m2": "fp8_e5m2", "Float8_e5m2": "fp8_e5m2",
}
TORCH_DTYPE_FORMATS = {
    torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16",
    getattr(torch, "float8_e4m3fn", None): "fp8_e4m3", getattr(torch, "float8_e5m2", None): "fp8_e5m2",
}
#: Order of formats in a recipe ("bf16+fp8_e4m3").
FORMAT_ORDER = ("fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2")

#: Profiler names that only compiled code produces.
COMPILED_MARKS = ("Torch-Compiled Region", "CompiledFunction", "## Call CompiledFxGraph")


def normalize_attention(name: Any) -> str:
    """A requested attention backend in the observation's vocabulary: a str
    or an ``torch.nn.attention.SDPBackend`` member (FLASH_ATTENTION → flash)."""
    text = getattr(name, "name", name)
    key = str(text).strip().lower()
    return REQUESTED_ALIASES.get(key, key)


def recipe(formats: Iterable[str]) -> str | None:
    found = set(formats)
    ordered = [f for f in FORMAT_ORDER if f in found]
    return "+".join(ordered) if ordered else None


def merged_busy_ns(intervals: list[tuple[int, int]]) -> int:
    """Length of the union of [start, end) intervals: nested or overlapping
    events count once."""
    busy, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            busy += e - s
            end = e
        elif e > end:
            busy += e - end
            end = e
    return busy


class StepProfile:
    """The facts of one profiled step."""

    def __init__(self, prof: Any, wall_s: float, on_device: bool) -> None:
        self.wall_s = wall_s
        events = list(prof.profiler.kineto_results.events()) if prof.profiler else []
        self.names = {e.name() for e in events}
        self.attention_ops = sorted(n for n in self.names if any(op in n for op, _ in ATTENTION_OPS))
        self.attention = self._attention()
        self.ran_compiled = any(any(m in n for m in COMPILED_MARKS) for n in self.names)
        self.gemm_formats = sorted({DTYPE_FORMATS.get(e.dtypes()[0], e.dtypes()[0])
                                    for e in events if e.name() in GEMM_OPS and e.dtypes()})
        self.busy_source, busy_ns = self._busy(events, on_device)
        self.busy_fraction = min(1.0, busy_ns / 1e9 / wall_s) if wall_s > 0 else None

    def _attention(self) -> str | None:
        """The backend(s) that ran, "+"-joined when layers used several; None
        when no scaled-dot-product attention ran in the step."""
        seen = []
        for name in self.attention_ops:
            if name.endswith("_backward") or "Backward" in name:
                continue  # the forward op names the backend; its backward says the same
            for op, backend in ATTENTION_OPS:
                if op in name:
                    seen.append(backend)
                    break
        if not seen:  # only backward ops (a step that profiles backward alone)
            for name in self.attention_ops:
                for op, backend in ATTENTION_OPS:
                    if op in name:
                        seen.append(backend)
                        break
        return "+".join(sorted(set(seen))) if seen else None

    @staticmethod
    def _busy(events: list, on_device: bool) -> tuple[str, int]:
        """Nanoseconds the device ran kernels (on a GPU: the union of its
        kernel intervals), or on a CPU the union of the intervals of every
        aten operator on any thread (forward and autograd's backward thread)."""
        if on_device:
            spans = [(e.start_ns(), e.end_ns()) for e in events
                     if e.device_type() != torch.autograd.DeviceType.CPU and e.duration_ns() > 0]
            return "device kernels", merged_busy_ns(spans)
        spans = [(e.start_ns(), e.end_ns()) for e in events
                 if e.name().startswith("aten::") and e.duration_ns() > 0]
        return "cpu operators", merged_busy_ns(spans)
