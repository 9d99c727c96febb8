"""What the tracer costs: nothing when off, and how much when on.

Forward and backward of a 100,000-node chain, timed in fresh processes of two
kinds, run interleaved: one that never made a tracer, and one that made, used
and closed one first (so any state a tracer leaves behind would show).  Each
process keeps its best of a few repetitions; the medians over the processes
are compared.  Then the same chain once under an active tracer.  Times are
process CPU time (``time.process_time``), so other work on a shared machine
disturbs them less than wall-clock time would.

    python benchmarks/bench_trace.py [--rounds 5]
"""
from __future__ import annotations

import argparse
import json
import os
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
print(json.dumps({"forward": min(forward), "backward": min(backward), "events": events}))
"""


def run(mode: str, reps: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", WORKER, mode, str(NODES), str(reps)], env=env, check=True,
                         capture_output=True, text=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="processes of each kind (default 5)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions inside each process (default 3)")
    args = parser.parse_args()

    results: dict[str, list[dict[str, float]]] = {"never": [], "closed": []}
    for r in range(args.rounds):  # interleaved, alternating which kind goes first
        order = ("never", "closed") if r % 2 == 0 else ("closed", "never")
        for mode in order:
            results[mode].append(run(mode, args.reps))
    traced = run("traced", 1)

    med = {mode: {k: statistics.median(x[k] for x in rs) for k in ("forward", "backward")}
           for mode, rs in results.items()}
    print(f"chain of {NODES:,} nodes; medians over {args.rounds} processes of each kind (best of {args.reps} each)")
    print(f"{'':34s}{'forward':>10s}{'backward':>10s}")
    for mode, text in (("never", "never made a tracer"), ("closed", "made and closed a tracer first")):
        print(f"{text:34s}{med[mode]['forward']:9.3f}s{med[mode]['backward']:9.3f}s")
    print(f"{'while tracing (' + format(int(traced['events']), ',') + ' events)':34s}"
          f"{traced['forward']:9.3f}s{traced['backward']:9.3f}s")
    for k in ("forward", "backward"):
        off = med["closed"][k] / med["never"][k]
        on = traced[k] / med["never"][k]
        spread = max(abs(r[k] / med["never"][k] - 1) for r in results["never"])  # noise between processes
        print(f"{k:8s} closed/never = {off:.3f} ({(off - 1) * 100:+.1f} %)   traced/never = {on:.1f}x   "
              f"(noise: single 'never' processes lie within ±{spread * 100:.1f} % of their median)")


if __name__ == "__main__":
    main()
