// The worker that runs Python, seen from the page: requests as promises, Stop, restart.
//
// NOTE [How Stop works]
// Where the page is cross-origin isolated (served with COOP/COEP headers, as `make
// playground-serve` does), it shares a SharedArrayBuffer with the worker as Pyodide's interrupt
// buffer: Stop writes SIGINT (2) there and the running Python raises KeyboardInterrupt at its next
// bytecode, keeping the worker, its loaded packages and its speed.  Elsewhere (any static host)
// there is no shared memory, so Stop ends the worker and starts a new one, which takes Pyodide's
// start-up time again; the page says so.  If Python does not stop within GRACE_MS (it is stuck
// outside the interpreter), the worker is ended too.
const SIGINT = 2;
const GRACE_MS = 2000;

export class Runner {
  constructor(onStatus, onReady) {
    this.onStatus = onStatus;
    this.onReady = onReady;
    this.nextId = 1;
    this.pending = new Map();
    this.start();
  }

  start() {
    const buffer = globalThis.crossOriginIsolated ? new SharedArrayBuffer(1) : null;
    this.interrupt = buffer ? new Uint8Array(buffer) : null;
    this.worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => this.receive(event.data, resolve, reject);
    });
    this.ready.then(this.onReady, (e) => this.onStatus(`Python did not start: ${e}`));
    this.worker.postMessage({ kind: "start", buffer });
  }

  receive(message, resolve, reject) {
    if (message.kind === "ready") {
      this.version = message.version;
      this.timings = message.timings;
      resolve(message.version);
    } else if (message.kind === "failed") {
      reject(new Error(message.error));
    } else if (message.kind === "out") {
      this.pending.get(message.id)?.onOut(message.text);
    } else if (message.kind === "done") {
      const request = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (request) {
        clearTimeout(request.timer);
        request.resolve(message.result);
      }
    }
  }

  // Send a request once Python is ready; resolves with the worker's answer (JSON text or string).
  async request(kind, fields = {}, onOut = () => {}) {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, onOut, timer: null });
      this.worker.postMessage({ id, kind, ...fields });
    });
  }

  // As request, but if no answer comes within limitMs, end the worker (saying `why`) and start anew.
  async requestWithin(limitMs, why, kind, fields = {}, onOut = () => {}) {
    await this.ready;
    const answer = this.request(kind, fields, onOut);
    const timer = setTimeout(() => this.restart(why), limitMs);
    try {
      return await answer;
    } finally {
      clearTimeout(timer);
    }
  }

  get busy() {
    return this.pending.size > 0;
  }

  // Stop the running code (NOTE [How Stop works]); resolves with a note for the user.
  stop() {
    if (!this.busy) return "Nothing is running.";
    if (this.interrupt) {
      this.interrupt[0] = SIGINT;
      for (const request of this.pending.values()) {
        request.timer = setTimeout(() => this.restart("Python did not stop: the worker was ended"),
          GRACE_MS);
      }
      return "Stopped (KeyboardInterrupt).";
    }
    return this.restart("This page is not cross-origin isolated, so Stop ended the Python worker");
  }

  restart(why) {
    this.worker.terminate();
    const note = `${why}; a new one is starting (Pyodide's start-up time again).`;
    for (const request of this.pending.values()) {
      clearTimeout(request.timer);
      request.resolve(JSON.stringify({ output: "", svgs: [], error: `Stopped. ${note}` }));
    }
    this.pending.clear();
    this.onStatus(note);
    this.start();
    return note;
  }
}
