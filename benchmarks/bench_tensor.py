"""Benchmark of the vectorized engine: micrograd2 Tensors on NumPy against torch on the CPU.

    python benchmarks/bench_tensor.py            # the full run (a few minutes on 2 cores)
    python benchmarks/bench_tensor.py --quick    # fewer repetitions, no scalar batch of 10,000
    python benchmarks/bench_tensor.py --threads 1  # BLAS and torch limited to one thread each (steadier)
    python benchmarks/bench_tensor.py --threads 1 --clock cpu  # CPU seconds: steadier on a busy machine

What it measures, each timing a median over interleaved repetitions (micrograd2, torch, micrograd2, …):

1. the machine: NumPy's BLAS (threadpoolctl: library, kernel, threads) and its float32 matmul peak;
2. one training step (forward, cross-entropy, backward, SGD) of an MLP 784-512-512-10 on a batch of
   512 float32, micrograd2 (device="cpu") against torch with the same number of threads, and the
   GFLOP/s each achieves; and against the step's own matrix products alone (``np.matmul`` on the very
   arrays the step multiplies, timed in the same rounds): the step's floor;
3. the scalar engine against the Tensor engine on the two-moons MLP(2, [16, 16, 1]) at batch 1, 10,
   100, 1,000 and 10,000 (one hinge-loss SGD step): where vectorizing starts to pay;
4. the Python overhead of one tiny Tensor op ((2, 2) add) against torch's, with the cyclic GC on and off.

The measurements run in a child process whose environment lacks ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` (set on some machines for old OpenBLAS builds; they slow a current NumPy), so
the report names the kernel that actually ran.  Nothing else is changed.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

import bench_scalar  # (this script's own folder is on sys.path)
from bench_scalar import paired_ratios

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = (784, 512, 512, 10)
BATCH = 512
CLOCK: Callable[[], float] = time.perf_counter  # --clock cpu: time.process_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions; skip the slowest case")
    parser.add_argument("--threads", type=int, default=None,
                        help="limit NumPy's BLAS (with threadpoolctl) and torch to this many threads")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the rounds by the wall clock, or by this process's CPU time (all its "
                             "threads: with --threads 1, the work itself, whatever else the machine runs)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if not args.child:
        env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
        removed = sorted(set(os.environ) - set(env))
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        print(f"(child process without {', '.join(removed)})" if removed else "(OPENBLAS_CORETYPE not set)")
        command = [sys.executable, os.path.abspath(__file__), "--child", "--clock", args.clock]
        command += ["--quick"] if args.quick else []
        if args.threads:  # BLAS reads these when it loads (enough without threadpoolctl)
            command += ["--threads", str(args.threads)]
            env.update(dict.fromkeys(("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"), str(args.threads)))
        sys.exit(subprocess.call(command, env=env))
    if args.threads:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # the child's environment limits the BLAS (OPENBLAS_NUM_THREADS…)
            run(args.quick)
            return
        import numpy  # noqa: F401  (load the BLAS first: threadpoolctl limits libraries already loaded)

        with threadpool_limits(limits=args.threads, user_api="blas"):
            run(args.quick)
    else:
        run(args.quick)


# -- timing -----------------------------------------------------------------------------------------
def interleaved(fns: dict[str, Callable[[], Any]], reps: int, warmup: int = 2) -> dict[str, float]:
    """Median seconds of each function, run in turn ``reps`` times after ``warmup`` rounds."""
    return {name: statistics.median(ts) for name, ts in rounds(fns, reps, warmup).items()}


def rounds(fns: dict[str, Callable[[], Any]], reps: int, warmup: int = 2) -> dict[str, list[float]]:
    """Seconds of each function in each of ``reps`` rounds (after ``warmup``); they take turns in a round,
    each after a short pause (the other library's worker threads stop spinning), timed by ``CLOCK``."""
    return bench_scalar.interleaved(fns, reps, warmup, clock=CLOCK, pause=0.02)


def per_call(fn: Callable[[], Any], n: int, rounds: int = 7) -> float:
    """Median seconds per call of ``fn`` over ``rounds`` loops of ``n`` calls."""
    for _ in range(n // 10):  # warm up
        fn()
    results = []
    for _ in range(rounds):
        start = CLOCK()
        for _ in range(n):
            fn()
        results.append((CLOCK() - start) / n)
    return statistics.median(results)


# -- the sections -----------------------------------------------------------------------------------------
def machine(np: Any) -> tuple[int, float]:
    """Print the BLAS in use and NumPy's float32 matmul peak; return (threads, peak GFLOP/s)."""
    threads = 1
    try:
        from threadpoolctl import threadpool_info

        for pool in threadpool_info():
            if pool.get("user_api") == "blas":
                threads = int(pool["num_threads"])
                print(f"BLAS: {pool.get('internal_api')} {pool.get('version')}, kernel "
                      f"{pool.get('architecture')}, {threads} thread(s)")
    except ImportError:
        threads = int(os.environ.get("OPENBLAS_NUM_THREADS", os.cpu_count() or 1))
        print(f"threadpoolctl is not installed: assuming {threads} BLAS thread(s) (pip install threadpoolctl)")
    n = 2048
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    a @ a
    seconds = min(timed(lambda: a @ a) for _ in range(5))
    peak = 2 * n**3 / seconds / 1e9
    print(f"NumPy float32 matmul {n}x{n}: {peak:.1f} GFLOP/s (the machine's peak as NumPy measures it)")
    return threads, peak


def timed(fn: Callable[[], Any]) -> float:
    """Seconds of one call, by the clock the rounds use (so the peak and the steps compare)."""
    start = CLOCK()
    fn()
    return CLOCK() - start


def mlp_step(np: Any, torch: Any, mg: Any, reps: int, peak: float) -> None:
    from micrograd2.tensors import functional as F

    rng = np.random.default_rng(0)
    X = rng.standard_normal((BATCH, LAYERS[0])).astype(np.float32)
    y = rng.integers(0, LAYERS[-1], BATCH)
    model = mg.nn.TensorMLP(LAYERS[0], list(LAYERS[1:]), seed=0)
    opt = mg.optim.SGD(model.parameters(), lr=0.01)
    x_mg, y_mg = mg.tensor(X), mg.tensor(y, dtype="int64")

    def step_mg() -> None:
        loss = F.cross_entropy(model(x_mg), y_mg)
        opt.zero_grad()
        loss.backward()
        opt.step()

    products = matmul_operands(np, step_mg)
    fns: dict[str, Callable[[], Any]] = {"micrograd2": step_mg,
                                         "matmuls": lambda: [np.matmul(a, b) for a, b in products]}
    if torch is not None:
        layers: list[Any] = []
        for i in range(len(LAYERS) - 1):
            layers.append(torch.nn.Linear(LAYERS[i], LAYERS[i + 1]))
            if i < len(LAYERS) - 2:
                layers.append(torch.nn.ReLU())
        tmodel = torch.nn.Sequential(*layers)
        topt = torch.optim.SGD(tmodel.parameters(), lr=0.01)
        x_t, y_t = torch.from_numpy(X), torch.from_numpy(y)

        def step_torch() -> None:
            loss = torch.nn.functional.cross_entropy(tmodel(x_t), y_t)
            topt.zero_grad()
            loss.backward()
            topt.step()

        fns["torch"] = step_torch
    times = rounds(fns, reps, warmup=3)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    weights = sum(LAYERS[i] * LAYERS[i + 1] for i in range(len(LAYERS) - 1))
    later = sum(LAYERS[i] * LAYERS[i + 1] for i in range(1, len(LAYERS) - 1))
    flops = 2 * BATCH * (2 * weights + later)  # forward, weight gradients, input gradients of layers 2..
    print(f"\nMLP {'-'.join(map(str, LAYERS))}, batch {BATCH}, float32: one step = forward + cross-entropy + "
          f"backward + SGD ({flops / 1e9:.2f} GFLOP)")
    print(f"{'engine':<12}{'ms/step':>10}{'GFLOP/s':>10}{'% of peak':>11}")
    for name, seconds in medians.items():
        rate = flops / seconds / 1e9
        print(f"{name:<12}{seconds * 1e3:>10.2f}{rate:>10.1f}{100 * rate / peak:>10.0f}%")
    print(f"(matmuls: the step's own {len(products)} matrix products alone, np.matmul on the same arrays)")
    print(f"micrograd2 step / its matmuls: {medians['micrograd2'] / medians['matmuls']:.2f}x  (target <= 1.25x; "
          f"{paired_ratios(times['micrograd2'], times['matmuls'])})")
    if "torch" in medians:
        print(f"throughput micrograd2 / torch: {medians['torch'] / medians['micrograd2']:.2f}x  (target >= 1.0x; "
              f"{paired_ratios(times['torch'], times['micrograd2'])})")


def matmul_operands(np: Any, step: Callable[[], Any]) -> list[tuple[Any, Any]]:
    """The operands of every matrix product one run of ``step`` makes, caught at the CPU backend: timing
    ``np.matmul`` on them gives the step's floor (its non-matmul work is what the step costs above it)."""
    from micrograd2.backends import get_backend

    backend = get_backend("cpu")
    products: list[tuple[Any, Any]] = []
    real = backend.matmul

    def catching(a: Any, b: Any) -> Any:
        products.append((a, b))
        return real(a, b)

    backend.matmul = catching  # type: ignore[method-assign]
    try:
        step()
    finally:
        del backend.matmul  # the class's method again
    return products


def crossover(np: Any, mg: Any, quick: bool) -> None:
    print("\nTwo moons, MLP(2, [16, 16, 1]), one hinge-loss SGD step: scalar engine vs Tensor engine (float32)")
    print(f"{'batch':>7}{'scalar ms':>12}{'tensor ms':>12}{'speed-up':>10}")
    for batch in (1, 10, 100, 1000) if quick else (1, 10, 100, 1000, 10000):
        m = _crossover_row(mg, batch)
        print(f"{batch:>7}{m['scalar'] * 1e3:>12.2f}{m['tensor'] * 1e3:>12.2f}{m['scalar'] / m['tensor']:>9.0f}x")


def _crossover_row(mg: Any, batch: int) -> dict[str, float]:
    """Median seconds of one training step at ``batch`` on each engine, from the same initial weights."""
    from micrograd2.data import make_moons
    from micrograd2.nn.linear import TensorMLP

    X, y = make_moons(batch, noise=0.1, seed=0)
    labels = [2.0 * t - 1.0 for t in y]
    scalar = mg.nn.MLP(2, [16, 16, 1], seed=0)
    sopt = mg.optim.SGD(scalar.parameters(), lr=0.05)
    vector = TensorMLP.from_mlp(mg.nn.MLP(2, [16, 16, 1], seed=0), dtype="float32")
    vopt = mg.optim.SGD(vector.parameters(), lr=0.05)
    xt, yt = mg.tensor(X), mg.tensor([[v] for v in labels])

    def scalar_step() -> None:
        loss = mg.nn.functional.hinge_loss([scalar(x) for x in X], labels)
        sopt.zero_grad()
        loss.backward()
        sopt.step()

    def tensor_step() -> None:
        loss = mg.nn.functional.hinge_loss(vector(xt), yt)
        vopt.zero_grad()
        loss.backward()
        vopt.step()

    reps = 1 if batch >= 10000 else 3 if batch >= 1000 else 7 if batch >= 100 else 21
    return interleaved({"scalar": scalar_step, "tensor": tensor_step}, reps, warmup=1)


def tiny_ops(np: Any, mg: Any) -> dict[str, tuple[float, float]]:
    """Microseconds per (2, 2) add for NumPy and micrograd2, GC on and off.  Run before torch is
    imported: torch's 10⁵ Python objects make every later cyclic-GC pass slower, for any library."""
    a, b = mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([[5.0, 6.0], [7.0, 8.0]])
    ag = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    na, nb = a.numpy(), b.numpy()
    return _per_op({"numpy np.add (the floor)": lambda: np.add(na, nb),
                    "micrograd2 a + b": lambda: a + b,
                    "micrograd2 a + b, a requires grad": lambda: ag + b})


def tiny_ops_torch(torch: Any) -> dict[str, tuple[float, float]]:
    ta, tb = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]])
    tg = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    return _per_op({"torch a + b": lambda: ta + tb, "torch a + b, a requires grad": lambda: tg + tb})


