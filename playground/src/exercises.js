// The classroom exercises in the page: a stub in the editor, Check grades it in the worker with the
// exercise's pytest tests, and the output pane shows `micrograd2 exercise check`'s table.
//
// NOTE [An exercise's time limit]: the grader limits each exercise's CPU time in a subprocess;
// the worker has no subprocess, so the page ends it (and starts Python again) once WALL_FACTOR ×
// the exercise's limit (grader.default_timeout) and GRACE_S more have passed without an answer.
// The page can read only the wall clock, which a busy machine stretches: the terminal's grader
// allows the same factor of wall-clock time (bounds.WALL_FACTOR).
const GRACE_S = 2;
const WALL_FACTOR = 2;

export class Exercises {
  constructor(runner) {
    this.runner = runner;
    this.list = [];
    this.current = null;
  }

  async load() {
    this.list = JSON.parse(await this.runner.request("exercises"));
    return this.list;
  }

  // The stub of exercise `id` (the editor shows it); `id` becomes the one Check grades.
  async open(id) {
    this.current = this.list.find((e) => e.id === id) ?? null;
    return this.runner.request("stub", { key: id });
  }

  // Grade `source` as exercise `id`; resolves with {output, status} (status "stopped" past the
  // limit: the exercise's, or `limitS` seconds, which a test on a busy machine may give).
  async check(id, source, onOut = () => {}, limitS = null) {
    const exercise = this.list.find((e) => e.id === id);
    if (!exercise) throw new Error(`no exercise ${id}`);
    await this.runner.request("testing");  // pytest's wheels and first import: outside the limit
    const limit = limitS ?? WALL_FACTOR * exercise.timeout + GRACE_S;
    const why = `Exercise ${id} ran past its time limit (${limit} s): the worker was ended`;
    const result = JSON.parse(await this.runner.requestWithin(limit * 1000, why, "check",
      { key: id, source }, onOut));
    return result.status ? result : { output: result.error, status: "stopped" };
  }
}
