"""The tracer and the core's hook point together: ``mg.trace()`` subscribes to ``micrograd2.autograd.events``
only while it is open, and unsubscribes on exit, an exception included.

This file keeps the one test that is about both modules at once; the tracer's own tests are in
test_tracer.py, the naming in test_names.py, the records in test_records.py, the values in test_values.py,
and the hook point's own in test_events.py.
"""
from __future__ import annotations

import pytest

import micrograd2 as mg
from micrograd2.autograd import events


# -- on and off ---------------------------------------------------------------------------------------
def test_tracer_unsubscribes_on_exit_and_on_exception() -> None:
    assert not events.listening
    with mg.trace():
        assert events.listening
    assert not events.listening and events.listeners() == ()
    with pytest.raises(ZeroDivisionError):
        with mg.trace():
            1 / 0
    assert not events.listening and events.listeners() == ()
