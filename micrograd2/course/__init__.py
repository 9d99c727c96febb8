"""The course: a student's own engine in place of the core's pieces (docs/course.md).

The core calls its engine's record of pieces (``micrograd2/autograd/pieces.py``) and never asks
whose they are. Here is what builds a student's record and sits around it: the folder read piece
by piece into records (``engine.py``), the student's walk as the core's walk piece (``walk.py``),
the stubs a workspace gets (``workspace.py``, ``stubs/``) and the probes that name the piece that
differs from the reference (``diagnose.py``).
"""
