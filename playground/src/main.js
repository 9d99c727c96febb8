// The playground page: an editor, the output and graph panes, Stop, a share link, the lessons
// menu, the exercises and the step-through view, all driving one worker (runner.js).  Tests and
// other pages use `window.micrograd2`: {ready, run(source), stop()} (and runLesson(name),
// stepper(), openExercise(id), checkExercise(id, source, limitS), requests(), code (the editor's,
// to read or set), defaultCode).
import { python } from "@codemirror/lang-python";
import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { basicSetup, EditorView } from "codemirror";
import { Exercises } from "./exercises.js";
import { Lessons } from "./lessons.js";
import { Runner } from "./runner.js";
import { cleanSvg, stepsPage } from "./sanitize.js";
import { codeFromHash, linkFor } from "./share.js";

const BLOCKS = `import micrograd2 as mg

# Block 1: the forward pass records a graph
x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
z = mg.sum(a * b for a, b in zip(x, w))
z.label = "z"

# Block 2: backward walks it, node by node (the narration below the output)
z.backward()
print("x grads:", [v.grad for v in x], " w grads:", [v.grad for v in w])
z  # the last line's value: its graph is drawn, as Jupyter shows it
`;

const $ = (id) => document.getElementById(id);
const status = (message) => {
  $("status").textContent = message;
  $("status").title = message;  // the header keeps one row: a long status is cut, whole on hover
};
const runner = new Runner(status, (version) => {
  $("run").disabled = false;
  const isolated = globalThis.crossOriginIsolated ? "Stop interrupts" : "Stop restarts Python";
  status(`micrograd2 ${version} in Pyodide: ready (Ctrl+Enter runs; ${isolated}).`);
  if ($("lessons").disabled) fillLessonsMenu();
  if ($("exercises").disabled) fillExercisesMenu();
});

// NOTE [The editor's shadow root]
// CodeMirror writes its theme at run time: in a document, as <style> elements, which the page's
// policy refuses (style-src 'self': no inline style, NOTE [The page's policy] in index.html); in a
// shadow root, as constructed style sheets, which a policy does not govern.  So the editor lives
// in #editor's shadow root, and its size is a theme, not a rule of style.css.
const editorRoot = $("editor").attachShadow({ mode: "open" });
const editor = new EditorView({
  doc: codeFromHash(location.hash) ?? BLOCKS,
  parent: editorRoot,
  root: editorRoot,
  extensions: [
    basicSetup,
    python(),
    EditorView.theme({ "&": { height: "60vh", fontSize: "14px" } }),
    EditorView.lineWrapping,  // a half-width editor at 1024 px holds ~55 columns: wrap, never scroll
    Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { runEditor(); return true; } }])),
  ],
});

function setCode(source) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: source } });
}

// NOTE [Readable diagrams]
// Graphviz writes a diagram's size in points; scaled down to the pane's width (about 490 px at
// 1024 px), its legend's 9-point text would be 6.8 px and its nodes' 8 px.  So a diagram is as wide
// as the pane only if its smallest text stays at MIN_TEXT_PX or more (the step-through page's
// minimum, micrograd2/viz/stepper.py); else it keeps that text size and the pane scrolls.  Its
// size is set through the style object, which the page's policy allows (no style attribute).
const MIN_TEXT_PX = 10.5;

function readable(svg) {
  const width = svg.width.baseVal.value;  // CSS pixels (Graphviz writes points: 4/3 px each)
  const units = svg.viewBox.baseVal?.width || width;
  const fonts = [...svg.querySelectorAll("text")]
    .map((t) => parseFloat(t.getAttribute("font-size") || "14"))
    .filter((size) => size > 0);
  if (!(width > 0) || !fonts.length) return;
  const smallest = Math.min(...fonts) * (width / units);  // px, drawn at its own size
  const pane = $("graph").clientWidth - 2;
  const scale = Math.max(Math.min(1, pane / width), MIN_TEXT_PX / smallest);
  svg.style.width = `${width * scale}px`;
  svg.style.height = `${svg.height.baseVal.value * scale}px`;
}

// NOTE [The worker's answers are untrusted] (sanitize.js): diagrams go in sanitized, text as text.
function showDiagrams(svgs) {
  $("graph").replaceChildren(...[].concat(svgs ?? []).map(cleanSvg));
  $("graph").querySelectorAll(":scope > svg").forEach(readable);
}

function appendOutput(textContent, className) {
  const span = document.createElement("span");
  if (className) span.className = className;
  span.textContent = textContent;
  $("output").append(span);
}

