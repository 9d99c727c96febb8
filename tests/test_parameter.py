"""micrograd2/nn/parameter.py: ``mg.nn.Parameter``, a Tensor a Module finds as its parameter."""
from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

import micrograd2 as mg  # noqa: E402


def test_a_parameter_requires_grad_shares_its_tensors_memory_and_is_found_by_its_module() -> None:
    t = mg.tensor([1.0, 2.0])
    p = mg.nn.Parameter(t)
    assert p.requires_grad and p.is_leaf and isinstance(p, mg.nn.Parameter)
    with mg.no_grad():
        p.mul_(2.0)
    assert t.tolist() == [2.0, 4.0]  # one memory

    class Scale(mg.nn.Module):
        def __init__(self) -> None:
            self.weight = mg.nn.Parameter(mg.tensor([3.0]))

    assert [q.tolist() for q in Scale().parameters()] == [[3.0]]


def test_ops_on_a_parameter_give_plain_tensors() -> None:
    p = mg.nn.Parameter(mg.tensor([1.0, 2.0]))
    assert type(p * 2.0) is type(mg.tensor([1.0]))
