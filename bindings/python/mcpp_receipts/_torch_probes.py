"""What mcpp_receipts.torch reads from the PyTorch runtime outside the profiled
step: hardware, software and the compiler's counters.

Every function here reads the runtime (torch, the OS, dynamo's counters) and
returns receipt fields as ``{dotted path: value}``; none takes the user's word
for anything. They run once per recording (at the start or in ``finish()``),
never inside a step, so their cost is outside the measured window.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
from typing import Any

import torch

from . import _core

GIB = float(1 << 30)


# ---- which device the loop runs on -----------------------------------------------


def device_of(model: Any, device: Any) -> torch.device:
    """The device the training step runs on: where the model's parameters
    live (the runtime's answer), else ``device``, else CUDA when present."""
    if model is not None:
        for p in model.parameters():
            return p.device
    if device is not None:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def model_devices(model: Any) -> int:
    """Distinct devices holding the model's parameters on this rank (1 when
    no model is given)."""
    if model is None:
        return 1
    return max(1, len({p.device for p in model.parameters()}))


def world() -> tuple[int, int | None]:
    """(world size, ranks per node) when torch.distributed is initialised,
    else (1, None). Ranks per node come from the launcher (LOCAL_WORLD_SIZE,
    set by torchrun), which is what the process group knows of the node."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        local = os.environ.get("LOCAL_WORLD_SIZE")
        return dist.get_world_size(), int(local) if local and local.isdigit() else None
    return 1, None


def substrate(dev: torch.device) -> str:
    if dev.type == "cuda":
        return "rocm" if getattr(torch.version, "hip", None) else "cuda"
    return {"cpu": "cpu", "mps": "mps", "xpu": "xpu", "hpu": "hpu"}.get(dev.type, dev.type)


# ---- hardware ----------------------------------------------------------------------


def cpu_model() -> str:
    """The host CPU's model name (/proc/cpuinfo, else platform)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def host_memory_gib() -> float | None:
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) * 1024 / GIB, 2)
    except (OSError, ValueError, IndexError):
        pass
    return None


def nvidia_driver() -> str | None:
    """The NVIDIA kernel driver's version (/proc/driver/nvidia/version), which
    torch does not expose."""
    try:
        with open("/proc/driver/nvidia/version", encoding="ascii", errors="replace") as f:
            for word in f.readline().split():
                if word[:1].isdigit() and "." in word:
                    return word
    except OSError:
        pass
    return None


def accelerator(raw: str) -> dict:
    """The library's reading of a device name (data/accelerators.tsv)."""
    return _core._accelerator(raw)


