"""The Tensor engine's speed layer (``micrograd2/fast/tensor.py``): once ``keep_freed_memory()`` has run (a
vectorized training run calls it when the speed layer is on), freed arrays' pages are reused, not faulted in
again; importing micrograd2 alone leaves malloc as it is."""
from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from micrograd2.fast import tensor as fast_tensor

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# What a step does: make eight 1 MiB arrays (every page touched), then free them all; 20 steps.  How many
# page faults did that take, after the first step?
FAULTS = """
import resource, sys
import numpy as np
import micrograd2 as mg
mg.tensor([1.0])  # the Tensor engine, imported
if sys.argv[1] == "keep":
    from micrograd2.fast.tensor import keep_freed_memory
    keep_freed_memory()
arrays = [np.ones(1 << 18, np.float32) for _ in range(8)]
del arrays
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    arrays = [np.ones(1 << 18, np.float32) for _ in range(8)]
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(keep: bool) -> int:
    argv = [sys.executable, "-c", FAULTS, "keep" if keep else "import-only"]
    return int(subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()[-1])


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_after_keep_freed_memory_freed_pages_are_reused_and_importing_alone_changes_nothing() -> None:
    pages = 20 * 8 * (1 << 20) // 4096
    assert faults(keep=True) < pages // 10
    assert faults(keep=False) > pages // 2


@pytest.mark.parametrize("enabled", [True, False])
def test_a_vectorized_run_keeps_freed_memory_only_with_the_speed_layer(monkeypatch, enabled) -> None:
    from micrograd2.data import make_moons
    from micrograd2.training import TrainConfig, vectorized

    calls = []
    monkeypatch.setattr(vectorized.fast, "ENABLED", enabled)
    monkeypatch.setattr(vectorized, "keep_freed_memory", lambda: calls.append(1) or True)
    vectorized.prepare(TrainConfig(device="cpu", hidden=(4,)), make_moons(8, seed=0))
    assert calls == ([1] if enabled else [])


def test_keep_freed_memory_says_whether_it_could() -> None:
    assert fast_tensor.keep_freed_memory() is GLIBC
    assert fast_tensor.MMAP_THRESHOLD <= fast_tensor.TRIM_THRESHOLD
