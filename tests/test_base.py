"""``micrograd2.backends.base``: the array-backend interface and what it defines for every backend.

It proves that ``is_basic_index`` tells basic indices (ints, NumPy integer scalars, slices, ``None``, ``...``)
from advanced ones, that ``ArrayBackend`` is abstract (a backend missing a primitive cannot be made), and that
the op names it lists are distinct.
"""
from __future__ import annotations

import numpy as np
import pytest

from micrograd2.backends.base import BINARY_OPS, UNARY_OPS, ArrayBackend
from micrograd2.backends.numpy_backend import NumpyBackend


def test_array_backend_is_abstract_and_a_backend_lacking_a_primitive_cannot_be_made() -> None:
    with pytest.raises(TypeError, match="abstract"):
        ArrayBackend()  # type: ignore[abstract]

    class NoMatmul(NumpyBackend):
        matmul = ArrayBackend.matmul  # the abstract method again

    with pytest.raises(TypeError, match="matmul"):
        NoMatmul()
    assert ArrayBackend.name == "?" and NumpyBackend().name == "cpu"


def test_the_op_names_are_distinct_and_none_is_both_unary_and_binary() -> None:
    assert len(set(BINARY_OPS)) == len(BINARY_OPS) and len(set(UNARY_OPS)) == len(UNARY_OPS)
    assert not set(BINARY_OPS) & set(UNARY_OPS)


def test_basic_indices_are_ints_slices_none_and_ellipsis() -> None:
    from micrograd2.backends.base import is_basic_index

    assert is_basic_index((0, slice(1, 3), None, Ellipsis)) and is_basic_index(np.int64(2))
    assert not is_basic_index(np.array([0, 0])) and not is_basic_index((slice(None), [1, 2]))
