"""``micrograd2.tensors.casts``: ``to(dtype)`` / ``to(device)`` and their short spellings.

It proves that a cast to what the Tensor already is returns the Tensor itself, that a real cast records
PyTorch's ``ToCopyBackward0``, rounds as the narrower dtype does and sends the gradient back in the input's
dtype (twice differentiable), that a cast to integers or bool truncates and records nothing, and that
``float()``, ``half()``, ``double()``, ``long()`` and ``type_as`` are ``to``.
"""
from __future__ import annotations

import micrograd2 as mg


def test_to_the_same_device_and_dtype_returns_self() -> None:
    t = mg.tensor([1.0], requires_grad=True)
    assert t.to("cpu") is t and t.to("float32") is t and t.cpu() is t


def test_to_dtype_is_differentiable_and_the_gradient_comes_back_in_the_input_dtype() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, dtype="float64")
    y = x.to("float32")
    assert y.dtype == "float32" and y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.dtype == "float64" and x.grad.tolist() == [2.0, 4.0]
    assert x.float().dtype == "float32" and x.half().dtype == "float16" and x.double() is x


def test_a_cast_to_float16_rounds_the_value_and_the_gradient_is_rounded_where_it_flows_in_float16() -> None:
    x = mg.tensor([1.0 / 3.0, 2.5], requires_grad=True, dtype="float64")
    y = x.half()
    assert y.tolist() == [0.333251953125, 2.5]  # 1/3 rounded to float16
    (y * 0.1).sum().backward()
    assert x.grad.dtype == "float64" and x.grad.tolist() == [0.0999755859375] * 2  # 0.1 in float16, as torch


def test_type_as_casts_to_the_other_tensors_dtype() -> None:
    x = mg.tensor([1.5], requires_grad=True, dtype="float64")
    z = x.type_as(mg.tensor([1.0], dtype="bfloat16"))
    assert z.dtype == "bfloat16" and z.grad_fn.name() == "ToCopyBackward0"
    assert x.type_as(x) is x


def test_a_cast_to_integers_or_bool_truncates_and_has_no_history() -> None:
    a = mg.tensor([1.7, -1.7, 0.0], requires_grad=True)
    i, b = a.to("int64"), a.to("bool")
    assert i.tolist() == [1, -1, 0] and i.dtype == "int64" and not i.requires_grad and i.grad_fn is None
    assert b.tolist() == [True, True, False] and b.dtype == "bool" and not b.requires_grad
    assert a.long().tolist() == [1, -1, 0]


def test_a_cast_is_twice_differentiable() -> None:
    g = mg.tensor([0.5], requires_grad=True, dtype="float64")
    (d,) = mg.autograd.grad((g.float() ** 3).sum(), g, create_graph=True)  # 3 g², through float32
    assert d.dtype == "float64" and d.grad_fn.name() == "ToCopyBackward0" and d.tolist() == [0.75]
    (h,) = mg.autograd.grad(d.sum(), g)
    assert h.tolist() == [3.0]  # 6 g
