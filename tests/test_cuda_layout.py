"""``micrograd2.backends.cuda_layout``: the CUDA backend's index arithmetic, on the host (no GPU needed).

It proves that axes are merged where every operand walks them contiguously, that contiguous and broadcast
strides, normalised axes (with NumPy's errors), runs of axes and ``-1`` in shapes come out as NumPy's rules say,
that the flat positions of an index are NumPy's, and that op codes, numbers and compute dtypes are told right.
"""
from __future__ import annotations

import numpy as np
import pytest

from micrograd2.backends import cuda_layout


def test_coalesce_merges_axes_every_operand_walks_contiguously():
    assert cuda_layout._coalesce((2, 3, 4), [(12, 4, 1), (12, 4, 1)]) == ([24], [[1], [1]])
    assert cuda_layout._coalesce((2, 3, 4), [(12, 4, 1), (0, 0, 0)]) == ([24], [[1], [0]])
    assert cuda_layout._coalesce((2, 3, 4), [(12, 4, 1), (0, 4, 1)]) == ([2, 12], [[12, 1], [0, 1]])
    assert cuda_layout._coalesce((3, 4), [(1, 3)]) == ([3, 4], [[1, 3]])  # a transpose stays 2-D
    assert cuda_layout._coalesce((1, 5, 1), [(5, 1, 1)]) == ([5], [[1]])
    assert cuda_layout._coalesce((), [(), ()]) == ([1], [[0], [0]])


def test_broadcast_strides_and_runs_and_shapes():
    assert cuda_layout._broadcast_strides((3, 1), (2, 3, 4)) == (0, 1, 0)
    assert cuda_layout._broadcast_strides((), (2,)) == (0,)
    assert cuda_layout._runs((0, 1, 3)) == [(0, 2), (3, 4)]
    assert cuda_layout._resolve_shape(12, (2, -1)) == (2, 6)
    assert cuda_layout._resolve_shape(0, (0, 3)) == (0, 3)
    with pytest.raises(ValueError):
        cuda_layout._resolve_shape(12, (-1, -1))


@pytest.mark.parametrize("index", [(1, slice(None, None, -2)), (np.array([[0], [2]]), np.array([1, 0])), (None, ...)])
def test_flat_positions_index_like_numpy(index):
    flat = np.arange(24).reshape(3, 8)
    np.testing.assert_array_equal(cuda_layout._flat_positions((3, 8), index), flat[index])


def test_contiguous_strides_are_numpys_in_elements() -> None:
    for shape in [(2, 3, 4), (5,), (), (3, 1, 2)]:
        x = np.zeros(shape, np.float64)
        assert cuda_layout._contiguous_strides(shape) == tuple(s // 8 for s in x.strides)


def test_normalize_axes_sorts_wraps_and_refuses_as_numpy() -> None:
    assert cuda_layout._normalize_axes(None, 3) == (0, 1, 2)
    assert cuda_layout._normalize_axes((-1, 0), 3) == (0, 2) and cuda_layout._normalize_axes(-2, 3) == (1,)
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 3"):
        cuda_layout._normalize_axes(3, 3)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        cuda_layout._normalize_axes((1, -2), 3)


def test_op_codes_numbers_and_the_compute_dtype() -> None:
    assert cuda_layout._op_code({"add": 0, "mul": 1}, "mul") == 1
    with pytest.raises(ValueError, match="unknown op 'pow': expected one of add, mul"):
        cuda_layout._op_code({"add": 0, "mul": 1}, "pow")
    assert all(cuda_layout._is_number(v) for v in (1, 2.5, True, np.float32(1), np.bool_(False)))
    assert not cuda_layout._is_number(np.zeros(())) and not cuda_layout._is_number([1])
    assert [cuda_layout._compute_dtype(d) for d in ("float32", "float64", "int64", "bool")] == [
        "float32", "float64", "float64", "float64"]
