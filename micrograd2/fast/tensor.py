"""The Tensor engine's speed layer: freed arrays' memory kept for the next step (glibc's
``malloc``).

A training step makes and frees the same arrays every time: layer outputs,
gradients, masks, a few MB each.  glibc's ``malloc`` hands an allocation of more
than 128 KiB to the kernel as fresh pages (``mmap``), and gives freed memory at
the top of its heap back; so every step pays for the same pages again, one page
fault per 4 KiB, each page zeroed by the kernel — about a tenth of the MLP step
of ``benchmarks/bench_tensor.py`` on one thread, more than all its elementwise
ops together.  PyTorch's step makes almost none.

:func:`keep_freed_memory` asks ``malloc`` (``mallopt``) to serve allocations of
up to :data:`MMAP_THRESHOLD` from its heap and to keep up to
:data:`TRIM_THRESHOLD` of free memory there: the next step reuses the pages of
the last one.  Results are unchanged (only where the arrays live); the price is
that a process keeps up to that much freed memory.  Importing micrograd2 never
calls it (it would change the whole process's ``malloc``): a vectorized training
run does, when it starts with the speed layer on (``micrograd2 train``,
``micrograd2.training.vectorized.prepare``), and so does ``bench_tensor.py``;
your own training loop may call it too.  Other C libraries (musl, macOS) are
left alone.
"""
from __future__ import annotations

import ctypes
import platform

# Allocations up to 32 MiB come from the heap (glibc's own ceiling for its dynamic threshold).
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20  # up to 64 MiB of free memory stays at the top of the heap
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (glibc's malloc.h)

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_memory"]


def keep_freed_memory() -> bool:
    """Set glibc's ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD`` (see the module docstring).

    Returns whether it did: ``False`` on a C library other than glibc, or if ``mallopt`` refused.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return (bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
            and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)))
