"""``micrograd2.tensors.storage``: a Tensor's dtypes (names, aliases, promotion) and devices."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.tensors import storage


@pytest.mark.parametrize("given, name", [
    ("float32", "float32"), ("long", "int64"), ("int64", "int64"), ("bool", "bool"), (np.float64, "float64"),
    (np.dtype("float16"), "float16"), ("bfloat16", "bfloat16"),
])
def test_check_tensor_dtype_gives_the_canonical_name(given, name) -> None:
    assert storage.check_tensor_dtype(given) == name


def test_an_unknown_dtype_is_a_value_error_for_a_name_and_a_type_error_otherwise() -> None:
    with pytest.raises(ValueError, match="(?s)unknown dtype .float8.*What to do"):
        storage.check_tensor_dtype("float8")
    with pytest.raises(TypeError, match="unknown dtype"):
        storage.check_tensor_dtype(object())


@pytest.mark.parametrize("a, b, result", [
    ("float32", "float64", "float64"), ("int64", "float16", "float16"), ("bool", "int64", "int64"),
    ("bool", "bool", "bool"), ("bfloat16", "float16", "float32"),
])
def test_promotion_follows_pytorch(a, b, result) -> None:
    assert storage.promote(a, b) == storage.promote(b, a) == result


def test_bfloat16_is_stored_in_float32_arrays() -> None:
    assert storage.storage_dtype("bfloat16") == "float32" and storage.storage_dtype("float16") == "float16"
    assert mg.tensor([1.0], dtype="bfloat16").data.dtype == np.float32


def test_devices_are_recognised_by_name() -> None:
    assert all(storage.is_device(d) for d in ("cpu", "cuda", "cuda:0"))
    assert not storage.is_device("float32")


def test_only_a_0d_cpu_tensor_crosses_devices_as_its_number() -> None:
    class OnGpu:  # stands in for a CUDA Tensor (no GPU needed)
        device, ndim = "cuda", 2

    assert storage.cross_device(OnGpu(), mg.tensor(2.5)) == 2.5  # type: ignore[arg-type]
    assert storage.cross_device(OnGpu(), mg.tensor(3, dtype="int64")) == 3  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="(?s)Expected all tensors to be on the same device.*What to do"):
        storage.cross_device(OnGpu(), mg.tensor([1.0, 2.0]))  # type: ignore[arg-type]
