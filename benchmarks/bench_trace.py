"""What the tracer costs: nothing when off, and how much when on.

Forward and backward of a 100,000-node chain, timed in fresh processes of three
kinds, run interleaved: one that never made a tracer, one that made, used and
closed one first (so any state a tracer leaves behind would show), and one in
which a second thread traces all along (it opened a trace, traced a pass, and
waits inside its ``with`` block: a trace is thread-local, so the timed thread,
which traces nothing, should pay nothing for it).  Each process keeps its best
of a few repetitions; each round's ratio to that round's "never" process is
printed, and the medians of the ratios are compared.  Then the same chain once
under an active tracer.  Times are process CPU time (``time.process_time``), so
other work on a shared machine disturbs them less than wall-clock time would.

Last, what the checks cost while off — ``events.listening`` (the tracer) and
``anomaly.enabled`` — counted in machine instructions (valgrind's callgrind, so
a shared machine's load does not blur it): one MLP(2,[16,16,1]) training step
and one 10,000-op chain, each in a process whose micrograd2 reads both flags as
it always does, and in one whose every read of them was replaced by ``False`` as
the modules were imported (an AST rewrite: the checks are never consulted, and
the code they guard is dropped).  Both processes load micrograd2 through the same
loader and freeze what importing left (``gc.freeze``); each count is that of one
more run (two runs minus one), so start-up and import cancel out.  What is left
is the method's noise (memory layout, within about 1 %: it can come out
negative).  The same counts are taken a third time in a process of the first kind
(checks as they are) whose second thread holds a trace open meanwhile: what an
untraced thread pays for another thread's trace.  Skipped without valgrind.

    python benchmarks/bench_trace.py [--rounds 5] [--no-callgrind]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODES = 100_000

WORKER = r"""
import gc, json, sys, time
import micrograd2 as mg

mode, nodes, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if mode == "closed":  # make, use and close a tracer first
    with mg.trace():
        a = mg.Value(1.0, requires_grad=True)
        (a * 2.0 + 1.0).backward()
if mode == "other-traces":  # a second thread traces all along; this one traces nothing
    import threading
    opened, finished = threading.Event(), threading.Event()

    def other():
        with mg.trace():
            a = mg.Value(1.0, requires_grad=True)
            (a * 2.0 + 1.0).backward()
            opened.set()
            finished.wait()

    threading.Thread(target=other, daemon=True).start()
    opened.wait()

def chain():
    x = mg.Value(1.0, requires_grad=True)
    y = x
    t0 = time.process_time()
    for _ in range(nodes // 2):
        y = y * 1.0000001 + 0.5      # two nodes per round: MulBackward0, AddBackward0
    t1 = time.process_time()
    y.backward()
    t2 = time.process_time()
    return t1 - t0, t2 - t1, y

gc.disable()
forward, backward = [], []
for _ in range(reps):
    if mode == "traced":
        with mg.trace() as t:
            f, b, y = chain()
        events = len(t.events)
    else:
        f, b, y = chain()
        events = 0
    forward.append(f)
    backward.append(b)
    del y
    gc.collect()
if mode == "other-traces":
    finished.set()
print(json.dumps({"forward": min(forward), "backward": min(backward), "events": events}))
"""


def run(mode: str, reps: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", WORKER, mode, str(NODES), str(reps)], env=env, check=True,
                         capture_output=True, text=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


KINDS = {"never": "never made a tracer", "closed": "made and closed a tracer first",
         "other-traces": "another thread traces meanwhile"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="processes of each kind (default 5)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions inside each process (default 3)")
    parser.add_argument("--no-callgrind", action="store_true", help="skip counting what the checks cost while off")
    args = parser.parse_args()

    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in KINDS}
    for r in range(args.rounds):  # interleaved, each round in another order
        order = list(KINDS)[r % len(KINDS):] + list(KINDS)[:r % len(KINDS)]
        for mode in order:
            results[mode].append(run(mode, args.reps))
    traced = run("traced", 1)

    med = {mode: {k: statistics.median(x[k] for x in rs) for k in ("forward", "backward")}
           for mode, rs in results.items()}
    print(f"chain of {NODES:,} nodes; medians over {args.rounds} processes of each kind (best of {args.reps} each)")
    print(f"{'':34s}{'forward':>10s}{'backward':>10s}")
    for mode, text in KINDS.items():
        print(f"{text:34s}{med[mode]['forward']:9.3f}s{med[mode]['backward']:9.3f}s")
    print(f"{'while tracing (' + format(int(traced['events']), ',') + ' events)':34s}"
          f"{traced['forward']:9.3f}s{traced['backward']:9.3f}s")
    for k in ("forward", "backward"):
        on = traced[k] / med["never"][k]
        spread = max(abs(r[k] / med["never"][k] - 1) for r in results["never"])  # noise between processes
        print(f"{k}: traced/never = {on:.1f}x   (noise: single 'never' processes lie within "
              f"±{spread * 100:.1f} % of their median)")
        for mode in ("closed", "other-traces"):
            ratios = [x[k] / n[k] for x, n in zip(results[mode], results["never"])]  # round by round
            ratio = statistics.median(ratios)
            print(f"  {mode + '/never':20s} median {ratio:.3f} ({(ratio - 1) * 100:+.1f} %)   rounds: "
                  + " ".join(f"{x:.3f}" for x in ratios))
    if not args.no_callgrind:
        checks_cost()


# -- what the checks cost while off, in instructions ------------------------------------------------------
CHECKS_WORKER = r"""
import ast, importlib.machinery, sys
variant, workload, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
FLAGS = {("events", "listening"), ("anomaly", "enabled")}  # module.flag as the code reads them
OWN = {"micrograd2.autograd.events": "listening", "micrograd2.autograd.anomaly": "enabled"}  # read bare at home


class NeverConsulted(ast.NodeTransformer):
    def __init__(self, module, rewrite):
        self.bare, self.rewrite = OWN.get(module), rewrite

    def visit_Attribute(self, node):
        self.generic_visit(node)
        name = node.value.id if isinstance(node.value, ast.Name) else None
        if self.rewrite and isinstance(node.ctx, ast.Load) and (name, node.attr) in FLAGS:
            return ast.copy_location(ast.Constant(False), node)
        return node

    def visit_Name(self, node):
        if self.rewrite and isinstance(node.ctx, ast.Load) and node.id == self.bare:
            return ast.copy_location(ast.Constant(False), node)
        return node


class Rewriting(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname):  # always from the source (a cached .pyc would skip the rewrite)
        path = self.get_filename(fullname)
        tree = NeverConsulted(fullname, variant == "never-consulted").visit(ast.parse(self.get_data(path), path))
        return compile(ast.fix_missing_locations(tree), path, "exec", dont_inherit=True)


class Finder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] != "micrograd2":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = Rewriting(spec.loader.name, spec.loader.path)
        return spec


