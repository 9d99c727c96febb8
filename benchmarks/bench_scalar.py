"""The scalar engine against pip's micrograd 0.1.0 and torch 0-d tensors.

Run:  python benchmarks/bench_scalar.py [--quick] [--baseline DIR]

``--baseline DIR``: DIR is a checkout (a git worktree) of an earlier commit; its micrograd2 is loaded
beside this one, under another name, and timed in the same rounds: each row then gives this commit's
speed over the baseline's (issue 33's floors: the chain >= 0.9x, the step >= 0.95x).

Rows for both engine paths: the speed layer's (the default) and the reference path's (the same
measurements again in a child process with ``MICROGRAD2_REFERENCE=1``; ``--this-path-only`` skips it).

(a) one training step of MLP(2, [16, 16, 1]) on 100 two-moons points (forward, hinge loss,
    backward, SGD update), micrograd2 vs micrograd built the same way — timed before torch is
    imported (torch's objects slow every cyclic collection after); and again with the cyclic GC off
    for both (micrograd's graphs are cyclic: most of its step is collection);
(b) a 10,000-op chain (mul, add, relu) forward + backward vs micrograd and torch 0-d tensors;
(c) bytes per node of a long chain (tracemalloc): the graph after the forward pass (at most 350), and
    the peak over forward and backward (at most 450; issue 23).
Same process, interleaved, medians of repeats, default garbage collector (a ``gc.collect()`` before each
timed call, so neither engine pays for the other's garbage).  Ratios are taken round by round (the machine's
speed drifts; a round's runs are seconds apart): the median and the middle half.  Prints a table.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import math
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import micrograd2 as mg

try:
    import micrograd.engine
    import micrograd.nn
except ImportError:  # pip install micrograd==0.1.0 (the `bench` extra)
    micrograd = None

BASELINE: Any = None  # --baseline DIR: that checkout's micrograd2 (load_baseline)


def two_moons(n: int, seed: int = 0) -> tuple[list[list[float]], list[float]]:
    """n points of the two-moons data set, labels ±1 (inline: no dataset dependency)."""
    rng = random.Random(seed)
    xs, ys = [], []
    for i in range(n):
        t = math.pi * rng.random()
        if i % 2:
            x, y, label = math.cos(t), math.sin(t), 1.0
        else:
            x, y, label = 1 - math.cos(t), 0.5 - math.sin(t), -1.0
        xs.append([x + rng.gauss(0, 0.1), y + rng.gauss(0, 0.1)])
        ys.append(label)
    return xs, ys


# -- (a) a training step -------------------------------------------------------------------------
def micrograd2_step(model: Any, xs: list[list[float]], ys: list[float], lr: float = 0.05,
                    lib: Any = mg) -> Callable[[], None]:
    opt = lib.optim.SGD(model.parameters(), lr=lr)
    inputs = [[lib.Value(v) for v in row] for row in xs]

    def step() -> None:
        scores = [model(x) for x in inputs]
        loss = lib.sum((1 - y * s).relu() for s, y in zip(scores, ys)) * (1.0 / len(ys))
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def micrograd_step(model: Any, xs: list[list[float]], ys: list[float], lr: float = 0.05) -> Callable[[], None]:
    V = micrograd.engine.Value
    inputs = [[V(v) for v in row] for row in xs]

    def step() -> None:
        scores = [model(x) for x in inputs]
        loss = sum((1 + -y * s).relu() for s, y in zip(scores, ys)) * (1.0 / len(ys))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad

    return step


def interleaved(fns: dict[str, Callable[[], Any]], repeats: int, warmup: int = 1,
                clock: Callable[[], float] = time.perf_counter, pause: float = 0.0) -> dict[str, list[float]]:
    """Seconds per call of each fn in each of ``repeats`` rounds, calling them in turn (so load hits all
    alike), after ``warmup`` untimed rounds; ``pause`` seconds before each call (another library's worker
    threads stop spinning), timed by ``clock``."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for i in range(warmup + repeats):
        for name, fn in fns.items():
            gc.collect()  # start each timed call from a clean heap: no one pays for the other's garbage
            time.sleep(pause)
            t0 = clock()
            fn()
            if i >= warmup:
                times[name].append(clock() - t0)
    return times


# -- (b) a chain ---------------------------------------------------------------------------------------
def chain(make: Callable[[float], Any], relu: Callable[[Any], Any] | None, n: int) -> tuple[Any, Any]:
    """x → ·1.0000001 → +0.001 → relu → ·… (without relu: mul and add only)."""
    x = make(1.0)
    h = x
    period = 3 if relu else 2
    for i in range(n):
        r = i % period
        h = h * 1.0000001 if r == 0 else h + 0.001 if r == 1 else relu(h)  # type: ignore[misc]
    return x, h


