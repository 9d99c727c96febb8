"""The course: a student's own engine in place of the core's holes (docs/course.md).

The registry of holes is the core's (``micrograd2/autograd/holes.py``); here are what sits on
top of it: the stubs a workspace gets (``workspace.py``, ``stubs/``) and the probes that name the
hole that differs from the reference (``diagnose.py``).
"""
