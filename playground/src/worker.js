// The playground's Web Worker: Pyodide runs micrograd2 here, viz.js draws its diagrams.
//
// Code runs off the page's main thread, so an endless loop freezes only this worker: the page
// stops it through Pyodide's interrupt buffer (when cross-origin isolated) or ends the worker.
// Messages in: {kind: "start", buffer} once, then {id, kind, ...} with kind "run", "stepper",
// "lessons", "open", "cell", "finish" (playground.py's functions) or "resources" (what it fetched).
// Messages out: {kind: "ready", version} once, {kind: "out", id, text} as code prints,
// {kind: "done", id, result} when a request is answered, {kind: "failed", error} if start-up fails.
import { instance as vizInstance } from "@viz-js/viz";
import { loadPyodide } from "./pyodide/pyodide.mjs";

const here = new URL("./", import.meta.url);
let py = null;
let viz = null;
let glue = null;
let interrupt = null;
let manifest = null;
let testing = null;  // the promise of pytest's wheels, installed when an exercise is first checked

// The start-up's phases, in ms since the worker began (the benchmark prints them).
const timings = {};
const mark = (name) => { timings[name] = Math.round(performance.now()); };

async function start(buffer) {
  let source;
  [py, viz, manifest, source] = await Promise.all([
    loadPyodide({ indexURL: new URL("pyodide/", here).href }).then((p) => { mark("pyodide"); return p; }),
    vizInstance(),
    fetch(new URL("manifest.json", here)).then((r) => r.json()),
    fetch(new URL("playground.py", here)).then((r) => r.text()),
  ]);
  if (buffer) {
    interrupt = new Uint8Array(buffer);
    py.setInterruptBuffer(interrupt);
  }
  // NOTE [Wheels by URL]: loadPackage installs each wheel from the page's own folder; micropip
  // would try PyPI for the dependencies the wheels declare (numpy, pytest) and fail silently.
  await py.loadPackage(manifest.wheels.map((w) => new URL(`wheels/${w}`, here).href),
    { messageCallback: () => {} });
  mark("wheels");
  py.FS.writeFile("/home/pyodide/playground.py", source);
  glue = py.pyimport("playground");
  // viz.js draws SVG and lays out as JSON (json0: the step-through page's one layout per pass)
  const version = glue.setup((dot, format) => viz.renderString(dot, { format }));
  mark("ready");
  postMessage({ kind: "ready", version, timings });
}

function answer(id, message) {
  const emit = (text) => postMessage({ kind: "out", id, text });
  if (interrupt) interrupt[0] = 0;
  switch (message.kind) {
    case "run": return glue.run(message.source, emit);
    case "stepper": return glue.stepper_page();
    case "lessons": return glue.lessons();
    case "open": return glue.open_lesson(message.name);
    case "cell": return glue.run_cell(message.index, emit);
    case "finish": return glue.finish_lesson(emit);
    case "exercises": return glue.exercises();
    case "stub": return glue.exercise_stub(message.key);
    case "check": return glue.check_exercise(message.key, message.source, emit);
    case "resources":
      return JSON.stringify(performance.getEntriesByType("resource").map((e) => e.name));
    default: throw new Error(`unknown request ${message.kind}`);
  }
}

// pytest and its dependencies, from the page's own folder (NOTE [Wheels by URL]), imported with
// the grader before the first check's time limit starts (NOTE [Grading in the page]).
function installTesting() {
  testing ??= py.loadPackage(manifest.exercises.map((w) => new URL(`wheels/${w}`, here).href),
    { messageCallback: () => {} }).then(() => glue.prepare_grading());
  return testing;
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.kind === "start") {
    start(message.buffer).catch((e) => postMessage({ kind: "failed", error: String(e) }));
    return;
  }
  if (message.kind === "testing") {
    postMessage({ kind: "done", id: message.id, result: await installTesting() });
    return;
  }
  let result;
  try {
    result = answer(message.id, message);
  } catch (e) {  // a failure of the playground itself, not of the user's code
    result = JSON.stringify({ output: "", svgs: [], error: `playground error: ${e}` });
  }
  postMessage({ kind: "done", id: message.id, result });
};
