"""Run micrograd2's CUDA kernels on the CPU: build ``kernels.cu`` with g++ under ``cuda_emu.h``, call
the kernels with ctypes on NumPy arrays, and offer :class:`EmulatedDevice` so that the whole
``CudaBackend`` runs here too.

Libraries are built once per test session (per process), in one temporary directory.

AddressSanitizer: with ``MG2_ASAN=1`` the libraries are built with ``-fsanitize=address``.  Such a
library loads only into a process that has ``libasan`` preloaded, so the tests then run in a child
``python -m pytest`` with ``LD_PRELOAD=<libasan.so>`` (see ``test_cuda_kernels_emulated.py``); in the
parent process, :func:`skip_reason` says so.  NumPy's arrays come from ``malloc``, which ASan then
guards, so a kernel reading or writing past an array is caught, as is one overrunning ``__shared__``.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from micrograd2.backends import kernel_source

HERE = Path(__file__).resolve().parent
ASAN = os.environ.get("MG2_ASAN") == "1"

#: Small tiles for most matmul checks (fewer threads, so the emulation is fast); the real ones are
#: tested too.  Same code, other #defines.
SMALL_TILES = {"MM_BM": 16, "MM_BN": 16, "MM_BK": 4, "MM_TM": 4, "MM_TN": 4}

# NumPy dtype expected for each pointer parameter's C type (``real_t`` is the library's dtype).
_POINTER_DTYPES = {"float": "float32", "double": "float64", "index_t": "int64", "unsigned char": "bool"}
_SCALAR_CTYPES: dict[str, Any] = {"int": ctypes.c_int, "index_t": ctypes.c_longlong}
_REAL_CTYPES: dict[str, Any] = {"float32": ctypes.c_float, "float64": ctypes.c_double}


def asan_preloaded() -> bool:
    """Is the AddressSanitizer runtime loaded into this process (``LD_PRELOAD``)?"""
    return "libasan" in Path("/proc/self/maps").read_text()


def asan_runtime() -> str:
    """The path of g++'s ``libasan.so``, to preload."""
    path = subprocess.run(["g++", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout
    return os.path.realpath(path.strip())


def skip_reason() -> str | None:
    """Why the emulation cannot run in this process, or ``None`` if it can."""
    if shutil.which("g++") is None:
        return "g++ is not on PATH: the CPU emulation of the CUDA kernels needs it"
    if ASAN and not asan_preloaded():
        return "MG2_ASAN=1: the emulation runs in the child process that preloads libasan"
    return None


# ---------------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------------

_build_dir: Path | None = None
_built: dict[tuple[str, tuple[tuple[str, int], ...]], Path] = {}


def _directory() -> Path:
    """This session's build directory (removed at exit)."""
    global _build_dir
    if _build_dir is None:
        _build_dir = Path(tempfile.mkdtemp(prefix="mg2-cuda-emu-"))
        atexit.register(shutil.rmtree, _build_dir, True)
    return _build_dir


def _write_sources() -> None:
    """The rendered source of each dtype, and ``expose.inc`` (one ``EXPOSE(name)`` per kernel)."""
    directory = _directory()
    for dtype in kernel_source.REAL_TYPES:
        (directory / f"kernels_{dtype}.cu").write_text(kernel_source.render(dtype))
    (directory / "expose.inc").write_text("".join(f"EXPOSE({name})\n" for name in kernel_source.kernel_names()))


def _compile_command(dtype: str, defines: dict[str, int], out: Path) -> list[str]:
    """The g++ command that builds the kernels for ``dtype`` into the shared library ``out``."""
    directory = _directory()
    source = directory / f"kernels_{dtype}.cu"
    flags = ["-fsanitize=address", "-fno-omit-frame-pointer", "-g", "-O1"] if ASAN else ["-O1"]
    return [
        "g++", "-std=c++20", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing", *flags,
        f"-I{HERE}", f"-I{directory}", f'-DMG2_KERNELS_FILE="{source.name}"', '-DMG2_EXPOSE_FILE="expose.inc"',
        *(f"-D{name}={value}" for name, value in defines.items()),
        str(HERE / "driver.cpp"), "-o", str(out),
    ]  # fmt: skip


def build(variants: Sequence[tuple[str, dict[str, int]]]) -> list[Path]:
    """Build (in parallel, once per session) one library per ``(dtype, #defines)`` variant."""
    keys = [(dtype, tuple(sorted(defines.items()))) for dtype, defines in variants]
    todo = [key for key in dict.fromkeys(keys) if key not in _built]

    def compile_one(key: tuple[str, tuple[tuple[str, int], ...]]) -> None:
        dtype, defines = key
        out = _directory() / f"libkernels_{dtype}_{abs(hash(defines))}.so"
        result = subprocess.run(_compile_command(dtype, dict(defines), out), capture_output=True, text=True)
        if result.returncode:
            raise RuntimeError(f"g++ failed to build the emulated kernels:\n{result.stderr}")
        _built[key] = out

    if todo:
        _write_sources()  # before the compilers start: they must not see a half-written file
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        list(pool.map(compile_one, todo))
    return [_built[key] for key in keys]


# ---------------------------------------------------------------------------------------------------
# Launching
# ---------------------------------------------------------------------------------------------------


class Emulator:
    """The kernels of one library (one dtype, one set of #defines), launched from Python."""

    def __init__(self, dtype: str, library: Path, defines: dict[str, int]) -> None:
        self.dtype = dtype
        self.defines = {**kernel_source.defines(), **defines}
        self._library = ctypes.CDLL(str(library))
        self._library.probe_out_of_bounds.argtypes = [ctypes.c_void_p, ctypes.c_longlong]

    def launch(self, kernel: str, grid: int | tuple[int, ...], block: int, *args: Any) -> None:
        """``kernel<<<grid, block>>>(*args)``: arrays for pointers, Python numbers for scalars."""
        params = kernel_source.kernel_signatures()[kernel]
        if len(args) != len(params):
            raise TypeError(f"{kernel} takes {len(params)} arguments, got {len(args)}")
        values = [self._argument(kernel, p, a) for p, a in zip(params, args)]
        pointers = (ctypes.c_void_p * len(values))(*(ctypes.addressof(v) for v in values))
        gx, gy, gz = (*((grid,) if isinstance(grid, int) else grid), 1, 1)[:3]
        function = getattr(self._library, f"launch_{kernel}")
        function.argtypes = [ctypes.c_uint] * 6 + [ctypes.c_void_p]
        function(gx, gy, gz, block, 1, 1, pointers)

    def _argument(self, kernel: str, param: kernel_source.Param, value: Any) -> Any:
        """``value`` as the ctypes object the kernel's parameter expects (arrays must have its dtype)."""
        if param.pointer:
            expected = self.dtype if param.ctype == "real_t" else _POINTER_DTYPES[param.ctype]
            if not isinstance(value, np.ndarray) or value.dtype != expected or not value.flags.c_contiguous:
                got = getattr(value, "dtype", type(value).__name__)
                raise TypeError(f"{kernel}({param.name}): expected a contiguous {expected} array, got {got}")
            return ctypes.c_void_p(value.ctypes.data)
        ctype = _REAL_CTYPES[self.dtype] if param.ctype == "real_t" else _SCALAR_CTYPES[param.ctype]
        return ctype(value)

    def probe_out_of_bounds(self, out: np.ndarray) -> None:
        """Write one element past the end of ``out`` (for checking that ASan catches it)."""
        self._library.probe_out_of_bounds(out.ctypes.data, out.size)


def emulators(defines: dict[str, int] | None = None) -> dict[str, Emulator]:
    """One :class:`Emulator` per dtype, built with ``defines`` (default: the source's own)."""
    chosen = defines or {}
    dtypes = list(kernel_source.REAL_TYPES)
    libraries = build([(dtype, chosen) for dtype in dtypes])
    return {dtype: Emulator(dtype, library, chosen) for dtype, library in zip(dtypes, libraries)}


class EmulatedArray(np.ndarray):
    """The emulated device's arrays: NumPy arrays of a class of their own, so that micrograd2's backend
    registry (one backend per array class) tells them from the ``"cpu"`` backend's."""


class EmulatedDevice:
    """A :class:`micrograd2.backends.cuda.Device` whose memory is NumPy arrays and whose kernels run in
    the emulator.  New arrays are filled with garbage (NaN, or 0x5A bytes), so a kernel that leaves an
    element unwritten shows up."""

    array_type = EmulatedArray

    def __init__(self, block_threads: int = 32, max_blocks: int = 3, tiles: dict[str, int] | None = None) -> None:
        self.block_threads = block_threads
        self.max_blocks = max_blocks
        self._emulators = emulators(tiles)
        self.defines = self._emulators["float32"].defines
        self.launches: list[str] = []

    def empty(self, shape: tuple[int, ...], dtype: str) -> EmulatedArray:
        out = np.empty(shape, dtype).view(EmulatedArray)
        if out.dtype.kind == "f":
            out.fill(np.nan)
        else:
            out.reshape(-1).view(np.uint8).fill(0x5A)
        return out

    def upload(self, host: Any) -> EmulatedArray:
        return np.array(host, order="C").view(EmulatedArray)

    def download(self, x: EmulatedArray) -> np.ndarray:
        return np.array(x)  # a plain ndarray copy

    def view(self, x: EmulatedArray, shape: tuple[int, ...]) -> EmulatedArray:
        out = x.view()
        out.shape = shape  # raises rather than copies
        return out

    def address(self, x: EmulatedArray) -> int:
        return int(x.ctypes.data)

    def copy(self, dst: EmulatedArray, src: EmulatedArray) -> None:
        assert dst.nbytes == src.nbytes
        dst.reshape(-1).view(np.uint8)[:] = src.reshape(-1).view(np.uint8)

    def launch(self, dtype: str, kernel: str, grid: tuple[int, ...], block: int, args: Sequence[Any]) -> None:
        self.launches.append(kernel)
        self._emulators[dtype].launch(kernel, grid, block, *args)

    def empty_cache(self) -> None:
        pass
