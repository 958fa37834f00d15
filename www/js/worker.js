// Runs whole scenarios (warm-up, measurement, drain: exactly `torus run`) off the main thread.
import init, { run } from '../pkg/torus_explorer.js';

let ready;
self.onmessage = async (e) => {
  const m = e.data;
  if (m.op === 'init') {
    ready = init({ module_or_path: m.module });
    return;
  }
  await ready;
  try {
    self.postMessage({ id: m.id, ok: true, json: run(m.scenario) });
  } catch (err) {
    self.postMessage({ id: m.id, ok: false, error: String(err && err.message ? err.message : err) });
  }
};
