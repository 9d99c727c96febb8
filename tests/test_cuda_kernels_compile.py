"""kernels.cu as source: its structure, and what ``nvcc`` makes of it for the H200 (sm_90).

No GPU is needed: ``nvcc --cubin -Xptxas -v`` compiles, and ptxas reports each kernel's registers,
spills and shared memory.  The compile tests skip when nvcc is not on PATH.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from micrograd2.backends import kernel_source
from micrograd2.backends.base import BINARY_OPS, UNARY_OPS

DTYPES = list(kernel_source.REAL_TYPES)
ARCH = "sm_90"  # the H200
SMEM_LIMIT = 48 * 1024  # static shared memory per block

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")


# ---------------------------------------------------------------------------------------------------
# The source itself (no compiler needed)
# ---------------------------------------------------------------------------------------------------


def test_op_code_enums_follow_base_py():
    """The kernels' op codes are the positions in BINARY_OPS / UNARY_OPS (what cuda.py sends)."""
    assert kernel_source.enum_members("BinaryOp") == tuple(f"OP_{op.upper()}" for op in BINARY_OPS)
    assert kernel_source.enum_members("UnaryOp") == tuple(f"OP_{op.upper()}" for op in (*UNARY_OPS, "copy"))
    assert kernel_source.enum_members("ReduceOp") == tuple(f"REDUCE_{op.upper()}" for op in kernel_source.REDUCE_CODES)


def test_parameters_come_in_decreasing_alignment():
    """Pointers, then 8-byte scalars, then real_t, then int: any argument packing is then padding-free."""
    rank = {"index_t": 1, "real_t": 2, "int": 3}
    for name, params in kernel_source.kernel_signatures().items():
        ranks = [0 if p.pointer else rank[p.ctype] for p in params]
        assert ranks == sorted(ranks), f"{name}: {[p.name for p in params]}"


def test_every_kernel_has_a_math_comment():
    """The line above each kernel (or above a group of kernels) says what it computes."""
    lines = kernel_source.read_source().splitlines()
    for i, line in enumerate(lines):
        if line.startswith('extern "C" __global__'):
            above = next(text for text in reversed(lines[:i]) if not text.startswith('extern "C"'))
            assert above.startswith("//"), f"no comment above: {line}"


def test_arg_formats_for_pycuda():
    assert kernel_source.arg_format("binary_op", "float32") == "PPPPqii"
    assert kernel_source.arg_format("fill", "float64") == "Pqd"
    assert kernel_source.arg_format("matmul", "float32") == "PPPiiii"  # A, B, C, M, N, K, batch


def test_render_fixes_the_dtype_and_refuses_float16():
    assert kernel_source.render("float64").startswith("#define MG2_REAL double\n")
    with pytest.raises(TypeError, match="float16"):
        kernel_source.render("float16")


# ---------------------------------------------------------------------------------------------------
# nvcc / ptxas
# ---------------------------------------------------------------------------------------------------


@dataclass
class KernelReport:
    registers: int
    smem: int
    spill_stores: int
    spill_loads: int
    stack: int


def parse_ptxas(report: str) -> dict[str, KernelReport]:
    """``ptxas -v``'s report, per entry function."""
    kernels = {}
    entries = re.findall(r"Compiling entry function '(\w+)' for '\w+'\n(.*?)(?=Compiling entry|\Z)", report, re.S)
    for name, body in entries:
        number = lambda pattern: int(m.group(1)) if (m := re.search(pattern, body)) else 0  # noqa: B023
        kernels[name] = KernelReport(
            registers=number(r"Used (\d+) registers"),
            smem=number(r"(\d+) bytes smem"),
            spill_stores=number(r"(\d+) bytes spill stores"),
            spill_loads=number(r"(\d+) bytes spill loads"),
            stack=number(r"(\d+) bytes stack frame"),
        )
    return kernels


def nvcc(tmp: Path, dtype: str, *flags: str) -> subprocess.CompletedProcess[str]:
    source = tmp / f"kernels_{dtype}.cu"
    source.write_text(kernel_source.render(dtype))
    command = ["nvcc", f"-arch={ARCH}", *flags, str(source), "-o", str(tmp / f"kernels_{dtype}.out")]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, KernelReport]]:
    """ptxas's report for each dtype's module (compiled once for this file)."""
    tmp = tmp_path_factory.mktemp("nvcc")
    return {dtype: parse_ptxas(nvcc(tmp, dtype, "--cubin", "-Xptxas", "-v").stderr) for dtype in DTYPES}


@needs_nvcc
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_kernel_compiles_for_sm90(reports, dtype):
    assert set(reports[dtype]) == set(kernel_source.kernel_names())


@needs_nvcc
@pytest.mark.parametrize("dtype", DTYPES)
def test_no_kernel_spills_registers(reports, dtype):
    spilling = {n: r for n, r in reports[dtype].items() if r.spill_stores or r.spill_loads or r.stack}
    assert not spilling, f"0 bytes spill stores, 0 bytes spill loads expected: {spilling}"


@needs_nvcc
@pytest.mark.parametrize("dtype", DTYPES)
def test_shared_memory_fits_48k(reports, dtype):
    too_big = {n: r.smem for n, r in reports[dtype].items() if r.smem > SMEM_LIMIT}
    assert not too_big


@needs_nvcc
def test_float_matmul_leaves_room_for_two_blocks_per_sm(reports):
    """256 threads x <= 128 registers: two blocks share an SM's 64K registers (see kernels.cu)."""
    matmul = reports["float32"]["matmul"]
    print(f"matmul float32: {matmul}; float64: {reports['float64']['matmul']}")
    assert matmul.registers <= 128


@needs_nvcc
def test_float32_kernels_do_no_float64_arithmetic(tmp_path):
    """A stray double literal (``0.5`` instead of ``real_t(0.5)``) would halve float32 speed: the PTX of
    the float32 module has no ``.f64`` instruction outside the conversion from float64."""
    nvcc(tmp_path, "float32", "--ptx")
    ptx = (tmp_path / "kernels_float32.out").read_text()
    bodies = re.findall(r"\.entry (\w+)\((.*?)\n}\n", ptx, re.S)
    assert {name for name, _ in bodies} == set(kernel_source.kernel_names())
    with_f64 = [name for name, body in bodies if re.search(r"\.f64\b", body) and name != "cast_from_f64"]
    assert not with_f64
