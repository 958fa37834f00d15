// Off the main thread: whole runs (warm-up, measurement, drain: exactly `torus run`) and the
// models (`torus model` and the model's latency curve), one request at a time.
import init, { run, model, model_curve as modelCurve } from '../pkg/torus_explorer.js';

const OPS = {
  run: (m) => run(m.scenario),
  model: (m) => `{"report":${model(m.scenario)},"curve":${modelCurve(m.scenario, new Float64Array(m.rates))}}`,
};

let ready;
self.onmessage = async (e) => {
  const m = e.data;
  if (m.op === 'init') {
    ready = init({ module_or_path: m.module });
    return;
  }
  await ready;
  try {
    self.postMessage({ id: m.id, ok: true, json: OPS[m.op](m) });
  } catch (err) {
    self.postMessage({ id: m.id, ok: false, error: String(err && err.message ? err.message : err) });
  }
};
