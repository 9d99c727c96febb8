"""How fast is micrograd2's own CUDA matmul kernel?  TFLOP/s against the H200's FP32 peak and against
``torch.matmul`` with TF32 off (both plain FP32 arithmetic), timed with CUDA events, medians of repeats.

Run on a GPU machine, from the repository root (``benchmarks/gpu_check.sh`` does it):

    python3 benchmarks/bench_cuda.py            # matmul table, tile sweep, MLP (when it exists)
    python3 benchmarks/bench_cuda.py --quick    # 4096^3 only

Prints one row per case: ``case  ours  torch  ours/peak  ours/torch  max rel. error``.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

H200_PEAK = {"float32": 67e12, "float64": 34e12}  # dense, no tensor cores (H200 SXM)


def median_ms(run: Callable[[], Any], repeats: int, event: Callable[[], Any]) -> float:
    """Median milliseconds of ``run()`` between two CUDA events (``event()`` makes one), after a warm-up."""
    run()
    times = []
    for _ in range(repeats):
        start, end = event(), event()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.time_till(end) if hasattr(start, "time_till") else start.elapsed_time(end))
    return statistics.median(times)


def torch_or_reason() -> tuple[Any, str]:
    """torch with TF32 off and CUDA usable, or ``(None, why not)``."""
    try:
        import torch
    except ImportError:
        return None, "torch is not installed"
    if not torch.cuda.is_available():
        return None, "torch sees no GPU"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    return torch, ""


def bench_matmul(backend: Any, torch: Any, n: int, dtype: str, repeats: int) -> dict[str, Any]:
    """One square product n x n x n: our kernel, torch's, their TFLOP/s and how far apart the results are."""
    import pycuda.driver as drv

    rng = np.random.default_rng(0)
    a_host, b_host = rng.random((n, n), dtype=np.float64).astype(dtype), rng.random((n, n)).astype(dtype)
    a, b = backend.from_host(a_host, dtype), backend.from_host(b_host, dtype)
    flops = 2.0 * n * n * n
    ours_ms = median_ms(lambda: backend.matmul(a, b), repeats, drv.Event)
    row: dict[str, Any] = {"case": f"matmul {n}^3 {dtype}", "ours": flops / ours_ms / 1e9}
    row["peak"] = row["ours"] * 1e12 / H200_PEAK[dtype]
    if torch is not None:
        ta, tb = torch.from_numpy(a_host).cuda(), torch.from_numpy(b_host).cuda()
        torch_ms = median_ms(lambda: torch.matmul(ta, tb), repeats, lambda: torch.cuda.Event(enable_timing=True))
        row["torch"] = flops / torch_ms / 1e9
        ours, theirs = backend.to_host(backend.matmul(a, b)), torch.matmul(ta, tb).cpu().numpy()
        row["error"] = float(np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs)))
        del ta, tb
    return row


def sweep_tiles(n: int, repeats: int) -> list[tuple[str, float]]:
    """The raw float32 kernel compiled with other tile sizes (for tuning kernels.cu's defaults)."""
    import pycuda.driver as drv
    from pycuda import gpuarray
    from pycuda.compiler import SourceModule

    from micrograd2.backends import kernel_source

    variants = {
        "128x128x8, 8x8 (default)": {},
        "128x128x16, 8x8": {"MM_BK": 16},
        "128x64x8, 8x4": {"MM_BN": 64, "MM_TN": 4},
        "64x64x8, 4x4": {"MM_BM": 64, "MM_BN": 64, "MM_TM": 4, "MM_TN": 4},
        "64x64x16, 4x4": {"MM_BM": 64, "MM_BN": 64, "MM_BK": 16, "MM_TM": 4, "MM_TN": 4},
    }
    a = gpuarray.to_gpu(np.random.default_rng(1).random((n, n), dtype=np.float32))
    c = gpuarray.empty((n, n), np.float32)
    results = []
    for label, overrides in variants.items():
        tiles = {**kernel_source.defines(), **overrides}
        options = [f"-D{k}={v}" for k, v in overrides.items()]
        kernel = SourceModule(kernel_source.render("float32"), no_extern_c=True, options=options).get_function("matmul")
        kernel.prepare(kernel_source.arg_format("matmul", "float32"))
        threads = (tiles["MM_BM"] // tiles["MM_TM"]) * (tiles["MM_BN"] // tiles["MM_TN"])
        grid = (-(-n // tiles["MM_BN"]), -(-n // tiles["MM_BM"]))

        def run(kernel: Any = kernel, grid: tuple[int, int] = grid, threads: int = threads) -> None:
            kernel.prepared_call(grid, (threads, 1, 1), int(a.gpudata), int(a.gpudata), int(c.gpudata), n, n, n)

        results.append((label, 2.0 * n**3 / median_ms(run, repeats, drv.Event) / 1e9))
    return results


def bench_mlp() -> None:
    """An MLP training step on device='cuda' against 'cpu' and torch: for the Tensor engine's owner to
    write once ``mg.tensor`` exists (this backend's part is done).  Until then it says why it is skipped."""
    try:
        import micrograd2 as mg

        mg.tensor  # noqa: B018  (the lazy import of micrograd2.tensors)
    except (ImportError, AttributeError) as error:
        print(f"bench_mlp: skipped, micrograd2's Tensor engine is not available yet ({error})")
        return
    print("bench_mlp: skipped, the MLP training-step comparison is not written yet (see its docstring)")


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'case':24s} {'ours TF/s':>10s} {'torch TF/s':>11s} {'ours/peak':>10s} {'ours/torch':>11s} {'rel.err':>9s}")
    for r in rows:
        torch_tf = r.get("torch")
        print(
            f"{r['case']:24s} {r['ours']:10.2f} {torch_tf or float('nan'):11.2f} {r['peak']:10.0%} "
            f"{(r['ours'] / torch_tf) if torch_tf else float('nan'):11.0%} {r.get('error', float('nan')):9.1e}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4096^3 float32 only, no sweep")
    args = parser.parse_args()

    from micrograd2.backends.cuda import cuda_status, get_cuda_backend

    ready, message = cuda_status()
    print(message)
    if not ready:
        return 1
    began = time.perf_counter()
    backend = get_cuda_backend()
    torch, why = torch_or_reason()
    if torch is None:
        print(f"torch comparison skipped: {why}")
    cases = [(4096, "float32", 20), (8192, "float32", 10), (4096, "float64", 5)]
    if args.quick:
        cases = cases[:1]
    rows = [bench_matmul(backend, torch, n, dtype, repeats) for n, dtype, repeats in cases]
    print_table(rows)
    if not args.quick:
        print("\nfloat32 kernel tile sweep, 4096^3 (TFLOP/s):")
        for label, tflops in sweep_tiles(4096, 10):
            print(f"  {label:28s} {tflops:7.2f}  ({tflops * 1e12 / H200_PEAK['float32']:.0%} of peak)")
        bench_mlp()
    print(f"\nbenchmark time: {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
