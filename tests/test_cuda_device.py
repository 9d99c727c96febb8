"""``micrograd2.backends.cuda_device``: the CUDA backend's device layer, here its errors (no GPU needed).

It proves that pycuda's exceptions (which are no Python ``RuntimeError``) become one-line ``RuntimeError``\\ s
naming the kind (alone when pycuda gave no message), the first line of pycuda's message and a hint, with the
original as the cause, through the decorator and the context manager alike, and that any other exception passes
unchanged.  The device itself is exercised in ``test_cuda_backend.py`` (the emulator, and
the GPU with ``-m gpu``).
"""
from __future__ import annotations

import pytest

from micrograd2.backends import cuda_device


def pycuda_error(kind: str, message: str) -> Exception:
    """An exception like pycuda's (its class lives in ``pycuda._driver``; it is no RuntimeError)."""
    cls = type(kind, (Exception,), {"__module__": "pycuda._driver"})
    return cls(message)


@pytest.mark.parametrize(
    "kind, hint",
    [("CompileError", "nvcc"), ("MemoryError", "out of GPU memory"), ("LaunchError", "restart"), ("Error", "driver")],
)
def test_pycuda_errors_become_runtime_errors_with_a_hint(kind, hint):
    @cuda_device._cuda_errors
    def fails() -> None:
        raise pycuda_error(kind, "cuLaunchKernel failed: something\nsecond line")

    with pytest.raises(RuntimeError) as caught:
        fails()
    message = str(caught.value)
    assert message.startswith(f"CUDA error ({kind}): cuLaunchKernel failed: something -- ")
    assert hint in message and "\n" not in message
    assert type(caught.value.__cause__).__name__ == kind


def test_other_errors_pass_unchanged():
    @cuda_device._cuda_errors
    def fails() -> None:
        raise ValueError("mine")

    with pytest.raises(ValueError, match="mine"):
        fails()


def test_a_pycuda_error_without_a_message_is_named_by_its_kind() -> None:
    translated = cuda_device._translate(pycuda_error("LogicError", ""))
    assert isinstance(translated, RuntimeError)
    assert str(translated) == f"CUDA error (LogicError): LogicError -- {cuda_device._HINTS['LogicError']}"
    assert cuda_device._translate(RuntimeError("not pycuda's")) is None


def test_the_context_manager_translates_inside_its_block_only() -> None:
    with pytest.raises(RuntimeError, match=r"^CUDA error \(MemoryError\): cuMemAlloc failed -- out of GPU memory"):
        with cuda_device._pycuda_errors_as_runtime_errors():
            raise pycuda_error("MemoryError", "cuMemAlloc failed\nmore")
    with pytest.raises(KeyError):
        with cuda_device._pycuda_errors_as_runtime_errors():
            raise KeyError("mine")
