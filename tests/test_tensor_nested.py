"""tensors/nested.py: what tensor(data) refuses, with PyTorch's exception classes and a hint."""
from __future__ import annotations

import pytest

import micrograd2 as mg


@pytest.mark.parametrize("data, error, words", [
    (None, RuntimeError, "Could not infer dtype of NoneType"),
    ([1.0, None], RuntimeError, "Could not infer dtype of NoneType"),
    ([[None]], RuntimeError, "Could not infer dtype of NoneType"),
    ({"a": 1}, RuntimeError, "Could not infer dtype of dict"),
    ([[1.0, 2.0], [3.0]], ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ("1.0", TypeError, "invalid data type 'str'"),
    (["a", "b"], ValueError, "too many dimensions 'str'"),
    ([1.0, "a"], TypeError, "invalid data type 'str'"),
])
def test_bad_data_is_refused_as_pytorch_refuses_it(data, error, words) -> None:
    with pytest.raises(error, match="What to do") as caught:
        mg.tensor(data)
    assert words in str(caught.value)


def test_good_data_still_reads() -> None:
    import math

    assert math.isnan(mg.tensor([float("nan"), 1.0]).tolist()[0])  # a nan is data, not a None
    assert mg.tensor([[1, 2], [3, 4]]).shape == (2, 2)
    assert mg.tensor([]).shape == (0,)
