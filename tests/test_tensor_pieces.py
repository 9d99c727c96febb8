"""``micrograd2/tensors/pieces.py``: the Tensor ops hand broadcasting's, the reductions' and
matmul's backward to the engine's record, and the reference gives the gradients it always gave."""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.autograd import gradcheck, pieces
from micrograd2.tensors import pieces as tensor_pieces


def test_the_reference_record_holds_the_cores_pieces_and_the_tensor_ops_own() -> None:
    ref = tensor_pieces.REFERENCE
    assert mg.Tensor.pieces is ref
    assert (ref.record, ref.walk) == (pieces.REFERENCE.record, pieces.REFERENCE.walk)
    assert ref.sum_to is tensor_pieces.sum_to


@pytest.mark.parametrize("build", [
    lambda a: a.sum(), lambda a: a.sum(1), lambda a: a.sum(0, keepdim=True),
    lambda a: a.mean(), lambda a: a.mean(1), lambda a: a.mean((0, 1), keepdim=True),
    lambda a: (a + mg.tensor([1.0, 2.0, 3.0], dtype="float64")).sum(0),
    lambda a: a @ a.t(),
])
def test_the_reference_pieces_pass_gradcheck(build: Any) -> None:
    a = mg.tensor(np.arange(6.0).reshape(2, 3) - 2.5, dtype="float64", requires_grad=True)
    assert gradcheck(build, (a,))


def test_each_tensor_piece_is_called_by_its_op() -> None:
    calls: list[str] = []

    def spy(name: str) -> Any:
        piece = getattr(tensor_pieces.REFERENCE, name)
        return lambda *args: calls.append(name) or piece(*args)

    names = ("sum_to", "sum_backward", "mean_backward", "matmul_backward")
    record = dataclasses.replace(tensor_pieces.REFERENCE, **{n: spy(n) for n in names})
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = mg.tensor([1.0, -1.0], requires_grad=True)
    with pieces.using(mg.Tensor, record):
        ((a + b) @ a).sum().backward()
        a.mean(0).sum().backward()
    assert sorted(set(calls)) == sorted(names)