sys.meta_path.insert(0, Finder)  # both variants load micrograd2 the same way; only one rewrites it
import gc
import micrograd2 as mg

if variant == "other-traces":  # the checks as they are, while a second thread holds a trace open
    import threading
    opened = threading.Event()

    def other():
        with mg.trace():
            a = mg.Value(1.0, requires_grad=True)
            (a * 2.0 + 1.0).backward()
            opened.set()
            threading.Event().wait()  # for ever: the process ends with this daemon thread in its trace

    threading.Thread(target=other, daemon=True).start()
    opened.wait()
if workload == "step":
    sys.path.insert(0, sys.argv[4])
    from bench_scalar import micrograd2_step, two_moons

    xs, ys = two_moons(100)
    run = micrograd2_step(mg.nn.MLP(2, [16, 16, 1], seed=1), xs, ys)
else:
    def run():
        y = x = mg.Value(1.0, requires_grad=True)
        for i in range(10_000):
            y = y * 1.0000001 if i % 3 == 0 else y + 0.001 if i % 3 == 1 else y.relu()
        y.backward()
run()
gc.collect()
gc.freeze()  # what importing left is no collection's business: both variants collect only the workload's
for _ in range(runs):
    run()
"""


def instructions(variant: str, workload: str, runs: int) -> int:
    """Instructions callgrind counts for a worker process that runs ``workload`` 1 + ``runs`` times."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           CHECKS_WORKER, variant, workload, str(runs), str(ROOT / "benchmarks")],
                          env=env, check=True, capture_output=True, text=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))  # type: ignore[union-attr]


def checks_cost() -> None:
    """Print the instructions per training step and per chain with the checks as they are and never
    consulted, and what the checks cost while off; then what another thread's trace costs."""
    if shutil.which("valgrind") is None:
        print("what the checks cost while off: skipped (valgrind is not installed)")
        return
    print("what the tracer's and anomaly mode's checks cost while off (callgrind instructions of one run)")
    for workload, text in (("step", "MLP(2,[16,16,1]) training step"), ("chain", "10,000-op chain fwd+bwd")):
        count = {v: instructions(v, workload, 1) - instructions(v, workload, 0)
                 for v in ("as-is", "never-consulted", "other-traces")}
        cost = count["as-is"] / count["never-consulted"] - 1
        print(f"  {text:32s} as they are {count['as-is']:>13,}   never consulted {count['never-consulted']:>13,}   "
              f"cost {cost * 100:+.2f} %  ({'under' if cost < 0.02 else 'NOT under'} 2 %)")
        other = count["other-traces"] / count["as-is"] - 1
        print(f"  {'':32s} another thread traces meanwhile {count['other-traces']:>13,}   cost to this untraced "
              f"thread {other * 100:+.2f} %  ({'under' if other < 0.02 else 'NOT under'} 2 %)")


if __name__ == "__main__":
    main()
