"""Receipts from a PyTorch training loop, with the observed half read from the runtime.

``pip install 'mcpp_receipts[torch]'``. Wrap each step of your own loop::

    import mcpp_receipts as mr

    rec = mr.torch.Recorder(
        lane={"name": "tiny-gpt", "pattern": "A", "depth": 2, "workload.seq_len": 128},
        requested={"attention": "flash", "compile": "whole_model", "precision": "bf16"},
        model=model, warmup=5, measure=20)
    while not rec.done:
        batch = next(loader)
        with rec.step(tokens=batch.numel()):
            loss = model(batch); loss.backward(); opt.step(); opt.zero_grad()
    receipt = rec.write("runs/tiny.json")

``requested`` is what you asked for; everything observed (hardware, the
attention kernel that ran, compile graphs and graph breaks, precision,
step times, memory, software) is probed from the runtime and recorded with
``hardware.observed.source: probed``. A request the run did not meet is
recorded as a fallback (``backend.fallbacks``). The receipt is made by
:class:`mcpp_receipts.Builder`, so every validation rule applies.

The loop runs ``warmup`` steps (compilation happens here; timed, recorded as
warmup badput), ``measure`` measured steps (the samples), then one profiled
step (``profile=True``) whose profiler events say which kernels ran; its time
is not a sample. ``rec.total_steps`` is the sum; steps after it pass through
unrecorded. ``docs/torch.md`` lists every field, its probe and its cost.
"""

from __future__ import annotations

import datetime
import os
import time
import warnings
from typing import TYPE_CHECKING, Any, Mapping

try:
    import torch
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "mcpp_receipts.torch needs PyTorch, which is not installed: "
        "pip install 'mcpp_receipts[torch]' (or pip install torch)"
    ) from e

