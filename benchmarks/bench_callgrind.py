"""Instructions per op of the scalar engine, forward and backward, counted by callgrind.

Run:  python benchmarks/bench_callgrind.py [--baseline DIR] [--reference] [--out FILE]

Wall-clock ratios on a shared 2-core machine drift by tens of percent; callgrind counts the
instructions a process runs, which load does not change.  For each op, a chain of 2,000 links is
built (forward) and backpropagated (backward) in a child process under ``valgrind --tool=callgrind``;
a run of 0 links gives what the process costs besides, and the difference over the links is the
figure per op.  ``--baseline DIR`` (a worktree of an earlier commit) measures its micrograd2 the same
way, beside this one; ``--reference`` measures both with ``MICROGRAD2_REFERENCE=1``.  The table
it prints is kept in ``benchmarks/callgrind.md`` for issue 33's record.

Needs valgrind (``apt-get install valgrind``); it takes about a minute per path.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINKS = 2000

# One link of each chain; ``y`` is the chain so far, ``w`` a leaf that requires grad,
# ``ws``/``xs`` 16 leaves each (a neuron's dot product).
OPS = {
    "x * 1.0001 (number)": "y = y * 1.0001",
    "x + 0.001 (number)": "y = y + 0.001",
    "x * w (two Values)": "y = y * w",
    "relu": "y = (y + 0.5).relu()",
    "exp": "y = (y * 0.001).exp()",
    "mg.dot, 16 pairs + bias": "y = mg.dot(ws, xs, y)",
}

CHILD = """
import sys
sys.path.insert(0, {root!r})
import micrograd2 as mg
n, mode = int(sys.argv[1]), sys.argv[2]
w = mg.Value(1.0001, requires_grad=True)
ws = [mg.Value(0.01, requires_grad=True) for _ in range(16)]
xs = [mg.Value(0.5, requires_grad=True) for _ in range(16)]
def chain(n):
    y = mg.Value(0.5, requires_grad=True)
    for _ in range(n):
        {link}
    return y
for _ in range(3):
    chain(50).backward()
y = chain(n)
if mode == "both":
    y.backward()
"""


def count(root: Path, link: str, n: int, mode: str, env: dict[str, str]) -> int:
    """Instructions of one child run (``mode``: ``fwd`` or ``both``) over ``n`` links."""
    script = CHILD.format(root=str(root), link=link)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", script, str(n), mode],
                         capture_output=True, text=True, env=env, check=True)
    match = re.search(r"Collected : (\d+)", out.stderr)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{out.stderr[-2000:]}")
    return int(match.group(1))


def per_op(root: Path, link: str, env: dict[str, str]) -> tuple[float, float]:
    """Forward and backward instructions per link (thousands)."""
    base = count(root, link, 0, "fwd", env)
    fwd = count(root, link, LINKS, "fwd", env)
    both = count(root, link, LINKS, "both", env)
    return (fwd - base) / LINKS / 1e3, (both - fwd) / LINKS / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="DIR", help="a worktree of an earlier commit")
    parser.add_argument("--reference", action="store_true", help="MICROGRAD2_REFERENCE=1 for both")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("bench_callgrind needs valgrind: apt-get install valgrind")
    env = dict(os.environ, MICROGRAD2_REFERENCE="1" if args.reference else "0")
    roots = {"this commit": ROOT}
    if args.baseline:
        roots["baseline"] = Path(args.baseline).resolve()
    path = "reference path" if args.reference else "speed layer"
    print(f"instructions per op, thousands ({path}; forward / backward)")
    print(f"{'op':24}" + "".join(f"{name:>22}" for name in roots))
    for name, link in OPS.items():
        cells = [per_op(root, link, env) for root in roots.values()]
        print(f"{name:24}" + "".join(f"{f:>12.1f} / {b:<7.1f}" for f, b in cells))


if __name__ == "__main__":
    main()
