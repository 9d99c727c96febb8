"""The CUDA kernels' source, read from package data: one text per dtype, and what it declares.

``kernels.cu`` is written once over a type ``real_t``; :func:`render` puts ``#define MG2_REAL float``
(or ``double``) in front of it.  The rest of this module reads the source as data — the kernels'
names and parameter lists, the ``#define`` constants (tile sizes), the op-code enums — so that the
launcher (``cuda.py``), the CPU emulator and the tests all follow the one file and never a copy.

Pure Python: nothing here imports pycuda or NumPy.
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass
from functools import cache

from micrograd2.backends.base import BINARY_OPS, UNARY_OPS

KERNEL_FILE = "kernels.cu"

#: The dtypes the kernels are compiled for, and the C type that ``real_t`` becomes.
REAL_TYPES = {"float32": "float", "float64": "double"}

#: Op codes, as the enums in kernels.cu number them (the unary enum adds an internal ``copy``).
BINARY_CODES = {op: code for code, op in enumerate(BINARY_OPS)}
UNARY_CODES = {op: code for code, op in enumerate((*UNARY_OPS, "copy"))}
REDUCE_CODES = {"sum": 0, "max": 1}

_KERNEL = re.compile(
    r'extern "C" __global__ void (?:__launch_bounds__\((?:[^()]|\([^()]*\))*\) )?(\w+)\(([^)]*)\)'
)
_DEFINE = re.compile(r"^#define (\w+) (\d+)\b", re.MULTILINE)
_ENUM = re.compile(r"enum (\w+) \{([^}]*)\}")

# How pycuda packs each scalar parameter type (``struct`` codes; ``P`` is a device pointer).
_SCALAR_FORMATS = {"int": "i", "index_t": "q", "long long": "q"}
_REAL_FORMATS = {"float32": "f", "float64": "d"}


@dataclass(frozen=True)
class Param:
    """One kernel parameter: its name, its C type without qualifiers, and whether it is a pointer."""

    name: str
    ctype: str
    pointer: bool


@cache
def read_source() -> str:
    """The text of ``kernels.cu``, as shipped in the package."""
    return importlib.resources.files("micrograd2.backends").joinpath(KERNEL_FILE).read_text(encoding="utf-8")


def check_dtype(dtype: str) -> str:
    """``dtype`` itself if the kernels exist for it; otherwise a ``TypeError`` saying what to use."""
    if dtype not in REAL_TYPES:
        raise TypeError(
            f"the CUDA kernels are compiled for float32 and float64, not {dtype}: "
            "convert with .float() or .double(), or use device='cpu' for float16/bfloat16"
        )
    return dtype


def render(dtype: str, source: str | None = None) -> str:
    """The source compiled for ``dtype``: ``kernels.cu`` with ``real_t`` fixed to its C type."""
    text = read_source() if source is None else source
    return f"#define MG2_REAL {REAL_TYPES[check_dtype(dtype)]}\n{text}"


def _parse_param(declaration: str) -> Param:
    """``const real_t* __restrict__ x`` -> ``Param("x", "real_t", pointer=True)``."""
    words = declaration.replace("*", " * ").split()
    name = words[-1]
    ctype = " ".join(w for w in words[:-1] if w not in ("const", "__restrict__", "*"))
    return Param(name, ctype, "*" in words)


@cache
def kernel_signatures(source: str | None = None) -> dict[str, tuple[Param, ...]]:
    """Every kernel in the source, in order, with its parameters."""
    text = read_source() if source is None else source
    return {
        name: tuple(_parse_param(p) for p in params.split(","))
        for name, params in _KERNEL.findall(" ".join(text.split()))
    }


def kernel_names(source: str | None = None) -> tuple[str, ...]:
    """The names of all kernels (the same for every dtype)."""
    return tuple(kernel_signatures(source))


@cache
def defines(source: str | None = None) -> dict[str, int]:
    """The integer ``#define`` constants of the source (tile sizes, ``BLOCK_THREADS``, ``MAX_DIMS``)."""
    text = read_source() if source is None else source
    return {name: int(value) for name, value in _DEFINE.findall(text)}


def enum_members(enum: str, source: str | None = None) -> tuple[str, ...]:
    """The member names of one ``enum`` in the source, in order (``"BinaryOp"`` -> ``("OP_ADD", ...)``)."""
    text = read_source() if source is None else source
    bodies = {name: body for name, body in _ENUM.findall(text)}
    return tuple(member.strip() for member in bodies[enum].split(","))


def arg_format(name: str, dtype: str, source: str | None = None) -> str:
    """The ``struct`` format pycuda packs kernel ``name``'s arguments with (``"PPPPqii"``)."""
    formats = dict(_SCALAR_FORMATS, real_t=_REAL_FORMATS[check_dtype(dtype)])
    return "".join("P" if p.pointer else formats[p.ctype] for p in kernel_signatures(source)[name])
