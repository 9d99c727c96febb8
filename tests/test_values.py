"""How a traced value is kept and shown (micrograd2/tracing/values.py): floats, ints, arrays and Values alike.

It proves that ``snapshot`` keeps numbers as they are, copies small arrays and summarizes large ones
(``ArraySummary``), that ``format_value`` prints each as a lesson shows it, and that ``to_jsonable`` writes
arrays as lists, summaries as objects and infinities and NaN as strings (in a trace's JSON too).
"""
from __future__ import annotations

import json

import numpy as np

import micrograd2 as mg
from micrograd2.tracing import ArraySummary, format_value, snapshot, to_jsonable


def test_snapshot_and_format_of_floats_ints_arrays_and_values() -> None:
    assert snapshot(2.5) == 2.5 and snapshot(3) == 3 and snapshot(None) is None
    assert snapshot(mg.Value(4.0)) == 4.0
    small = np.array([4.0, 5.0], dtype=np.float32)
    copy = snapshot(small)
    small[0] = 99.0
    assert copy.tolist() == [4.0, 5.0]  # a copy, not a view
    big = snapshot(np.arange(100.0).reshape(10, 10))
    assert big == ArraySummary((10, 10), "float64", 0.0, 99.0)
    assert snapshot(np.float32(1.5)) == 1.5 and snapshot(np.array(2.0)) == 2.0
    assert format_value(23.0) == "23.0" and format_value(1 / 3) == "0.333333" and format_value(None) == "None"
    assert format_value(np.array([[1.0, 2.0], [3.0, 4.0]])) == "[[1.0, 2.0], [3.0, 4.0]]"
    assert format_value(big) == "<10×10 float64 in [0.0, 99.0]>"
    assert format_value(float("inf")) == "inf"
    assert to_jsonable(np.array([1.0, 2.0])) == [1.0, 2.0]
    assert to_jsonable(big) == {"shape": [10, 10], "dtype": "float64", "min": 0.0, "max": 99.0}
    assert to_jsonable(float("nan")) == "nan"


def test_json_writes_infinities_as_strings() -> None:
    with mg.trace() as t:
        x = mg.Value(0.0, requires_grad=True, label="x")
        x.log().backward()
    objs = [json.loads(line) for line in t.to_json().splitlines()]
    assert objs[0]["output"] == "-inf"
    assert objs[1]["grad_inputs"] == [["x", "inf"]]

