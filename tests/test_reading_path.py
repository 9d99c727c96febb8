"""The reference path a student reads — ``z = a * b`` to its recorded node, and ``z.backward()``'s walk — stays
short: at most ``BUDGET`` lines of code (docstrings, comments and blank lines aside) in at most three files.

Issue 13 asked for about 150.  Before this test the path was 326 lines over six files (value.py, ops.py,
function.py, node.py, variable.py, engine.py); it is now one core file, ``autograd/engine.py``, beside the
scalar engine's two.  What keeps it above 150 is what PyTorch's semantics need on every ``a * b`` and every
``backward()``: dtypes (promotion, and rounding each gradient to its node's dtype), saved values read at
backward time with their version check and no reference cycle, ``create_graph``, and the branches into the
rare machinery (hooks, custom Functions' several outputs, ``autograd.grad``'s inputs, anomaly mode, the
tracer's events), each of which is one call into its own module.

``READING_PATH`` names each function and class on that path by module and qualname (``Class:body`` is the
class without its methods: its slots and attributes).  The count is read from the source files with ``ast``
and ``tokenize``, so the speed layer's replacements (``micrograd2/fast/``) do not hide the reference code.
Run ``pytest -s tests/test_reading_path.py`` for the table.  README "Read the engine" lists the same places
in reading order.
"""
from __future__ import annotations

import ast
import importlib.util
import io
import tokenize
from pathlib import Path

READING_PATH: list[tuple[str, str]] = [
    # 1. z = a * b
    ("micrograd2.scalar.value", "Value.__mul__"),
    ("micrograd2.scalar.value", "_operand"),
    ("micrograd2.scalar.ops", "Mul"),
    # 2. recording: Function.apply and what it calls
    ("micrograd2.autograd.engine", "Function:body"),
    ("micrograd2.autograd.engine", "Function.__init_subclass__"),
    ("micrograd2.autograd.engine", "Function.apply"),
    ("micrograd2.autograd.engine", "_promoted"),
    ("micrograd2.autograd.engine", "remember"),
    # 3. the node, and saved values: kept, then read at backward time
    ("micrograd2.autograd.engine", "Node:body"),
    ("micrograd2.autograd.engine", "BackwardNode:body"),
    ("micrograd2.autograd.engine", "BackwardNode.save_for_backward"),
    ("micrograd2.autograd.engine", "BackwardNode.needs_input_grad"),
    ("micrograd2.autograd.engine", "SavedVariable"),
    ("micrograd2.autograd.engine", "SavedOutput"),
    ("micrograd2.autograd.engine", "_encode"),
    ("micrograd2.autograd.engine", "BackwardNode.saved_tensors"),
    ("micrograd2.autograd.engine", "BackwardNode._read"),
    # 4. leaves
    ("micrograd2.autograd.engine", "gradient_edge"),
    ("micrograd2.autograd.engine", "AccumulateGrad:body"),
    ("micrograd2.autograd.engine", "AccumulateGrad.__init__"),
    ("micrograd2.autograd.engine", "AccumulateGrad.variable"),
    ("micrograd2.autograd.engine", "accumulate_into"),
    # 5. z.backward(): the walk
    ("micrograd2.autograd.engine", "VariableBase:body"),
    ("micrograd2.autograd.engine", "VariableBase.backward"),
    ("micrograd2.autograd.engine", "run_backward"),
    ("micrograd2.autograd.engine", "count_dependencies"),
    ("micrograd2.autograd.engine", "reference_walk"),
    ("micrograd2.autograd.engine", "Walk:body"),
    ("micrograd2.autograd.engine", "Walk.__init__"),
    ("micrograd2.autograd.engine", "Walk.run"),
    ("micrograd2.autograd.engine", "Walk.deliver"),
    ("micrograd2.autograd.engine", "Walk.add"),
    ("micrograd2.autograd.engine", "Walk.visit"),
    ("micrograd2.autograd.engine", "checked"),
]

BUDGET = 285  # lines of code (issue 13 asked about 150: see the module docstring)
MAX_FILES = 3

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def source_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, f"no module {module}"
    return Path(spec.origin)


def definition(tree: ast.Module, qualname: str) -> ast.AST:
    node: ast.AST = tree
    for part in qualname.split("."):
        node = next(n for n in node.body if isinstance(n, DEFINITIONS) and n.name == part)  # type: ignore[attr-defined]
    return node


def _span(node: ast.AST) -> set[int]:
    first = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])  # type: ignore[attr-defined]
    return set(range(first, node.end_lineno + 1))  # type: ignore[attr-defined]


def code_lines(source: str, qualname: str) -> int:
    """Lines of ``qualname`` in ``source`` that hold code: not blank, not only a comment, not a docstring."""
    body_only = qualname.endswith(":body")
    top = definition(ast.parse(source), qualname.removesuffix(":body"))
    lines = _span(top)
    for node in ast.walk(top):
        body = getattr(node, "body", None) if isinstance(node, DEFINITIONS) else None
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            lines -= _span(body[0])
    if body_only:
        for node in top.body:  # type: ignore[attr-defined]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines -= _span(node)
    code: set[int] = set()
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped:
            code.update(range(token.start[0], token.end[0] + 1))
    return len(lines & code)


def reading_path_table() -> list[tuple[str, str, int]]:
    """``(file, qualname, lines of code)`` for every place on the reading path."""
    sources: dict[str, str] = {}
    rows = []
    for module, qualname in READING_PATH:
        path = source_file(module)
        text = sources.setdefault(str(path), path.read_text())
        rows.append((f"{path.parent.name}/{path.name}", qualname, code_lines(text, qualname)))
    return rows


def test_code_lines_skip_docstrings_comments_and_blank_lines() -> None:
    source = ('def f(x):\n    """Doc\n    string."""\n\n    # a comment\n    y = x  # code\n'
              '    return (y,\n            y)\n')
    assert code_lines(source, "f") == 4
    assert code_lines('class C:\n    """Doc."""\n    a = 1\n\n    def m(self):\n        return 1\n', "C:body") == 2


def test_the_reading_path_fits_its_budget() -> None:
    rows = reading_path_table()
    width = max(len(f"{f}:{q}") for f, q, _ in rows)
    print()
    for file, qualname, count in rows:
        print(f"{file + ':' + qualname:{width}}  {count:4}")
    total, files = sum(count for *_, count in rows), {f for f, _, _ in rows}
    print(f"{'total':{width}}  {total:4}  in {len(files)} files: {', '.join(sorted(files))}")
    assert len(files) <= MAX_FILES, f"the reading path spans {len(files)} files: {sorted(files)}"
    assert total <= BUDGET, f"the reading path is {total} lines of code, over its budget of {BUDGET}"
