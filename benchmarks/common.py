"""Timing helpers and the machine description every benchmark report starts with."""

from __future__ import annotations

import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(repeat: int, fn: Callable[[], T]) -> tuple[float, T]:
    """Best wall time of ``repeat`` runs (seconds) and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result  # type: ignore[return-value]


def median_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_memory(fn: Callable[[], object]) -> int:
    """Peak bytes allocated by Python while ``fn`` runs (tracemalloc; slows the run, so timed apart)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def machine() -> str:
    """The machine and the build measured (the replay's hot modules compiled or not)."""
    from simulator.replay import COMPILED

    cpus = os.cpu_count()
    build = "hot modules compiled" if COMPILED.active else f"hot modules as Python: {COMPILED.reason}"
    python = platform.python_version()
    return f"{platform.system()} {platform.machine()}, {cpus} CPUs, Python {python}, {build}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def mib(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB"