// Run `source` in the worker; the same path for the Run button and window.micrograd2.run.
async function run(source) {
  $("output").replaceChildren();
  const began = performance.now();
  const answer = await runner.request("run", { source }, (chunk) => appendOutput(chunk));
  const result = JSON.parse(answer);
  $("output").replaceChildren();
  appendOutput(result.output);
  if (result.error) appendOutput(`${result.error}\n`, "error");
  showDiagrams(result.svgs);
  $("steps").disabled = false;
  const ms = Math.round(performance.now() - began);
  const stopped = (result.error ?? "").startsWith("KeyboardInterrupt");
  status(stopped ? `Stopped by the Stop button after ${ms} ms.` : `Ran in ${ms} ms.`);
  return { output: result.output, svgs: result.svgs, error: result.error };
}

function runEditor() {
  return run(editor.state.doc.toString());
}

function stop() {
  const note = runner.stop();
  appendOutput(`\n${note}\n`, "note");
  status(note);
  return note;
}

async function stepper() {
  const page = await runner.request("stepper");
  $("stepper").hidden = !page;
  if (page) $("steps-frame").srcdoc = stepsPage(page);
  else status("The last run traced no backward pass.");
  return page;
}

const lessons = new Lessons(runner, $("lesson"), showDiagrams);

async function runLesson(name) {
  await lessons.open(name);
  $("lessons").value = name;
  return lessons.runAll();
}

const exercises = new Exercises(runner);

async function fillExercisesMenu() {
  for (const exercise of await exercises.load()) {
    const option = document.createElement("option");
    option.value = exercise.id;
    option.textContent = `${exercise.id}: ${exercise.title}`;
    $("exercises").append(option);
  }
  $("exercises").disabled = false;
}

async function openExercise(id) {
  setCode(await exercises.open(id));
  $("check").hidden = false;
  $("check").textContent = `Check ${id}`;
  status(`Exercise ${id}: ${exercises.current.goal} Check grades the editor's code.`);
}

// Grade `source` as exercise `id`; the table in the output pane.  `limitS`: a time limit other
// than the exercise's (tests give a generous one: no verdict depends on the machine's load).
async function checkExercise(id, source, limitS = null) {
  $("output").replaceChildren();
  showDiagrams([]);  // the last run's graph is not the exercise's
  status(`Checking exercise ${id}…`);
  const result = await exercises.check(id, source, (chunk) => appendOutput(chunk), limitS);
  $("output").replaceChildren();
  appendOutput(result.output, result.status === "stopped" ? "error" : "");
  status(`Exercise ${id}: ${result.status}.`);
  return result;
}

async function fillLessonsMenu() {
  for (const lesson of await lessons.list()) {
    const option = document.createElement("option");
    option.value = lesson.name;
    option.textContent = `Lesson ${lesson.number}: ${lesson.title}`;
    $("lessons").append(option);
  }
  $("lessons").disabled = false;
}

$("run").addEventListener("click", runEditor);
$("stop").addEventListener("click", stop);
$("steps").addEventListener("click", stepper);
// The step-through view covers the page: Close or Escape (in the page or in its frame) leaves it,
// and the frame takes the keys once loaded (← → step).
const closeSteps = (e) => { if (!e.key || e.key === "Escape") $("stepper").hidden = true; };
$("close-steps").addEventListener("click", closeSteps);
document.addEventListener("keydown", closeSteps);
$("steps-frame").addEventListener("load", () => {
  $("steps-frame").contentDocument?.addEventListener("keydown", closeSteps);
  if (!$("stepper").hidden) $("steps-frame").focus();
});
$("exercises").addEventListener("change", (e) => {
  if (e.target.value) openExercise(e.target.value);
});
$("check").addEventListener("click", () => {
  if (exercises.current) checkExercise(exercises.current.id, editor.state.doc.toString());
});
// The lesson opens below the editor: bring it into view, or choosing one changes nothing on screen.
$("lessons").addEventListener("change", async (e) => {
  if (!e.target.value) return;
  await lessons.open(e.target.value);
  $("lesson").scrollIntoView({ block: "start" });
});
$("share").addEventListener("click", () => {
  const link = linkFor(editor.state.doc.toString(), location);
  history.replaceState(null, "", link);
  $("link").hidden = false;
  $("link").value = link;
  $("link").select();
});
window.addEventListener("resize", () => {
  $("graph").querySelectorAll(":scope > svg").forEach(readable);
});
window.addEventListener("hashchange", () => {
  const code = codeFromHash(location.hash);
  if (code !== null) setCode(code);
});

// Every URL the page and its worker fetched (the Resource Timing entries of both).
async function requests() {
  const worker = JSON.parse(await runner.request("resources"));
  return [...performance.getEntriesByType("resource").map((e) => e.name), ...worker];
}

window.micrograd2 = {
  get ready() { return runner.ready.then(() => undefined); },
  run,
  stop,
  runLesson,
  stepper,
  openExercise: async (id) => { await openExercise(id); return editor.state.doc.toString(); },
  checkExercise,
  requests,
  get code() { return editor.state.doc.toString(); },
  set code(source) { setCode(source); },
  defaultCode: BLOCKS,
  get timings() { return runner.timings; },
};
