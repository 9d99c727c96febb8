"""The scalar engine: ``Value`` (one number that remembers how it was computed) and its ops.

``value.py`` is the ``Value`` class; ``ops.py`` holds each op as a ``Function``
with ``forward`` and ``backward`` (the ops of many inputs, ``sum`` and ``dot``, in
``sums.py``).  Pure Python: no imports outside the
standard library and the autograd core.
"""
from __future__ import annotations

from .value import Value, dot, sum

__all__ = ["Value", "dot", "sum"]