def hardware(dev: torch.device, model: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Receipt fields of the hardware that ran, and the extra facts
    (canonical id, device index, world size) for ``extra.torch.hardware``."""
    world_size, per_node = world()
    fields: dict[str, Any] = {"hardware.observed.source": "probed",
                              "hardware.host.cpu": cpu_model(),
                              "hardware.host.cores": os.cpu_count() or 1,
                              "topology.substrate": substrate(dev)}
    if dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        name = props.name
        fields["hardware.observed.memory_gib"] = round(props.total_memory / GIB, 2)
        runtime = (f"ROCm {torch.version.hip}" if getattr(torch.version, "hip", None)
                   else f"CUDA {torch.version.cuda}")
        fields["hardware.observed.runtime"] = runtime
        driver = nvidia_driver()
        if driver:
            fields["hardware.observed.driver"] = driver
    else:
        index = None
        name = f"cpu: {fields['hardware.host.cpu']}"
        memory = host_memory_gib()
        if memory is not None:
            fields["hardware.observed.memory_gib"] = memory
        # A CPU has no accelerator driver or runtime: the kernel and ATen's
        # thread count stand in (both change CPU step times).
        fields["hardware.observed.driver"] = f"{platform.system()} {platform.release()}"
        threads = torch.get_num_threads()
        fields["hardware.observed.runtime"] = f"ATen CPU, {threads} thread{'s' if threads != 1 else ''}"
    local = model_devices(model)
    fields["hardware.observed.accelerator"] = name
    fields["hardware.observed.count"] = local * world_size
    if per_node is not None:
        fields["hardware.observed.per_node"] = local * per_node
    canon = accelerator(name)
    extra = {"accelerator_id": canon["id"], "accelerator_known": canon["matched"],
             "device": str(dev), "world_size": world_size, "devices_per_rank": local}
    if index is not None:
        extra["device_index"] = index
    return fields, extra


# ---- software ----------------------------------------------------------------------


def git_commit() -> str | None:
    """HEAD of the repository the process runs in, if any."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and commit else None


def software(dev: torch.device) -> dict[str, Any]:
    components: dict[str, str] = {"python": platform.python_version()}
    if torch.version.cuda and dev.type == "cuda":  # the CUDA build's runtime, only where it ran
        components["cuda"] = torch.version.cuda
    if getattr(torch.version, "hip", None):
        components["hip"] = torch.version.hip
    if dev.type == "cuda" and torch.backends.cudnn.is_available():
        components["cudnn"] = str(torch.backends.cudnn.version())
    triton = sys.modules.get("triton")
    if triton is not None and getattr(triton, "__version__", None):
        components["triton"] = triton.__version__
    fields = {"software.framework": "pytorch", "software.version": torch.__version__,
              "software.components": components,
              "source.host": socket.gethostname(),
              "source.command": " ".join([os.path.basename(sys.executable), *sys.argv])}
    commit = git_commit()
    if commit:
        fields["source.git_commit"] = commit
    return fields


# ---- the compiler (dynamo) -----------------------------------------------------------


def dynamo() -> Any:
    """torch._dynamo when the process has imported it (torch.compile does),
    else None: an eager loop does not pay for importing the compiler."""
    return sys.modules.get("torch._dynamo")


class CompileWatch:
    """Dynamo's global counters and compile times, read at the start of a
    recording and again at its end; the difference is what this loop caused.
    A compile-start callback counts recompiles (a frame compiled again) and
    which of them fell into the measured window."""

    #: compilation_time_metrics entries that are not nested in another one:
    #: compiling a frame (forward) and compiling the backward on first use.
    TOP_LEVEL_TIMES = ("_compile.compile_inner", "backward._backward_impl")

    def __init__(self) -> None:
        self.compiles: list[tuple[str, bool]] = []  # (compile id, in the measured window)
        self.in_window = False
        self._callback = None
        self._before = self._read()
        d = dynamo()
        if d is not None:
            self._register(d)

    def _register(self, d: Any) -> None:
        try:
            handler = d.callback_handler
        except AttributeError:  # an older torch without compile callbacks
            return

        def on_start(args: Any = None) -> None:
            self.compiles.append((str(getattr(args, "compile_id", "")), self.in_window))

        handler.register_start_callback(on_start)
        self._callback = (handler, on_start)

    def close(self) -> None:
        if self._callback is not None:
            handler, fn = self._callback
            try:
                handler.remove_start_callback(fn)
            except (ValueError, AttributeError):
                pass
            self._callback = None

    @staticmethod
    def _read() -> tuple[dict[str, dict[str, int]], dict[str, float]]:
        d = dynamo()
        if d is None:
            return {}, {}
        utils = d.utils
        counters = {k: dict(v) for k, v in utils.counters.items()}
        times = {k: float(sum(v)) for k, v in utils.compilation_time_metrics.items()}
        return counters, times

    def observed(self) -> dict[str, Any]:
        """The counters' change since the start: graphs, graph breaks with
        their reasons, recompiles, frames that fell back to eager, cache hits
        and misses, compile seconds."""
        (c0, t0), (c1, t1) = self._before, self._read()

        def delta(group: str, key: str) -> int:
            return int(c1.get(group, {}).get(key, 0)) - int(c0.get(group, {}).get(key, 0))

        reasons: dict[str, int] = {}
        for reason, n in c1.get("graph_break", {}).items():
            more = int(n) - int(c0.get("graph_break", {}).get(reason, 0))
            if more > 0:
                reasons[first_line(reason)] = reasons.get(first_line(reason), 0) + more
        recompiles = [cid for cid, _ in self.compiles if is_recompile(cid)]
        return {
            "graphs": delta("stats", "unique_graphs"),
            "graph_breaks": sum(reasons.values()),
            "graph_break_reasons": reasons,
            "frames_compiled": delta("frames", "total"),
            "eager_fallback_frames": max(0, delta("frames", "total") - delta("frames", "ok")),
            "recompiles": len(recompiles) if self._callback or self.compiles else None,
            "recompiles_in_window": sum(1 for cid, w in self.compiles if w and is_recompile(cid)),
            "compiles_in_window": sum(1 for _, w in self.compiles if w),
            "cache": {
                "fxgraph_hit": delta("inductor", "fxgraph_cache_hit"),
                "fxgraph_miss": delta("inductor", "fxgraph_cache_miss"),
                "autograd_hit": delta("aot_autograd", "autograd_cache_hit"),
                "autograd_miss": delta("aot_autograd", "autograd_cache_miss"),
            },
            "compile_s": round(sum(t1.get(k, 0.0) - t0.get(k, 0.0) for k in self.TOP_LEVEL_TIMES), 6),
        }


def first_line(reason: str) -> str:
    """A graph-break reason's first line (dynamo's messages run to a dozen
    lines with hints and links)."""
    line = reason.strip().splitlines()[0] if reason.strip() else "unknown"
    return line[:200]


def is_recompile(compile_id: str) -> bool:
    """Compile ids are "frame/attempt", or "!autograd/frame/attempt" under
    compiled autograd: attempt > 0 means the frame was compiled before."""
    parts = compile_id.strip().lstrip("!").split("/")
    return len(parts) >= 2 and parts[-1].isdigit() and int(parts[-1]) > 0
