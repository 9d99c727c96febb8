"""The reference path a student reads — ``z = a * b`` to its recorded node, and ``z.backward()``'s walk — stays
short: at most ``BUDGET`` lines of code (docstrings, comments and blank lines aside), budgeted by idea.

The path runs from the op (``Value.__mul__``, ``Mul``) through the core's files by concept: the Variable
(``variable.py``), recording and the ctx (``function.py``), nodes, edges, leaves and saved values
(``node.py``), and the walk (``engine.py``).  It holds what PyTorch's semantics need on every ``a * b``
and every ``backward()``: dtypes, saved values read at backward time with their version check,
``create_graph``, and one call each into the rare machinery (hooks, custom Functions, ``autograd.grad``,
anomaly mode, the tracer's events).

``READING_PATH`` names each function and class on that path by idea, module and qualname (``Class:body``
is the class without its methods: its slots and attributes).  The count is read from the source files with ``ast``
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

READING_PATH: list[tuple[str, str, str]] = [  # (idea, module, qualname)
    ("the op", "micrograd2.scalar.value", "Value.__mul__"),
    ("the op", "micrograd2.scalar.value", "_operand"),
    ("the op", "micrograd2.scalar.value", "Value._wrap"),
    ("the op", "micrograd2.scalar.ops", "Mul"),
    ("the Variable", "micrograd2.autograd.variable", "Variable:body"),
    ("the Variable", "micrograd2.autograd.variable", "Variable._set_slots"),
    ("the Variable", "micrograd2.autograd.variable", "Variable.backward"),
    ("the Variable", "micrograd2.autograd.variable", "seeds"),
    ("recording", "micrograd2.autograd.function", "Function:body"),
    ("recording", "micrograd2.autograd.function", "Function.__init_subclass__"),
    ("recording", "micrograd2.autograd.function", "Function.apply"),
    ("recording", "micrograd2.autograd.function", "promoted"),
    ("the ctx", "micrograd2.autograd.function", "BackwardNode:body"),
    ("the ctx", "micrograd2.autograd.function", "_two_edges"),
    ("the ctx", "micrograd2.autograd.function", "BackwardNode._record"),
    ("the ctx", "micrograd2.autograd.function", "BackwardNode.needs_input_grad"),
    ("the ctx", "micrograd2.autograd.function", "BackwardNode.saved_tensors"),
    ("the ctx", "micrograd2.autograd.function", "BackwardNode.__call__"),
    ("nodes and edges", "micrograd2.autograd.node", "Node:body"),
    ("nodes and edges", "micrograd2.autograd.node", "Node.next_functions"),
    ("nodes and edges", "micrograd2.autograd.node", "_Zeros"),
    ("nodes and edges", "micrograd2.autograd.node", "gradient_node"),
    ("leaves", "micrograd2.autograd.node", "AccumulateGrad:body"),
    ("leaves", "micrograd2.autograd.node", "AccumulateGrad.__init__"),
    ("leaves", "micrograd2.autograd.node", "AccumulateGrad.variable"),
    ("leaves", "micrograd2.autograd.engine", "accumulate_into"),
    ("leaves", "micrograd2.autograd.variable", "Variable._accumulate"),
    ("saved values", "micrograd2.autograd.saved", "VersionCounter"),
    ("saved values", "micrograd2.autograd.saved", "version_counter"),
    ("saved values", "micrograd2.autograd.saved", "SavedInput:body"),
    ("saved values", "micrograd2.autograd.saved", "SavedInput.__init__"),
    ("saved values", "micrograd2.autograd.saved", "SavedInput.unpack"),
    ("saved values", "micrograd2.autograd.saved", "SavedOutput:body"),
    ("saved values", "micrograd2.autograd.saved", "SavedOutput.__init__"),
    ("saved values", "micrograd2.autograd.saved", "SavedOutput.unpack"),
    ("saved values", "micrograd2.autograd.saved", "Keep:body"),
    ("saved values", "micrograd2.autograd.function", "Keeps"),
    ("saved values", "micrograd2.autograd.saved", "SavedValues:body"),
    ("saved values", "micrograd2.autograd.saved", "SavedValues.unpacked"),
    ("saved values", "micrograd2.autograd.saved", "_check_version"),
    ("the walk", "micrograd2.autograd.engine", "run_backward"),
    ("the walk", "micrograd2.autograd.engine", "_walk_for"),
    ("the walk", "micrograd2.autograd.engine", "count_dependencies"),
    ("the walk", "micrograd2.autograd.engine", "reference_walk"),
    ("the walk", "micrograd2.autograd.engine", "Walk:body"),
    ("the walk", "micrograd2.autograd.engine", "Walk.__init__"),
    ("the walk", "micrograd2.autograd.engine", "Walk.run"),
    ("the walk", "micrograd2.autograd.engine", "Walk.deliver"),
    ("the walk", "micrograd2.autograd.input_buffer", "InputBuffer:body"),
    ("the walk", "micrograd2.autograd.input_buffer", "InputBuffer.__init__"),
    ("the walk", "micrograd2.autograd.input_buffer", "InputBuffer.add"),
    ("the walk", "micrograd2.autograd.engine", "Walk.visit"),
    ("the walk", "micrograd2.autograd.engine", "checked"),
]

BUDGET = 404  # lines of code, budgeted by idea: "about 350" (issue 23); issue 24 added 16, issue 25
# 2 (an accumulate event keeps the .grad it found before the add writes into it), issue 27 7 (where the
# core asked for a student's engine holes); issue 32 took those 7 out again: the core calls its
# engine's record of pieces (autograd/pieces.py) unconditionally, and the walk rounds in one place;
# issue 33 added 6: ``_custom``'s two meanings, a custom Function's node and one gradient per output;
# the saved values a record (``SavedValues``) whose items are read by their own methods, and the
# walk's rounding written out again (1 line, no extra call per edge); issue 36: a trace hears its
# own thread only (1 line: ``heard`` in the walk's choice); issue 34
# added 3: a leaf set to requires_grad_(False) since its graph was built gets no .grad; create_graph=1;
# issue 33 §4 added 6: a built-in op declares what it keeps (``Keep``, ``Keeps``) and ``_record``
# builds its saved values from that, without searching what forward returned; ``save`` and
# ``save_for_backward`` left the path (a custom Function's ctx); issue 33 §2 added 6: a node's
# gradients live in an ``InputBuffer`` (input_buffer.py, one slot per output, as PyTorch's), not in
# "a gradient, or a list"; the walk's add moved into it (12 lines for 6); and 2: the saved values read
# in a loop (a comprehension is a call in Python 3.11: 0.8k instructions an op of backward)
FILES = {"scalar/value.py", "scalar/ops.py", "autograd/variable.py", "autograd/function.py",
         "autograd/node.py", "autograd/saved.py", "autograd/engine.py",
         "autograd/input_buffer.py"}  # the op, then the core's files by concept

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


def reading_path_table() -> list[tuple[str, str, str, int]]:
    """``(idea, file, qualname, lines of code)`` for every place on the reading path."""
    sources: dict[str, str] = {}
    rows = []
    for idea, module, qualname in READING_PATH:
        path = source_file(module)
        text = sources.setdefault(str(path), path.read_text())
        rows.append((idea, f"{path.parent.name}/{path.name}", qualname, code_lines(text, qualname)))
    return rows


def test_code_lines_skip_docstrings_comments_and_blank_lines() -> None:
    source = ('def f(x):\n    """Doc\n    string."""\n\n    # a comment\n    y = x  # code\n'
              '    return (y,\n            y)\n')
    assert code_lines(source, "f") == 4
    assert code_lines('class C:\n    """Doc."""\n    a = 1\n\n    def m(self):\n        return 1\n', "C:body") == 2


def test_the_reading_path_fits_its_budget() -> None:
    rows = reading_path_table()
    width = max(len(f"{f}:{q}") for _, f, q, _ in rows)
    print()
    for idea, file, qualname, count in rows:
        print(f"{idea:16} {file + ':' + qualname:{width}}  {count:4}")
    ideas: dict[str, int] = {}
    for idea, *_, count in rows:
        ideas[idea] = ideas.get(idea, 0) + count
    print("by idea: " + ", ".join(f"{idea} {count}" for idea, count in ideas.items()))
    total, files = sum(ideas.values()), {f for _, f, _, _ in rows}
    print(f"{'total':16} {'':{width}}  {total:4}  in {len(files)} files: {', '.join(sorted(files))}")
    assert files <= FILES, f"the reading path leaves its files: {sorted(files - FILES)}"
    assert total <= BUDGET, f"the reading path is {total} lines of code, over its budget of {BUDGET}"


def test_the_reading_path_files_hold_lines_a_projector_shows() -> None:
    """Lines of at most 100 columns in the core's files by concept (ruff checks it too)."""
    for name in ("function", "node", "engine", "variable"):
        path = source_file(f"micrograd2.autograd.{name}")
        long = [n for n, line in enumerate(path.read_text().splitlines(), 1) if len(line) > 100]
        assert not long, f"{path.name}: lines over 100 columns: {long}"