def chain_runner(make: Callable[[float], Any], relu: Callable[[Any], Any], n: int) -> Callable[[], tuple[float, float]]:
    def run() -> tuple[float, float]:
        t0 = time.perf_counter()
        _, h = chain(make, relu, n)
        t1 = time.perf_counter()
        h.backward()
        return t1 - t0, time.perf_counter() - t1

    return run


def chain_times(runners: dict[str, Callable[[], tuple[float, float]]],
                repeats: int) -> dict[str, list[tuple[float, float]]]:
    """(forward, backward) seconds of each runner in each round; the runners take turns within a round."""
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runners}
    for _ in range(repeats):
        for name, run in runners.items():
            gc.collect()
            times[name].append(run())
    return times


def paired_ratios(theirs: list[float], ours: list[float]) -> str:
    """Their time over ours, round by round: the median and the middle half of the ratios.
    (The machine's speed drifts; a round's runs are seconds apart, so their ratio drifts less.)"""
    ratios = sorted(t / o for t, o in zip(theirs, ours))
    quarter = len(ratios) // 4
    low, high = ratios[quarter], ratios[-1 - quarter]
    return f"rounds: median {statistics.median(ratios):.2f}x, middle half {low:.2f}-{high:.2f}x"


# -- (c) memory ------------------------------------------------------------------------------------------
def bytes_per_node(make: Callable[[float], Any], relu: Callable[[Any], Any] | None,
                   n: int) -> tuple[float, float]:
    """Bytes per node of an ``n``-node chain: after the forward pass, and at the peak over forward
    and backward."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    x, h = chain(make, relu, n)
    used = tracemalloc.get_traced_memory()[0] - before
    h.backward()
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    del x, h
    return used / n, peak / n


def load_baseline(folder: str) -> Any:
    """The micrograd2 of the checkout ``folder``, imported as ``micrograd2_baseline`` (its modules import
    each other relatively, so none of them is this checkout's)."""
    root = Path(folder).resolve() / "micrograd2"
    if not (root / "__init__.py").is_file():
        raise SystemExit(f"--baseline {folder}: no micrograd2/ there (give a worktree of an earlier commit)")
    spec = importlib.util.spec_from_file_location("micrograd2_baseline", root / "__init__.py",
                                                  submodule_search_locations=[str(root)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # A package's lazy names (``mg.nn``, ``mg.optim``) may be imported by their absolute name, which is
    # this checkout's: take the baseline's own, and check that a step is built of its classes.
    for name in ("nn", "optim"):
        setattr(module, name, importlib.import_module(f"micrograd2_baseline.{name}"))
    made = module.nn.MLP(2, [1], seed=1)([module.Value(0.5), module.Value(0.5)])
    if not type(made).__module__.startswith("micrograd2_baseline"):
        raise SystemExit(f"--baseline {folder}: its MLP made a {type(made).__module__} Value, not its own")
    return module


def main() -> None:
    global BASELINE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and a shorter memory chain")
    parser.add_argument("--this-path-only", action="store_true", help="no rows for the other engine path")
    parser.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier commit, timed alongside")
    args = parser.parse_args()
    if args.baseline:
        BASELINE = load_baseline(args.baseline)
    rows = measure(args.quick)
    if not args.this_path_only and mg.fast.ENABLED:  # the reference path's rows, from a child process
        extra = ["--quick"] * args.quick + (["--baseline", args.baseline] if args.baseline else [])
        child = subprocess.run([sys.executable, __file__, "--this-path-only", *extra],
                               env={**os.environ, "MICROGRAD2_REFERENCE": "1"}, capture_output=True, text=True,
                               check=True)
        rows += [tuple(line.split("\t")) for line in child.stdout.splitlines() if line.count("\t") == 2]
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':{width}}  {'micrograd2':>14}  comparison")
    for name, value, comparison in rows:
        print(f"{name:{width}}  {value:>14}  {comparison}")
    if args.this_path_only:  # for a parent process: the rows again, tab-separated
        for row in rows:
            print("\t".join(row))


def without_gc(fn: Callable[[], Any]) -> Callable[[], None]:
    """``fn`` run with the cyclic garbage collector off (reference counting still frees what it can)."""

    def run() -> None:
        gc.disable()
        try:
            fn()
        finally:
            gc.enable()

    return run


def step_rows(path: str, repeats: int) -> list[tuple[str, ...]]:
    """The training step against micrograd's, as a user runs it, then with the cyclic GC off for both:
    micrograd's graph is cyclic (each node's ``_backward`` closure refers to its output), so most of its
    step is collection; micrograd2's is not."""
    xs, ys = two_moons(100)
    steps = {"micrograd2": micrograd2_step(mg.nn.MLP(2, [16, 16, 1], seed=1), xs, ys)}
    if BASELINE is not None:
        steps["baseline"] = micrograd2_step(BASELINE.nn.MLP(2, [16, 16, 1], seed=1), xs, ys, lib=BASELINE)
    if micrograd is not None:
        random.seed(1)
        steps["micrograd"] = micrograd_step(micrograd.nn.MLP(2, [16, 16, 1]), xs, ys)
    rows: list[tuple[str, ...]] = []
    for label, wrap in (("", lambda f: f), (", cyclic GC off for both", without_gc)):
        t = interleaved({name: wrap(fn) for name, fn in steps.items()}, repeats)
        ours = statistics.median(t["micrograd2"])
        versus = (f"micrograd {statistics.median(t['micrograd']) / ours:.2f}x slower "
                  f"({paired_ratios(t['micrograd'], t['micrograd2'])})" if "micrograd" in t else "micrograd missing")
        target = "" if label else ", floor >= 3.5x" if path == "fast" else ", floor >= 2x"  # issue 23
        if "baseline" in t:
            versus += (f"; the baseline {statistics.median(t['baseline']) / ours:.2f}x slower "
                       f"({paired_ratios(t['baseline'], t['micrograd2'])}{', floor >= 0.95x' * (not label)})")
        rows.append((f"[{path}] training step MLP(2,[16,16,1]), 100 points{label}", f"{ours * 1e3:.1f} ms",
                     versus + target))
    return rows


def measure(quick: bool) -> list[tuple[str, ...]]:
    """The table's rows for the engine path this process runs on."""
    path = "fast" if mg.fast.ENABLED else "reference"
    repeats = 5 if quick else 15
    sys.setrecursionlimit(100_000)  # micrograd's topological sort is recursive
    rows: list[tuple[str, ...]] = []

    rows += step_rows(path, repeats)

    n = 10_000
    runners = {"micrograd2": chain_runner(lambda v: mg.Value(v, requires_grad=True), lambda h: h.relu(), n)}
    if micrograd is not None:
        runners["micrograd"] = chain_runner(micrograd.engine.Value, lambda h: h.relu(), n)
    if BASELINE is not None:
        runners["baseline"] = chain_runner(lambda v: BASELINE.Value(v, requires_grad=True), lambda h: h.relu(), n)
    mem_n = 100_000 if quick else 1_000_000
    memory = {}
    for chain_name, relu in (("mul/add", None), ("mul/add/relu", lambda h: h.relu())):
        ours_b = bytes_per_node(lambda v: mg.Value(v, requires_grad=True), relu, mem_n)
        theirs_b = bytes_per_node(micrograd.engine.Value, relu, 50_000) if micrograd else (math.nan,) * 2
        memory[chain_name] = (ours_b, theirs_b)
    try:
        import torch

        torch.set_num_threads(1)
        runners["torch"] = chain_runner(lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True),
                                        torch.relu, n)
    except ImportError:
        pass
    rounds = chain_times(runners, repeats)
    c = {k: (statistics.median(f for f, _ in ts), statistics.median(b for _, b in ts)) for k, ts in rounds.items()}
    ours = c["micrograd2"]
    rows.append((f"[{path}] chain of {n:,} ops, forward", f"{ours[0] / n * 1e6:.2f} us/op", ""))
    rows.append((f"[{path}] chain of {n:,} ops, backward", f"{ours[1] / n * 1e6:.2f} us/op", ""))
    for other in ("micrograd", "torch", "baseline"):
        if other in c:
            f, b = c[other]
            rows.append((f"[{path}]   vs {other} (fwd+bwd)", f"{(f + b) / n * 1e6:.2f} us/op",
                         f"{(f + b) / sum(ours):.2f}x slower than micrograd2 "
                         f"({paired_ratios(*([f + b for f, b in rounds[k]] for k in (other, 'micrograd2')))})"
                         + (", floor >= 1.8x" if other == "torch" and path == "fast" else "")
                         + (", floor >= 0.9x" if other == "baseline" else "")))
    for chain_name, ((ours_b, ours_peak), (theirs_b, theirs_peak)) in memory.items():
        rows.append((f"[{path}] bytes per node, {mem_n:,}-node {chain_name} chain", f"{ours_b:.0f} B",
                     f"micrograd {theirs_b:.0f} B ({theirs_b / ours_b:.1f}x), ceiling 350 B"))
        rows.append((f"[{path}]   peak over forward and backward", f"{ours_peak:.0f} B",
                     f"micrograd {theirs_peak:.0f} B ({theirs_peak / ours_peak:.1f}x), ceiling 450 B"))
    return rows


if __name__ == "__main__":
    main()
