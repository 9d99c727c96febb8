r"""The CUDA backend's device layer: pycuda's memory, transfers and kernel launches, and its errors.

:class:`Device` is what :class:`~micrograd2.backends.cuda.CudaBackend` needs from a machine;
:class:`PycudaDevice` is the real GPU (the tests plug in a CPU emulator instead).  pycuda's own
exceptions become one-line Python ``RuntimeError``\ s with a hint.  pycuda is imported only when a
device is made.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, cast

try:  # a dependency of micrograd2; but cuda_status() must still run, and say so, without it
    import numpy as np
except ModuleNotFoundError:  # pragma: no cover
    np = None  # type: ignore[assignment]

from micrograd2.backends import kernel_source
from micrograd2.backends.base import Array, Shape

F = TypeVar("F", bound=Callable[..., Any])


# ---------------------------------------------------------------------------------------------------
# pycuda's exceptions -> Python RuntimeError
# ---------------------------------------------------------------------------------------------------

_HINTS = {
    "CompileError": "nvcc could not compile micrograd2's kernels: is nvcc on PATH, and does it know the GPU?",
    "MemoryError": "out of GPU memory: use smaller batches, drop unused arrays, or call empty_cache()",
    "LaunchError": "a kernel failed (often an out-of-bounds access) and the CUDA context is lost: restart",
    "LogicError": "pycuda was used wrongly (no current CUDA context, or an array from another context)",
}


def _translate(error: BaseException) -> RuntimeError | None:
    """A one-line Python ``RuntimeError`` for one of pycuda's exceptions; ``None`` for anything else."""
    kind = type(error)
    if not kind.__module__.startswith("pycuda"):
        return None
    first_line = (str(error).strip().splitlines() or [kind.__name__])[0]
    hint = _HINTS.get(kind.__name__, "the CUDA driver reported an error")
    return RuntimeError(f"CUDA error ({kind.__name__}): {first_line} -- {hint}")


@contextlib.contextmanager
def _pycuda_errors_as_runtime_errors() -> Iterator[None]:
    """Re-raise pycuda's exceptions, inside the ``with`` block, as Python ``RuntimeError`` with a hint."""
    try:
        yield
    except Exception as error:
        translated = _translate(error)
        if translated is None:
            raise
        raise translated from error


def _cuda_errors(method: F) -> F:
    """Decorator: the method's pycuda exceptions become Python ``RuntimeError`` with a hint."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _pycuda_errors_as_runtime_errors():
            return method(*args, **kwargs)

    return cast(F, wrapper)


# ---------------------------------------------------------------------------------------------------
# Devices: memory, transfers, launches
# ---------------------------------------------------------------------------------------------------


class Device(Protocol):
    """What :class:`CudaBackend` needs from a machine.  Arrays are C-contiguous."""

    array_type: type  #: the device's array class (index arrays of this class are copied to the host)
    block_threads: int  #: threads per block: a power of two <= BLOCK_THREADS of kernels.cu
    max_blocks: int  #: the most blocks a grid-stride kernel is launched with
    defines: dict[str, int]  #: the integer #defines the kernels were compiled with (matmul tiles)

    def empty(self, shape: Shape, dtype: str) -> Array: ...

    def upload(self, host: Any) -> Array: ...

    def download(self, x: Array) -> Any: ...

    def view(self, x: Array, shape: Shape) -> Array: ...

    def address(self, x: Array) -> int: ...  #: where ``x``'s first byte is (to tell views from copies)

    def copy(self, dst: Array, src: Array) -> None: ...

    def launch(
        self, dtype: str, kernel: str, grid: tuple[int, ...], block: int, args: Sequence[Any]
    ) -> None: ...

    def empty_cache(self) -> None: ...


class PycudaDevice:
    """The real GPU through pycuda: device 0's primary context (shared with PyTorch or CuPy in the same
    process), a memory pool, and the kernels compiled per dtype on first use (pycuda also caches the
    compiled code on disk)."""

    block_threads = 256

    def __init__(self) -> None:
        import pycuda.driver as drv
        from pycuda import gpuarray
        from pycuda.tools import DeviceMemoryPool

        drv.init()
        self._context = drv.Device(0).retain_primary_context()
        self._context.push()
        atexit.register(self._close)
        self._pool = DeviceMemoryPool()
        self.array_type = gpuarray.GPUArray
        sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
        self.max_blocks = 32 * sms
        self.defines = kernel_source.defines()
        self._modules: dict[str, Any] = {}
        self._functions: dict[tuple[str, str], Any] = {}

    def _close(self) -> None:
        """At exit: stop caching memory and release the context, as ``pycuda.autoprimaryctx`` does."""
        from pycuda.tools import clear_context_caches

        self._pool.stop_holding()
        self._context.pop()
        clear_context_caches()

    def empty(self, shape: Shape, dtype: str) -> Array:
        from pycuda import gpuarray

        return gpuarray.GPUArray(shape, np.dtype(dtype), allocator=self._pool.allocate)

    def upload(self, host: Any) -> Array:
        out = self.empty(host.shape, host.dtype.name)
        if host.size:
            out.set(np.asarray(host, order="C"))
        return out

    def download(self, x: Array) -> Any:
        return x.get()

    def view(self, x: Array, shape: Shape) -> Array:
        from pycuda import gpuarray

        if x.size == 0:
            return self.empty(shape, x.dtype.name)
        return gpuarray.GPUArray(shape, x.dtype, allocator=x.allocator, base=x, gpudata=x.gpudata)

    def copy(self, dst: Array, src: Array) -> None:
        import pycuda.driver as drv

        if src.nbytes:
            drv.memcpy_dtod(dst.gpudata, src.gpudata, src.nbytes)

    def launch(self, dtype: str, kernel: str, grid: tuple[int, ...], block: int, args: Sequence[Any]) -> None:
        values = [self.address(a) if isinstance(a, self.array_type) else a for a in args]
        self._function(dtype, kernel).prepared_call(grid, (block, 1, 1), *values)

    @staticmethod
    def address(x: Array) -> int:
        """The device address of ``x``'s first element (0 for an empty array, which has no memory)."""
        return int(x.gpudata) if x.size else 0

    def _function(self, dtype: str, kernel: str) -> Any:
        """Kernel ``kernel`` of the module compiled for ``dtype``, prepared with its argument format."""
        key = (dtype, kernel)
        if key not in self._functions:
            if dtype not in self._modules:
                from pycuda.compiler import SourceModule

                self._modules[dtype] = SourceModule(kernel_source.render(dtype), no_extern_c=True)
            function = self._modules[dtype].get_function(kernel)
            self._functions[key] = function.prepare(kernel_source.arg_format(kernel, dtype))
        return self._functions[key]

    def empty_cache(self) -> None:
        self._pool.free_held()