def _per_op(fns: dict[str, Callable[[], Any]]) -> dict[str, tuple[float, float]]:
    on = {name: per_call(fn, 20000) * 1e6 for name, fn in fns.items()}
    gc.disable()
    try:
        off = {name: per_call(fn, 20000) * 1e6 for name, fn in fns.items()}
    finally:
        gc.enable()
    return {name: (on[name], off[name]) for name in fns}


def overhead(results: dict[str, tuple[float, float]]) -> None:
    print("\nPython overhead of one tiny op: (2, 2) float32 add, microseconds per call "
          "(micrograd2 measured before torch was imported)")
    print(f"{'':<38}{'GC on':>11}{'GC off':>10}")
    for name, (on, off) in results.items():
        print(f"{name:<38}{on:>8.2f} us{off:>7.2f} us")
    floor = results["numpy np.add (the floor)"][0]
    plain, recorded = results["micrograd2 a + b"][0], results["micrograd2 a + b, a requires grad"][0]
    print(f"micrograd2 overhead above NumPy: {plain - floor:.2f} us, {recorded - floor:.2f} us recorded "
          "(target <= 5 us)")
    if "torch a + b" in results:
        print(f"micrograd2 / torch per op: {plain / results['torch a + b'][0]:.2f}x, "
              f"recorded {recorded / results['torch a + b, a requires grad'][0]:.2f}x")


def run(quick: bool) -> None:
    import numpy as np

    import micrograd2 as mg
    from micrograd2.fast.tensor import keep_freed_memory

    if mg.fast.ENABLED:  # as a vectorized training run does (micrograd2 train): freed arrays' pages are reused
        keep_freed_memory()
    print("clock: " + ("this process's CPU time (--clock cpu)" if CLOCK is time.process_time else "wall"))
    tiny = tiny_ops(np, mg)
    try:
        import torch
    except ImportError:
        torch = None
        print("torch is not installed: micrograd2 numbers only (pip install torch)")
    threads, peak = machine(np)
    if torch is not None:
        torch.set_num_threads(threads)
        print(f"torch {torch.__version__}: {torch.get_num_threads()} thread(s) (set to match NumPy's BLAS)")
        tiny.update(tiny_ops_torch(torch))
    mlp_step(np, torch, mg, reps=5 if quick else 15, peak=peak)
    crossover(np, mg, quick)
    overhead(tiny)


if __name__ == "__main__":
    main()
