// The lessons menu: a lesson's cells, each runnable in the worker, its ✓ lines and its summary.
const text = (tag, className, content) => {
  const element = document.createElement(tag);
  if (className) element.className = className;
  element.textContent = content;
  return element;
};

// A line of markdown as a paragraph of text nodes: `code` as <code>, **bold** and *stress* as
// plain text, [a link](url) as its text. Built with textContent only, never markup (NOTE [The
// worker's answers are untrusted] in sanitize.js), so it needs no sanitizer.
const plain = (part) => part
  .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
  .replace(/\*\*(\S(?:[^*]*\S)?)\*\*/g, "$1")
  .replace(/(^|[\s(])\*(\S(?:[^*]*\S)?)\*(?=[\s.,;:)!?]|$)/g, "$1$2");

function inline(tag, className, content) {
  const element = text(tag, className, "");
  content.split(/(`[^`]+`)/).forEach((part, i) => {
    if (i % 2) element.append(text("code", "", part.slice(1, -1)));
    else element.append(plain(part));
  });
  return element;
}

// A prose cell as elements: `#` headings, paragraphs (their lines joined), fenced code as is.
function prose(source) {
  const parts = [];
  let lines = [];
  let fenced = false;
  const flush = () => {
    const joined = lines.join(fenced ? "\n" : " ").trim();
    if (fenced) parts.push(text("pre", "code", lines.join("\n")));
    else if (/^#+ /.test(joined)) parts.push(inline("h3", "", joined.replace(/^#+ /, "")));
    else if (joined) parts.push(inline("p", "prose", joined));
    lines = [];
  };
  for (const line of source.split("\n")) {
    if (line.startsWith("```")) {
      flush();
      fenced = !fenced;
    } else if (!fenced && (!line.trim() || line.startsWith("#"))) {
      flush();
      if (line.trim()) lines.push(line);
      if (line.startsWith("#")) flush();
    } else {
      lines.push(line);
    }
  }
  flush();
  return parts;
}

export class Lessons {
  constructor(runner, panel, onDiagrams) {
    this.runner = runner;
    this.panel = panel;
    this.onDiagrams = onDiagrams;
    this.cells = [];
  }

  async list() {
    return JSON.parse(await this.runner.request("lessons"));
  }

  // Load lesson `name` into the panel (a fresh namespace and checks session in the worker).
  async open(name) {
    this.cells = JSON.parse(await this.runner.request("open", { name }));
    this.panel.replaceChildren();
    this.panel.dataset.lesson = name;  // which lesson the panel holds (tests wait for it)
    const all = text("button", "run-all", "Run all cells");
    all.addEventListener("click", () => this.runAll());
    this.summary = text("div", "summary", "");
    this.panel.append(all);
    this.outputs = this.cells.map((cell, index) => this.addCell(cell, index));
    this.panel.append(this.summary);
    this.panel.hidden = false;
  }

  addCell(cell, index) {
    const box = text("div", `cell ${cell.kind}`, "");
    if (cell.kind === "markdown") {
      box.append(...prose(cell.source));
      this.panel.append(box);
      return null;
    }
    const run = text("button", "run-cell", `Run cell ${index + 1}`);
    const output = text("pre", "cell-output", "");
    output.hidden = true;
    run.addEventListener("click", () => this.runCell(index));
    box.append(text("pre", "code", cell.source), run, output);
    this.panel.append(box);
    return output;
  }

  async runCell(index) {
    const output = this.outputs[index];
    output.hidden = false;
    output.textContent = "";
    output.classList.remove("error");
    const result = JSON.parse(await this.runner.request("cell", { index },
      (chunk) => { output.textContent += chunk; }));
    output.textContent = result.output;
    if (result.skipped) output.textContent = "(skipped: it uses what a cell that needs NumPy makes)";
    if (result.error) {
      output.append(text("span", "", `\n${result.error}`));
      output.classList.add("error");
    }
    if (result.svgs.length) this.onDiagrams(result.svgs);
    return result;
  }

  // Every code cell in order, then the closing line; resolves with {output, summary, numpyCells}.
  async runAll() {
    const parts = [];
    let numpyCells = 0;
    for (let index = 0; index < this.cells.length; index++) {
      if (this.cells[index].kind !== "code") continue;
      const result = await this.runCell(index);
      parts.push(result.output + (result.error ? `${result.error}\n` : ""));
      numpyCells += result.needsNumpy ? 1 : 0;
    }
    const end = JSON.parse(await this.runner.request("finish"));
    parts.push(end.output);
    this.summary.textContent = end.summary;
    return { output: parts.join(""), summary: end.summary, numpyCells };
  }
}
