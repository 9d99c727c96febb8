// Builds the playground into a static folder: the page and its worker bundled by esbuild
// (CodeMirror and viz.js inside), Pyodide's runtime files copied, and manifest.json listing the
// wheels that wheels.py put in <folder>/wheels.
// Usage: node build.mjs FOLDER NODE_FOLDER, where NODE_FOLDER holds the node_modules that `npm ci`
// installed from this folder's package-lock.json (make playground: build/playground-node, so that
// no node_modules sits in the source tree).
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "build", "playground"));
const modules = join(resolve(process.argv[3] ?? join(here, "..", "build", "playground-node")),
  "node_modules");
const { build } = createRequire(join(modules, "noop.js"))("esbuild");
const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
  "pyodide-lock.json"];

function copyStatic() {
  mkdirSync(join(out, "pyodide"), { recursive: true });
  for (const name of ["index.html", "style.css", "playground.py"]) {
    copyFileSync(join(here, "src", name), join(out, name));
  }
  // the step-through page's script and style, loaded by the page's frame (src/sanitize.js)
  for (const name of ["stepper.js", "stepper.css"]) {
    copyFileSync(join(here, "..", "micrograd2", "viz", name), join(out, name));
  }
  for (const name of PYODIDE_FILES) {
    copyFileSync(join(modules, "pyodide", name), join(out, "pyodide", name));
  }
}

function writeManifest() {
  const folder = join(out, "wheels");
  const listed = (where) => (existsSync(where) ? readdirSync(where) : [])
    .filter((n) => n.endsWith(".whl")).sort();
  const wheels = listed(folder);
  const exercises = listed(join(folder, "exercises")).map((n) => `exercises/${n}`);
  if (!wheels.some((n) => n.startsWith("micrograd2-"))) {
    throw new Error(`no micrograd2 wheel in ${folder}: run wheels.py first (make playground does)`);
  }
  writeFileSync(join(out, "manifest.json"), `${JSON.stringify({ wheels, exercises }, null, 2)}\n`);
}

function weight(folder) {
  return readdirSync(folder).reduce((sum, name) => {
    const path = join(folder, name);
    return sum + (statSync(path).isDirectory() ? weight(path) : statSync(path).size);
  }, 0);
}

const began = Date.now();
copyStatic();
writeManifest();
await build({
  entryPoints: { main: join(here, "src", "main.js"), worker: join(here, "src", "worker.js") },
  outdir: out,
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2022",
  external: ["./pyodide/pyodide.mjs"],
  nodePaths: [modules],
  logLevel: "warning",
});
const mb = (weight(out) / 1e6).toFixed(1);
console.log(`built ${out} (${mb} MB) in ${((Date.now() - began) / 1000).toFixed(1)} s`);
