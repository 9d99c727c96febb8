"""Array backends, chosen by device name: ``get_backend("cpu")`` (NumPy) or ``get_backend("cuda")`` (pycuda).

A backend knows arrays, not autograd (see ``base.py``).  The Tensor layer asks
:func:`backend_of` which backend owns an array, so an op finds its backend from
its inputs alone.  Importing this package imports neither NumPy nor pycuda.
"""
from __future__ import annotations

import importlib
from typing import Any

from .base import ArrayBackend

DEVICES = ("cpu", "cuda")

_backends: dict[str, ArrayBackend] = {}
_by_array_type: dict[type, ArrayBackend] = {}  # array class -> the backend that made it

CUDA_MISSING = (
    "the CUDA backend is not available in this build (micrograd2/backends/cuda.py is missing).\n"
    "What to do: install a micrograd2 release that ships it, or use device='cpu'."
)


def check_device(device: Any) -> str:
    """The device name ``"cpu"`` or ``"cuda"`` (``"cuda:0"`` is ``"cuda"``), else a ``RuntimeError``."""
    name = str(device)
    if name.startswith("cuda:") and name[5:].isdigit():
        name = "cuda"
    if name not in DEVICES:
        raise RuntimeError(
            f"Expected one of cpu, cuda device type at start of device string: {device}\n"
            "What to do: pass device='cpu' or device='cuda'."
        )
    return name


def get_backend(device: Any = "cpu") -> ArrayBackend:
    """The backend of ``device``: NumPy for ``"cpu"``, pycuda for ``"cuda"``.

    ``"cuda"`` raises ``RuntimeError`` saying what is missing (pycuda, the driver, a GPU) and how to get it.
    """
    name = check_device(device)
    backend = _backends.get(name)
    if backend is None:
        backend = _make(name)
        _backends[name] = backend
        _by_array_type[type(backend.full((1,), 0.0, "float32"))] = backend
    return backend


def _make(name: str) -> ArrayBackend:
    if name == "cpu":
        from .numpy_backend import NumpyBackend

        return NumpyBackend()
    try:
        cuda = importlib.import_module(f"{__name__}.cuda")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.cuda":
            raise
        raise RuntimeError(CUDA_MISSING) from None
    return cuda.get_cuda_backend()


def backend_of(array: Any) -> ArrayBackend:
    """The backend whose array ``array`` is (a ``TypeError`` for anything else)."""
    backend = _by_array_type.get(type(array))
    if backend is None:
        raise TypeError(f"expected an array of a micrograd2 backend, got {type(array).__name__}")
    return backend


def array_types() -> dict[type, ArrayBackend]:
    """The array classes of the backends made so far, each with its backend (a live dict: read only)."""
    return _by_array_type


__all__ = ["ArrayBackend", "DEVICES", "array_types", "backend_of", "check_device", "get_backend"]
