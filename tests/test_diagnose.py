"""``micrograd2/course/diagnose.py``: the probes that name the hole differing from the reference.

In this process no student engine is on, so the probes run on the core; ``only`` puts single
pieces in its place. ``tests/test_course_engine.py`` runs them on whole engines.
"""
from __future__ import annotations

from typing import Any

import micrograd2 as mg
from micrograd2.autograd.pieces import REFERENCE
from micrograd2.course import diagnose
from micrograd2.tensors.pieces import REFERENCE as TENSOR_REFERENCE


def test_first_difference_names_the_fact() -> None:
    assert diagnose.first_difference({"a": 1, "b": 2}, {"a": 1, "b": 2}) is None
    assert diagnose.first_difference({"a": 1, "b": 3}, {"a": 1, "b": 2}) == \
        "b: got 3, the reference 2"
    assert diagnose.first_difference({"a": 1}, {"a": 1, "b": 2}) == \
        f"b: got {diagnose.NONE}, the reference 2"


def test_a_probe_that_raises_keeps_what_it_found() -> None:
    def facts(found: dict[str, Any]) -> None:
        found["first"] = 1
        raise ValueError("broken\nsecond line")

    assert diagnose.probe(facts) == {"first": 1, "the probe": "raised ValueError: broken"}


def test_the_probes_on_the_core_agree_with_pytorch_numbers() -> None:
    scalar = diagnose.probe(diagnose.scalar_facts)
    assert scalar["the order of visits"] == ["b = x + w", "a = x * w"]  # created last, first
    assert scalar["x.grad after two backward passes"] == 2 * scalar["x.grad after one backward pass"]
    tensor = diagnose.probe(diagnose.tensor_facts)
    assert "the probe" not in tensor and len(tensor) == 4


def test_only_puts_the_records_back() -> None:
    before = (mg.Value.pieces, mg.Tensor.pieces)
    with diagnose.only():
        assert mg.Value.pieces.walk is REFERENCE.walk
        assert mg.Tensor.pieces.sum_to is TENSOR_REFERENCE.sum_to
    assert (mg.Value.pieces, mg.Tensor.pieces) == before


def test_no_engine_nothing_differs() -> None:
    assert diagnose.pieces_that_differ() == [] and diagnose.closing_line() is None