from . import _core
from ._torch_probes import CompileWatch, device_of, hardware, software
from ._torch_quiet import quiet_profiler
from ._torch_profile import (
    TORCH_DTYPE_FORMATS,
    StepProfile,
    normalize_attention,
    recipe,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._receipt import Receipt

__all__ = ["Recorder", "from_measurement"]

TOOL = f"mcpp_receipts.torch {_core.__version__}"

#: requested keys -> the receipt path of the request (the observation is probed)
REQUEST_PATHS = {
    "attention": "backend.attention.requested",
    "precision": "backend.precision.requested",
    "accelerator": "hardware.requested.accelerator",
    "count": "hardware.requested.count",
    "per_node": "hardware.requested.per_node",
    "moe": "backend.moe.requested",
    "gemm": "backend.gemm.requested",
    "mamba": "backend.mamba.requested",
    "recurrent": "backend.recurrent.requested",
}
COMPILE_POSTURES = ("eager", "partial", "regional", "whole_model", "graph_replay")


def _declared_fields(lane: Mapping[str, Any] | None, fields: Mapping[str, Any] | None) -> dict:
    """``lane`` keys without a dot are lane fields ("name" → lane.name); keys
    with one are full receipt paths ("workload.seq_len"). ``fields`` are full
    paths."""
    out: dict[str, Any] = {}
    for key, value in (lane or {}).items():
        out[key if "." in key else f"lane.{key}"] = value
    out.update(fields or {})
    return out


class _Step:
    """The context manager ``Recorder.step()`` returns (one, reused: a step
    allocates nothing)."""

    __slots__ = ("_rec",)

    def __init__(self, rec: Recorder) -> None:
        self._rec = rec

    def __enter__(self) -> _Step:
        self._rec._enter()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._rec._exit(exc_type is None)


class Recorder:
    """Records a training loop into a receipt (see the module docstring).

    ``lane``: declared lane and workload fields (``{"name": ..., "pattern":
    "A", "depth": 2, "workload.seq_len": 128}``; a key with a dot is a full
    receipt path). ``requested``: what was asked for, by short name:
    ``attention`` (flash, efficient, cudnn, math, flex, or an
    ``SDPBackend``), ``compile`` (eager, regional, whole_model, ...),
    ``precision`` (bf16, fp32, bf16+fp8, ...), ``accelerator``, ``count``,
    ``per_node``, ``moe``, ``gemm``. ``model``: the ``nn.Module`` (or
    compiled module) being trained: its parameters say which device ran,
    their dtypes and count. ``fields``: any other receipt fields to set
    (full paths). ``device``: the device when no model is given.
    """

    def __init__(self, lane: Mapping[str, Any] | None = None,
                 requested: Mapping[str, Any] | None = None, *, warmup: int = 5,
                 measure: int = 20, model: Any = None, fields: Mapping[str, Any] | None = None,
                 profile: bool = True, device: Any = None) -> None:
        if warmup < 0 or measure < 1:
            raise ValueError(f"Recorder: warmup must be >= 0 and measure >= 1 (got {warmup}, {measure})")
        unknown = set(requested or {}) - set(REQUEST_PATHS) - {"compile"}
        if unknown:
            raise ValueError(f"Recorder: unknown requested keys {sorted(unknown)}; known: "
                             f"{sorted([*REQUEST_PATHS, 'compile'])}")
        self.requested = dict(requested or {})
        compile_req = self.requested.get("compile")
        if compile_req is not None and compile_req not in COMPILE_POSTURES:
            raise ValueError(f"Recorder: requested compile must be one of {COMPILE_POSTURES}, "
                             f"got {compile_req!r}")
        self.declared = _declared_fields(lane, fields)
        self.warmup, self.measure, self.profile = int(warmup), int(measure), bool(profile)
        self.model = model
        self.device = device_of(model, device)
        self._cuda = self.device.type == "cuda"
        self._sync = torch.cuda.synchronize if self._cuda else None
        self._step = _Step(self)
        self._index = 0
        self._t0 = 0.0
        self._tokens: list[int] = []
        self._useful: list[int] = []
        self._pending: tuple[int | None, int | None] = (None, None)
        self._shape: tuple[int, int] | None = None  # the pending step's inputs: (micro batch, sequence)
        self._shapes: list[tuple[int, int]] = []  # of the measured steps that passed inputs
        self.samples: list[float] = []
        self.warmup_s = 0.0
        self.window: tuple[str, str] | None = None  # UTC times the measured window began and ended
        self.profiled: StepProfile | None = None
        self._prof: Any = None
        self._autocast: tuple[bool, str | None] | None = None
        self._compile = CompileWatch()
        self._first_t = 0.0  # perf_counter at the first step's start
        self._window_t = (0.0, 0.0)  # ... at the measured window's first start and last end

    # ---- the loop -----------------------------------------------------------------

    @property
    def total_steps(self) -> int:
        """warmup + measure (+ 1 profiled step)."""
        return self.warmup + self.measure + (1 if self.profile else 0)

    @property
    def done(self) -> bool:
        """True once every step the recorder needs has run."""
        return self._index >= self.total_steps

    def step(self, tokens: int | None = None, useful_tokens: int | None = None, *, inputs: Any = None) -> _Step:
        """A context manager around one training step. ``tokens``: tokens
        computed this step; ``useful_tokens``: the non-padding ones (default:
        all). ``inputs``: the step's token tensor, shaped (micro batch,
        sequence length): the recorder observes ``workload.micro_batch`` and
        ``workload.seq_len`` from it (the median over the measured steps), and
        the tokens when ``tokens`` is not given. The step's wall time is taken
        with the device synchronised at both ends."""
        shape = None
        if inputs is not None:
            dims = tuple(int(d) for d in getattr(inputs, "shape", ()))
            if len(dims) < 2:
                raise ValueError(f"Recorder.step: inputs must be shaped (micro batch, sequence length, ...), "
                                 f"got shape {dims}")
            shape = (dims[0], dims[1])
            if tokens is None:
                tokens = dims[0] * dims[1]
        self._shape = shape
        self._pending = (None if tokens is None else int(tokens),
                         None if useful_tokens is None else int(useful_tokens))
        return self._step

    def _phase(self) -> str:
        i = self._index
        if i < self.warmup:
            return "warmup"
        if i < self.warmup + self.measure:
            return "measure"
        if i == self.warmup + self.measure and self.profile:
            return "profile"
        return "after"

    def _enter(self) -> None:
        phase = self._phase()
        if phase == "after":
            return
        if phase == "measure" and self._index == self.warmup:
            self._begin_window()
        if phase == "profile":
            self._compile.in_window = False
            self._prof = torch.profiler.profile(activities=self._activities(), record_shapes=True)
            with quiet_profiler(not self._cuda):
                self._prof.__enter__()
        elif self._autocast is None:
            dtype = torch.get_autocast_dtype(self.device.type) if torch.is_autocast_enabled(self.device.type) else None
            self._autocast = (dtype is not None, None if dtype is None else str(dtype).replace("torch.", ""))
        if self._sync:
            self._sync()
        self._t0 = time.perf_counter()
        if self._index == 0:
            self._first_t = self._t0
        if self._index == self.warmup:
            self._window_t = (self._t0, self._t0)

    def _exit(self, ok: bool) -> None:
        phase = self._phase()
        if phase == "after":
            return
        if self._sync:
            self._sync()
        dt = time.perf_counter() - self._t0
        if phase == "profile":
            with quiet_profiler(not self._cuda):
                self._prof.__exit__(None, None, None)
            if ok:
                self.profiled = StepProfile(self._prof, dt, self._cuda)
            self._prof = None
        if not ok:
            return  # a step that raised is not a step
        tokens, useful = self._pending
        if phase == "warmup":
            self.warmup_s += dt
        elif phase == "measure":
            self.samples.append(dt)
            if tokens is not None:
                self._tokens.append(tokens)
                self._useful.append(useful if useful is not None else tokens)
            if self._shape is not None:
                self._shapes.append(self._shape)
            self._window_t = (self._window_t[0], self._t0 + dt)
            if self._index == self.warmup + self.measure - 1:
                self._end_window()
        self._index += 1

    def _activities(self) -> list:
        acts = [torch.profiler.ProfilerActivity.CPU]
        if self._cuda:
            acts.append(torch.profiler.ProfilerActivity.CUDA)
        return acts

    def _begin_window(self) -> None:
        self.window = (_now_ms(), "")
        self._compile.in_window = True
        if self._cuda:
            torch.cuda.reset_peak_memory_stats(self.device)

    def _end_window(self) -> None:
        self._compile.in_window = False
        self.window = (self.window[0] if self.window else _now_ms(), _now_ms())
        if self._cuda:
            self._peak_gib = torch.cuda.max_memory_allocated(self.device) / float(1 << 30)

    # ---- the receipt ------------------------------------------------------------------

    def observed(self) -> dict[str, Any]:
        """Everything probed so far, as ``{receipt path: value}`` plus
        ``extra.torch`` (what the schema has no field for)."""
        out: dict[str, Any] = {}
        hw, hw_extra = hardware(self.device, self.model)
        out.update(hw)
        out.update(software(self.device))
        compile_facts = self._compile.observed()
        extra: dict[str, Any] = {"hardware": hw_extra, "compile": compile_facts}
        fallbacks: list[str] = []
        caveats: list[str] = []

        # time
        out["metrics.window.warmup_steps"] = self.warmup
        out["metrics.window.measured_steps"] = len(self.samples)
        out["metrics.step_time_s.samples"] = list(self.samples)
        if self._tokens:
            out["workload.tokens_per_step"] = _median_int(self._tokens)
            out["workload.useful_tokens_per_step"] = _median_int(self._useful)
        if self._shapes:  # observed from the step's inputs (rec.step(inputs=...))
            out["workload.micro_batch"] = _median_int([b for b, _ in self._shapes])
            out["workload.seq_len"] = _median_int([s for _, s in self._shapes])
        # Goodput layers: allocated is the whole span from the first step's start
        # to the measured window's end; inside it, compilation and the rest of
        # the warmup steps, and the time between measured steps (data loading,
        # logging: whatever the loop does outside rec.step) are badput.
        measured = sum(self.samples)
        allocated = self._window_t[1] - self._first_t
        compile_s = compile_facts["compile_s"]
        out["metrics.goodput.allocated_s"] = round(allocated, 6)
        out["metrics.goodput.badput_s.warmup"] = round(max(0.0, self.warmup_s - compile_s), 6)
        out["metrics.goodput.badput_s.idle"] = round(
            max(0.0, self._window_t[1] - self._window_t[0] - measured), 6)
        peak = self._peak_memory_gib()
        if peak is not None:
            out["metrics.peak_memory_gib"] = round(peak, 4)
        # the measured window's capture: its UTC times (fields of the schema), and
        # no step of it under the profiler (the profiled step runs after it)
        if self.window and self.window[0]:
            out["metrics.window.began"] = self.window[0]
        if self.window and self.window[1]:
            out["metrics.window.ended"] = self.window[1]
        out["metrics.window.profiled_steps"] = 0
        extra["window"] = {"sync": "torch.cuda.synchronize" if self._cuda else "none (CPU)"}

        # the profiled step
        prof = self.profiled
        if prof is not None:
            extra["profile"] = {"step_s": round(prof.wall_s, 6), "busy_source": prof.busy_source,
                                "busy_fraction": None if prof.busy_fraction is None else round(prof.busy_fraction, 4),
                                "attention_ops": prof.attention_ops, "gemm_formats": prof.gemm_formats,
                                "ran_compiled": prof.ran_compiled}
            if prof.busy_fraction is not None:
                busy = prof.busy_fraction * measured  # the measured window's share
                out["metrics.goodput.kernel_busy_s"] = round(busy, 6)
                tok, useful = sum(self._tokens), sum(self._useful)
                out["metrics.goodput.useful_s"] = round(busy * (useful / tok if tok else 1.0), 6)
        elif self.profile:
            caveats.append("the profiled step did not run: attention, compiled execution, "
                           "GEMM precision and kernel-busy time were not observed")

        self._observe_attention(out, fallbacks, caveats)
        self._observe_compile(out, compile_facts, fallbacks, caveats)
        self._observe_precision(out, extra, fallbacks, caveats)
        out["metrics.window.recompiles"] = int(compile_facts["recompiles_in_window"])
        if compile_facts["recompiles_in_window"]:
            caveats.append(f"{compile_facts['recompiles_in_window']} recompile(s) inside the measured window")
        out["status.outcome"] = "ok" if len(self.samples) == self.measure else "partial"
        if len(self.samples) < self.measure:
            caveats.append(f"the loop ended after {len(self.samples)} of {self.measure} measured steps")
        out["backend.fallbacks"] = fallbacks
        out["status.caveats"] = caveats
        out["extra.torch"] = extra
        return out

    def _peak_memory_gib(self) -> float | None:
        if self._cuda:
            return getattr(self, "_peak_gib", None)
        try:
            import resource  # the process's peak resident memory: what a CPU run holds

            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / float(1 << 30)
        except (ImportError, OSError):
            return None

    def _observe_attention(self, out: dict, fallbacks: list, caveats: list) -> None:
        req = self.requested.get("attention")
        ran = self.profiled.attention if self.profiled else None
        if req is not None:
            req = normalize_attention(req)
            out["backend.attention.requested"] = req
        if ran is not None:
            out["backend.attention.observed"] = ran
        elif req is not None and self.profiled is not None and self.profiled.ran_compiled:
            # Compiled code keeps fused attention kernels as operators; only the
            # math path is traced through into matmuls and a softmax.
            out["backend.attention.observed"] = "math"
            caveats.append("no fused attention kernel ran in the profiled step: the compiled "
                           "graph computes attention on the math path (matmul + softmax)")
        elif req is not None:
            out["backend.attention.observed"] = "none"
            caveats.append("no scaled-dot-product attention kernel ran in the profiled step")
        if req is not None and out["backend.attention.observed"] != req:
            fallbacks.append(f"attention:{req}->{out['backend.attention.observed']}")

    def _observe_compile(self, out: dict, facts: dict, fallbacks: list, caveats: list) -> None:
        req = self.requested.get("compile")
        prof = self.profiled
        compiled = prof.ran_compiled if prof else facts["graphs"] > 0
        if not compiled:
            posture = "eager"
        elif req in (None, "eager", "partial"):
            posture = "partial" if req == "partial" else "whole_model"
        else:
            posture = req
        out["compile.posture"] = posture
        if req is not None and req != posture:
            fallbacks.append(f"compile:{req}->{posture}")
        out["compile.graph_breaks"] = facts["graph_breaks"] if compiled else 0
        if not compiled:
            out["startup.state"] = "cold_boot"  # a fresh process: nothing compiled, nothing cached
            return
        out["compile.warmup"] = "explicit" if self.warmup > 0 else "lazy"
        if facts["compile_s"] > 0:
            out["compile.compile_s"] = facts["compile_s"]
            # compilation inside the measured window is in the samples, not badput
            out["metrics.goodput.badput_s.compile"] = round(min(facts["compile_s"], self.warmup_s), 6)
        if facts["eager_fallback_frames"]:
            fallbacks.append(f"compile:frame->eager x{facts['eager_fallback_frames']}")
        for reason, n in facts["graph_break_reasons"].items():
            caveats.append(f"graph break x{n}: {reason}")
        cache = facts["cache"]
        hits, misses = cache["fxgraph_hit"] + cache["autograd_hit"], cache["fxgraph_miss"] + cache["autograd_miss"]
        # Warm: every compile this recording needed came from the on-disk caches,
        # or none was needed (this process had compiled the model before).
        warm = (hits and not misses) or facts["frames_compiled"] == 0
        out["startup.state"] = "warm_cache" if warm else "cold_boot"

    def _observe_precision(self, out: dict, extra: dict, fallbacks: list, caveats: list) -> None:
        params = sorted({TORCH_DTYPE_FORMATS.get(p.dtype, str(p.dtype).replace("torch.", ""))
                         for p in self.model.parameters()}) if self.model is not None else []
        gemm = self.profiled.gemm_formats if self.profiled else []
        formats = [f for f in gemm if f in TORCH_DTYPE_FORMATS.values()] or params
        if self._cuda and "fp32" in formats and torch.get_float32_matmul_precision() != "highest":
            formats = ["tf32" if f == "fp32" else f for f in formats]
        observed = recipe(formats)
        enabled, dtype = self._autocast or (False, None)
        extra["precision"] = {"param_dtypes": params, "gemm_formats": gemm,
                              "autocast_at_step_entry": dtype if enabled else False,
                              "autocast_inferred": bool(gemm and params and set(gemm) - set(params))}
        req = self.requested.get("precision")
        if req is not None and observed is None:
            # the schema wants an observation beside a request: keep the request
            # where it can be read, and say why nothing was observed
            extra["precision"]["requested"] = req
            caveats.append(f"precision {req} was requested but not observed: no matrix "
                           "multiply ran in the profiled step and no model was given")
            return
        if req is not None:
            out["backend.precision.requested"] = req
        if observed is not None:
            out["backend.precision.observed"] = observed
            if req is not None and req != observed:
                fallbacks.append(f"precision:{req}->{observed}")

    def builder(self) -> _core.Builder:
        """A Builder holding the declared and observed fields, to add more
        before ``finish()``. Raises ValueError before any measured step."""
        if not self.samples:
            raise ValueError(f"Recorder: no measured step yet ({self._index} of {self.total_steps} "
                             f"steps ran; warmup is {self.warmup}): run the loop until rec.done")
        b = _core.Builder()
        b.set("source.tool", TOOL)
        b.set("created_at", _now())
        for key, value in self.requested.items():
            if key in REQUEST_PATHS and key not in ("attention", "precision"):
                b.set(REQUEST_PATHS[key], value)
        for path, value in self.observed().items():
            if path in ("backend.fallbacks", "status.caveats"):
                for item in value:
                    b.append(path, item)
            elif path == "extra.torch":
                b.set(path, value)
            elif path == "metrics.step_time_s.samples":
                for s in value:
                    b.add_step_sample(s)
            else:
                b.set(path, value)
        for path, value in self.declared.items():
            b.set(path, value)  # the user's declared fields (lane, workload, ...) win
        if self.model is not None and "lane.params_total" not in self.declared:
            b.set("lane.params_total", sum(p.numel() for p in self.model.parameters()))
        return b

    def finish(self) -> Receipt:
        """Validates and returns the Receipt (raises ValidationError). When
        the receipt lacks what a comparison needs (a lane dimension nothing
        observed or declared, such as the batch), warns, naming each field
        and how to declare it: such a receipt can never be compared."""
        self._compile.close()
        receipt = self.builder().finish()
        self._warn_missing(receipt)
        return receipt

    def write(self, path: str | os.PathLike, format: str | None = None) -> Receipt:
        """finish() and write the receipt to ``path`` atomically (JSON or
        YAML by extension or ``format``); returns the Receipt. Warns as
        finish() does."""
        self._compile.close()
        receipt = self.builder().write(os.fspath(path), format)
        self._warn_missing(receipt)
        return receipt

    def missing_for_comparison(self, receipt: Any) -> dict[str, list[str]]:
        """The dimensions ``receipt`` leaves unstated that a comparison must
        match, each with its fields: ``{"batch": ["workload.micro_batch",
        "workload.global_batch"]}``. Empty when two such runs can be compared."""
        from . import Policy, compare

        policy = Policy.default()
        missing = {}
        for row in compare(receipt, receipt, policy).rows:
            if row.status == "missing":
                missing[row.name] = list(policy.dimensions.get(row.name, {}).get("fields", []))
        return missing

    def _warn_missing(self, receipt: Any) -> None:
        missing = self.missing_for_comparison(receipt)
        if not missing:
            return
        what = "; ".join(f"{name} ({', '.join(fields)})" if fields else name for name, fields in missing.items())
        example = next((f for fields in missing.values() for f in fields), "workload.micro_batch")
        how = (f"Pass the step's inputs (rec.step(inputs=batch) observes workload.micro_batch and "
               f"workload.seq_len) or declare them" if {"batch", "sequence"} & set(missing) else "Declare them")
        warnings.warn(f"mcpp_receipts.torch: this receipt can never be compared: not stated: {what}. {how}: "
                      f"Recorder(lane={{'{example}': ...}})", UserWarning, stacklevel=3)

    def __del__(self) -> None:
        compile_watch = getattr(self, "_compile", None)
        if compile_watch is not None:
            compile_watch.close()


def from_measurement(m: Any, lane: Mapping[str, Any] | None = None, *,
                     fields: Mapping[str, Any] | None = None, tokens: int | None = None,
                     device: Any = None, name: str = "time_s") -> Receipt:
    """A receipt from a ``torch.utils.benchmark`` ``Measurement`` (what
    ``Timer.blocked_autorange()`` / ``adaptive_autorange()`` return).

    Each of ``m.times`` (seconds per run, the mean over ``number_per_run``
    calls) is a sample. With ``tokens`` (tokens one run processes) the
    samples are step times and ``tokens_per_s`` is derived; otherwise they
    become the named metric ``name`` (median, lower is better). Benchmark
    identity comes from the Measurement's label, sub_label, description,
    stmt and threads; hardware and software are probed in this process
    (``device``: where the statement ran; default the CPU).
    """
    spec = m.task_spec
    b = _core.Builder()
    b.set("source.tool", TOOL)
    b.set("created_at", _now())
    dev = torch.device(device) if device is not None else torch.device("cpu")
    hw, hw_extra = hardware(dev, None)
    for path, value in {**hw, **software(dev)}.items():
        b.set(path, value)
    title = " / ".join(x for x in (spec.label, spec.sub_label, spec.description) if x) or spec.stmt
    b.set("benchmark.suite", "torch.utils.benchmark")
    b.set("benchmark.suite_version", torch.__version__)
    b.set("benchmark.name", title)
    b.set("benchmark.params", {"stmt": spec.stmt, "setup": spec.setup, "num_threads": spec.num_threads,
                               "number_per_run": m.number_per_run})
    times = [float(t) for t in m.times]
    if tokens is not None:
        for t in times:
            b.add_step_sample(t)
        b.set("workload.tokens_per_step", int(tokens))
        b.set("workload.useful_tokens_per_step", int(tokens))
        b.set("metrics.window.measured_steps", len(times))
    else:
        b.add_metric(name, "s", "lower", float(m.median), "median", "round", times)
        b.set("metrics.primary", name)
    b.set("topology.substrate", hw["topology.substrate"])
    b.set("extra.torch", {"hardware": hw_extra, "measurement": {
        "number_per_run": m.number_per_run, "runs": len(times), "iqr_s": float(m.iqr),
        "env": spec.env}})
    for path, value in _declared_fields(lane, fields).items():
        b.set(path, value)
    return b.finish()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _now_ms() -> str:
    """UTC now to the millisecond: a measured window lasts a fraction of a second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _median_int(values: list[int]) -> int:
    s = sorted(values)
    return s[len(s) // 2]
