"""Keeps the profiler's C++ log lines out of a notebook on a CPU machine.

PyTorch's profiler (Kineto) writes to file descriptor 2, not through Python:
on a machine without a GPU every profiled step printed
``ERROR:... DeviceProperties.cpp:56] gpuGetDeviceCount failed with code 35``
(there is no device to count) and ``USDT:... profiler_start`` / ``profiler_stop``
lines, which Jupyter shows as the cell's output. Around the profiler's start
and stop this captures descriptor 2, drops exactly those known lines and
writes every other line back, so a real error still shows. Without a GPU,
KINETO_LOG_LEVEL is raised to silence Kineto's spurious error when the user
has not set it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from typing import Iterator

#: The Kineto lines a profiled CPU step prints and nothing else needs.
NOISE = re.compile(rb"^(?:USDT|INFO|ERROR):\d{4}-\d\d-\d\d [\d:.]+ \d+:\d+ \w+\.cpp:\d+\] "
                   rb"(?:profiler_start|profiler_stop|gpuGetDeviceCount failed with code \d+)\s*$")


@contextlib.contextmanager
def quiet_profiler(cpu_only: bool) -> Iterator[None]:
    """Runs the block with descriptor 2 captured; known Kineto noise dropped."""
    if cpu_only:
        os.environ.setdefault("KINETO_LOG_LEVEL", "5")  # read when the profiler starts
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no descriptor 2 to capture (an embedded interpreter)
        yield
        return
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().splitlines(keepends=True) if not NOISE.match(line)]
            if kept:
                os.write(2, b"".join(kept))
