"""``micrograd2.backends``: choosing a backend by device name, and finding an array's backend."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from micrograd2 import backends
from micrograd2.backends.numpy_backend import NumpyBackend


def test_cpu_is_the_numpy_backend_made_once() -> None:
    be = backends.get_backend("cpu")
    assert isinstance(be, NumpyBackend) and backends.get_backend("cpu") is be


def test_backend_of_finds_the_backend_of_an_array() -> None:
    be = backends.get_backend("cpu")
    assert backends.backend_of(np.ones(2)) is be
    with pytest.raises(TypeError, match="expected an array of a micrograd2 backend"):
        backends.backend_of([1.0])


def test_device_names_are_checked() -> None:
    assert backends.check_device("cuda:0") == "cuda"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        backends.get_backend("mps")


def test_cuda_without_pycuda_or_a_gpu_says_what_is_missing() -> None:
    try:
        backends.get_backend("cuda")
    except RuntimeError as error:
        assert any(word in str(error) for word in ("pycuda", "GPU", "driver", "CUDA"))
    else:  # pragma: no cover - a machine with a GPU
        pytest.skip("CUDA is available here")


def test_a_build_without_the_cuda_module_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_cuda(name: str, *args: object) -> object:
        if name == "micrograd2.backends.cuda":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name, *args)

    monkeypatch.setattr(backends.importlib, "import_module", without_cuda)
    monkeypatch.delitem(backends._backends, "cuda", raising=False)
    with pytest.raises(RuntimeError, match="the CUDA backend is not available in this build"):
        backends.get_backend("cuda")
