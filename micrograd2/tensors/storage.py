"""What a Tensor holds and where: its dtypes (names, promotion) and its devices (backends, transfers).

dtypes: ``float32`` (the default), ``float64``, ``float16`` and ``bfloat16``
(stored in float32 arrays whose values are rounded to bfloat16), plus
``int64``/``bool`` for indices and masks.  Devices: ``"cpu"`` (NumPy) and
``"cuda"`` (pycuda), each an array backend (``micrograd2/backends``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dtypes
from ..backends import array_types

if TYPE_CHECKING:
    from .tensor import Tensor

FLOATS = dtypes.DTYPES  # float64, float32, float16, bfloat16
INTEGERS = ("int64", "bool")
_INT_ALIASES = {"int64": "int64", "long": "int64", "bool": "bool"}
_array_types = array_types()


def check_tensor_dtype(dtype: Any) -> str:
    """The canonical name of a Tensor dtype: the four floats (and their aliases), ``int64``/``long``, ``bool``.

    Also accepts NumPy dtypes and ``torch.float32``-like objects.
    """
    name = dtype if isinstance(dtype, str) else str(dtype).removeprefix("torch.")
    if name in _INT_ALIASES:
        return _INT_ALIASES[name]
    if not isinstance(dtype, str) and hasattr(dtype, "__name__") or hasattr(dtype, "char"):
        name = str(getattr(dtype, "name", None) or getattr(dtype, "__name__", name))  # numpy.float32 / dtype
        if name in _INT_ALIASES:
            return _INT_ALIASES[name]
    try:
        return dtypes.check_dtype(name)
    except (ValueError, TypeError):
        raise (ValueError if isinstance(dtype, str) else TypeError)(
            f"unknown dtype {dtype!r}; expected one of 'float32', 'float64', 'float16', 'bfloat16', "
            "'int64', 'bool'\nWhat to do: pass one of these names, e.g. dtype='float64'."
        ) from None


def promote(a: str, b: str) -> str:
    """PyTorch's promotion: floats by width; an integer or bool operand does not widen a float."""
    if a in INTEGERS or b in INTEGERS:
        if a in FLOATS:
            return a
        if b in FLOATS:
            return b
        return "int64" if "int64" in (a, b) else "bool"
    return dtypes.promote(a, b)


def storage_dtype(dtype: str) -> str:
    """The array dtype that holds ``dtype`` (bfloat16 lives in float32 arrays)."""
    return "float32" if dtype == "bfloat16" else dtype


def is_device(x: Any) -> bool:
    """Does ``x`` name a device (``"cpu"``, ``"cuda"``, ``"cuda:0"``)?"""
    name = str(x)
    return name in ("cpu", "cuda") or name.startswith("cuda:")


def cross_device(a: Tensor, b: Tensor) -> float | int:
    """``b`` usable with ``a`` although on another device: only a 0-d CPU Tensor is (as its number)."""
    if b.device == "cpu" and b.ndim == 0:
        return float(b.item()) if b.dtype in FLOATS else int(b.item())
    raise RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, {a.device} and "
        f"{b.device}!\nWhat to do: move one with .to({a.device!r})."
    )
