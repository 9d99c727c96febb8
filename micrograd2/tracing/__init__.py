"""The tracer (``mg.trace``): autograd's events as plain records, narrated as lesson text or JSON.

``tracer.py`` records, ``records.py`` holds the event dataclasses, ``values.py``
keeps and formats values (floats or arrays alike), ``narrate.py`` writes the lesson.
``nodes.py`` is how this layer, the diagrams, the exercises and the lessons read a graph:
one walk, a Variable's node and ``.grad``, and saved values by PyTorch's names.
"""
from __future__ import annotations

from .records import KINDS, Pass, TraceEvent
from .tracer import Tracer, trace
from .values import ArraySummary, format_value, snapshot, to_jsonable

__all__ = ["KINDS", "ArraySummary", "Pass", "TraceEvent", "Tracer", "format_value", "snapshot", "to_jsonable",
           "trace"]
