"""``micrograd2.backends.kernel_source``: the CUDA kernels' source read as data (no GPU, no nvcc needed).

It proves that the source ships with the package, that ``check_dtype`` lets through only the dtypes the kernels
are compiled for and says what to do otherwise, that kernels' names and parameters, the integer ``#define``\\ s and
the enums are read from a source text as written (const, ``__restrict__``, pointers and ``__launch_bounds__``
understood), and that pycuda's argument format follows the parameters.  The checks of ``kernels.cu`` itself
against ``base.py`` and nvcc are in ``test_cuda_kernels_compile.py``.
"""
from __future__ import annotations

import pytest

from micrograd2.backends import kernel_source
from micrograd2.backends.kernel_source import Param

SOURCE = """
#define TILE 16  // a tile
#define HALF (TILE / 2)
enum Mode { MODE_A, MODE_B , MODE_C };
extern "C" __global__ void scale(const real_t* __restrict__ x, real_t* out, index_t n, real_t factor) {}
extern "C" __global__ void __launch_bounds__(MAX(1, 2)) count(const unsigned char* mask,
                                                          long long* total, int n) {}
"""


def test_the_source_ships_with_the_package_and_declares_its_kernels() -> None:
    text = kernel_source.read_source()
    assert "real_t" in text and len(kernel_source.kernel_names()) > 0
    assert all(f" {name}(" in " ".join(text.split()) for name in kernel_source.kernel_names())


def test_check_dtype_lets_through_only_float32_and_float64() -> None:
    assert kernel_source.check_dtype("float32") == "float32" and kernel_source.check_dtype("float64") == "float64"
    for dtype in ("float16", "bfloat16", "int64"):
        with pytest.raises(TypeError, match=f"not {dtype}: convert with .float"):
            kernel_source.check_dtype(dtype)


def test_render_puts_the_c_type_in_front_of_the_given_source() -> None:
    assert kernel_source.render("float32", SOURCE) == "#define MG2_REAL float\n" + SOURCE


def test_kernel_signatures_read_names_and_parameters_as_written() -> None:
    signatures = kernel_source.kernel_signatures(SOURCE)
    assert list(signatures) == ["scale", "count"] == list(kernel_source.kernel_names(SOURCE))
    assert signatures["scale"] == (Param("x", "real_t", True), Param("out", "real_t", True),
                                   Param("n", "index_t", False), Param("factor", "real_t", False))
    assert signatures["count"] == (Param("mask", "unsigned char", True), Param("total", "long long", True),
                                   Param("n", "int", False))


def test_defines_and_enum_members() -> None:
    assert kernel_source.defines(SOURCE) == {"TILE": 16}  # an expression is no integer constant
    assert kernel_source.enum_members("Mode", SOURCE) == ("MODE_A", "MODE_B", "MODE_C")


def test_arg_format_packs_pointers_and_each_scalar_type() -> None:
    assert kernel_source.arg_format("scale", "float32", SOURCE) == "PPqf"
    assert kernel_source.arg_format("scale", "float64", SOURCE) == "PPqd"
    assert kernel_source.arg_format("count", "float64", SOURCE) == "PPi"
    with pytest.raises(TypeError, match="not float16"):
        kernel_source.arg_format("scale", "float16", SOURCE)
