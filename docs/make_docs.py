"""Regenerate the documentation's pictures and samples (run by hand: ``python docs/make_docs.py``).

* ``docs/block1_autograd.svg``: the autograd diagram of the article's block 1 (``mg.draw``);
* ``docs/block1_value.svg``: the same graph in micrograd's value view, after backward;
* ``docs/block2_stepper.html``: the step-through page of block 2 (``mg.viz.stepper``);
* ``docs/lesson2_narration.txt``: block 2's narration at each verbosity (``t.narrate``).

Without Graphviz's ``dot`` the ``.svg`` files come out as ``.dot`` sources (with a warning).
"""
from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

import micrograd2 as mg  # noqa: E402


def block1() -> tuple[list[mg.Value], list[mg.Value], mg.Value]:
    """The article's block 1 on scalars: z = Σ xᵢ·wᵢ with x = [2, 3], w = [4, 5]."""
    x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
    w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
    z = mg.sum(a * b for a, b in zip(x, w))
    z.label = "z"
    return x, w, z


def main() -> None:
    _, _, z = block1()
    written = [mg.render(mg.draw(z, view="autograd", show_saved=True), DOCS / "block1_autograd.svg")]

    x, w, z = block1()  # the forward pass; x and w stay alive: .grad is written into them
    with mg.trace() as t:  # opened after the forward pass, the usual way
        z.backward()  # block 2
    written.append(mg.render(mg.draw(z, view="value", trace=t), DOCS / "block1_value.svg"))
    written.append(mg.viz.stepper(t, DOCS / "block2_stepper.html", title="Block 2: what backward() does"))

    parts = []
    for verbosity in ("summary", "steps", "full"):
        parts.append(f"# t.narrate(verbosity={verbosity!r})\n\n{t.narrate(verbosity, color=False)}\n")
    narration = DOCS / "lesson2_narration.txt"
    narration.write_text(
        "# Block 2 of the article, narrated by the tracer (docs/make_docs.py writes this file).\n"
        "#\n"
        "#   x = [mg.Value(2.0, requires_grad=True, label='x[0]'),\n"
        "#        mg.Value(3.0, requires_grad=True, label='x[1]')]\n"
        "#   w = [mg.Value(4.0, requires_grad=True, label='w[0]'),\n"
        "#        mg.Value(5.0, requires_grad=True, label='w[1]')]\n"
        "#   z = mg.sum(a * b for a, b in zip(x, w)); z.label = 'z'\n"
        "#   with mg.trace() as t:\n"
        "#       z.backward()\n\n" + "\n".join(parts),
        encoding="utf-8",
    )
    written.append(str(narration))
    steps = t.narrate("steps", color=False)
    screen = f"$ micrograd2 lesson run 2   # block 2, narrated\n\n{steps}"
    written.append(terminal_svg(screen, DOCS / "lesson2_narration.svg"))
    for path in written:
        print("wrote", Path(path).relative_to(DOCS.parent))


def terminal_svg(text: str, path: Path) -> str:
    """A picture of ``text`` as a terminal shows it (monospace, dark background): the README's screenshot."""
    from xml.sax.saxutils import escape

    lines = text.splitlines()
    width = 9 * max(len(line) for line in lines) + 40
    height = 18 * len(lines) + 30
    rows = [
        f'<text x="20" y="{28 + 18 * i}" xml:space="preserve">{escape(line)}</text>' for i, line in enumerate(lines)
    ]
    path.write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">\n'
        f'<rect width="100%" height="100%" rx="8" fill="#1e1e1e"/>\n'
        f'<g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14" fill="#e8e8e8">\n'
        + "\n".join(rows) + "\n</g>\n</svg>\n",
        encoding="utf-8",
    )
    return str(path)


if __name__ == "__main__":
    main()
