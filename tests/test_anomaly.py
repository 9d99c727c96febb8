"""Anomaly detection: NaN from a backward is raised with the node's name; inf is not (E13)."""
from __future__ import annotations

import math
import warnings

import pytest

import micrograd2 as mg


def test_nan_gradient_is_silent_without_anomaly_mode() -> None:
    x = mg.Value(0.0, requires_grad=True)
    (x.log() * 0).backward()
    assert math.isnan(x.grad)


def test_detect_anomaly_names_the_node_that_returned_nan_and_where_it_was_made() -> None:
    x = mg.Value(0.0, requires_grad=True)
    with pytest.warns(UserWarning) as record, mg.detect_anomaly():
        y = x.log() * 0
        with pytest.raises(RuntimeError, match=r"Function 'LogBackward0' returned nan values in its 0th output\."):
            y.backward()
    messages = " ".join(str(w.message) for w in record)
    assert "Anomaly Detection has been enabled" in messages
    assert "Error detected in LogBackward0" in messages and "test_anomaly.py" in messages


def test_sqrt_of_square_at_zero_flags_the_node_where_nan_appears() -> None:
    x = mg.Value(0.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mg.set_detect_anomaly(True)
        try:
            y = (x**2).sqrt()
            with pytest.raises(RuntimeError, match="Function 'PowBackward0' returned nan"):
                y.backward()
        finally:
            mg.set_detect_anomaly(False)


def test_infinities_are_not_flagged() -> None:
    x = mg.Value(0.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.detect_anomaly():
            x.log().backward()
    assert x.grad == math.inf


def test_set_detect_anomaly_is_also_a_context_manager() -> None:
    assert not mg.is_anomaly_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with mg.set_detect_anomaly(True):
            assert mg.is_anomaly_enabled()
    assert not mg.is_anomaly_enabled()


def test_check_nan_false_keeps_anomaly_mode_but_checks_no_nan() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.detect_anomaly(check_nan=False):
            assert mg.is_anomaly_enabled() and not mg.autograd.is_anomaly_check_nan_enabled()
            x = mg.Value(0.0, requires_grad=True)
            (x.sqrt() * 0).backward()  # NaN, unflagged
        with mg.set_detect_anomaly(True, check_nan=True):
            assert mg.autograd.is_anomaly_check_nan_enabled()
    assert not mg.is_anomaly_enabled() and mg.autograd.is_anomaly_check_nan_enabled()
