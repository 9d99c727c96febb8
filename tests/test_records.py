"""What a trace records (micrograd2/tracing/records.py): ``TraceEvent`` and ``Pass``, written as JSON.

It proves that each event becomes one JSON object with the fields of its kind (those always written even when
None, such as an accumulate event's ``old``, and the others only when set) and its values as numbers, that
a field that does not apply to an event's kind is None or empty, and that a ``Pass`` is finished only
when its backward call returned.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import block2_trace

import micrograd2 as mg
from micrograd2.tracing import Pass, TraceEvent


def test_to_json_is_one_object_per_event_with_numbers() -> None:
    t = block2_trace()
    lines = t.to_json().splitlines()
    assert len(lines) == len(t.events)
    objs = [json.loads(line) for line in lines]
    assert objs[3] == {
        "kind": "backward", "step": 1, "pass_no": 1, "node": "SumBackward0", "node_id": "SumBackward0#1",
        "label": "z", "op": "Sum", "output": 23.0, "inputs": [["x[0]·w[0]", 8.0], ["x[1]·w[1]", 15.0]],
        "input_ids": ["MulBackward0#1", "MulBackward0#2"], "input_nrs": [0, 0], "grad_output": 1.0,
        "grad_inputs": [["x[0]·w[0]", 1.0], ["x[1]·w[1]", 1.0]],
    }
    acc = objs[6]
    assert (acc["kind"], acc["label"], acc["old"], acc["new"], acc["leaf"]) == ("accumulate", "x[1]", None, 5.0, True)


def test_an_event_writes_the_fields_of_its_kind_and_the_others_only_when_set() -> None:
    first = TraceEvent("accumulate", step=2, pass_no=1, node="AccumulateGrad", node_id="AccumulateGrad#1",
                       label="x", new=np.array([4.0, 5.0]), leaf=True)
    assert first.to_dict() == {"kind": "accumulate", "step": 2, "pass_no": 1, "node": "AccumulateGrad",
                               "node_id": "AccumulateGrad#1", "label": "x", "old": None, "new": [4.0, 5.0],
                               "leaf": True}  # old: None, written (the first write of a .grad)
    forward = TraceEvent("forward", node="MulBackward0", output=6.0, inputs=(("x", 2.0), ("const", 3.0)),
                         input_ids=("AccumulateGrad#1", None))
    assert forward.to_dict() == {"kind": "forward", "step": None, "pass_no": None, "node": "MulBackward0",
                                 "output": 6.0, "inputs": [["x", 2.0], ["const", 3.0]],
                                 "input_ids": ["AccumulateGrad#1", None]}
    assert (forward.label, forward.grad_inputs, forward.saved, forward.input_nrs) == (None, (), (), ())


def test_a_pass_is_finished_only_when_its_backward_returned() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")

    def fail(grad: float) -> float:
        raise ArithmeticError("stop")

    with mg.trace() as t:
        (x * 3.0).backward()
        y = x * 4.0
        y.register_hook(fail)
        with pytest.raises(ArithmeticError):
            y.backward()
    assert [(p.pass_no, p.roots, p.root_ids, p.finished) for p in t.passes] == [
        (1, (("x·3.0", 6.0),), ("MulBackward0#1",), True), (2, (("x·4.0", 8.0),), ("MulBackward0#2",), False)]
    assert not Pass(3, (), (), (), ()).finished  # a Pass starts unfinished
