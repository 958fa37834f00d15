// Loads the simulator's WebAssembly module, served (fetched next to the glue) or from the
// single-file build (base64 inlined by scripts/build-dist.mjs into globalThis.__torusDist),
// and starts the worker that runs whole scenarios off the main thread.
import init, * as bindings from '../pkg/torus_explorer.js';

function base64ToBytes(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export async function loadWasm() {
  const dist = globalThis.__torusDist;
  let bytes;
  if (dist) {
    bytes = base64ToBytes(dist.wasm);
  } else {
    const response = await fetch(new URL('../pkg/torus_explorer_bg.wasm', import.meta.url));
    if (!response.ok) throw new Error(`could not load the simulator (HTTP ${response.status})`);
    bytes = await response.arrayBuffer();
  }
  const module = await WebAssembly.compile(bytes);
  const exports = await init({ module_or_path: module });
  return { api: bindings, memory: exports.memory, module };
}

// Workers for background work: one per core beyond the one the animation keeps, at least one,
// at most four (a sweep has a handful of points).
export function poolSize() {
  const cores = Number(navigator.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(cores - 1, 4));
}

// Whole runs and model evaluations over a pool of workers: each request goes to the worker with
// the fewest outstanding, so a sweep's points run side by side. Each run stays single-threaded
// and deterministic, so where it runs does not change its result.
export class RunnerPool {
  constructor(module, size = poolSize()) {
    this.runners = Array.from({ length: size }, () => new Runner(module));
  }

  get size() {
    return this.runners.length;
  }

  pick() {
    return this.runners.reduce((best, r) => (r.pending.size < best.pending.size ? r : best));
  }

  run(scenario) {
    return this.pick().run(scenario);
  }

  report(scenario) {
    return this.pick().report(scenario);
  }

  curve(scenario, rates) {
    return this.pick().curve(scenario, rates);
  }

  channelQueueCurve(scenario, rates) {
    return this.pick().channelQueueCurve(scenario, rates);
  }

  // Stops every request whose answer is no longer wanted (see Runner.abandonStale).
  abandonStale() {
    for (const r of this.runners) r.abandonStale();
  }
}

// A worker running worker.js with the simulator's module.
function startWorker(module) {
  const dist = globalThis.__torusDist;
  const url = dist
    ? URL.createObjectURL(new Blob([dist.worker], { type: 'text/javascript' }))
    : new URL('./worker.js', import.meta.url);
  // The single-file build's worker is a classic script (file:// pages cannot start module
  // workers from blobs).
  const worker = new Worker(url, dist ? {} : { type: 'module' });
  worker.postMessage({ op: 'init', module });
  return worker;
}

// Whole runs and model evaluations in a worker; requests are answered in order.
export class Runner {
  constructor(module) {
    this.module = module;
    this.pending = new Map();
    this.nextId = 1;
    this.start();
  }

  start() {
    this.worker = startWorker(this.module);
    this.worker.onerror = (e) => {
      e.preventDefault();
      const error = new Error(`the background worker failed: ${e.message || 'it could not start'}`);
      console.error(error.message);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.onmessage = (e) => {
      const { id, ok, json, error } = e.data;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (ok) p.resolve(JSON.parse(json));
      else p.reject(new Error(error));
    };
  }

  // `stale`, where given, says when the answer is no longer wanted: abandonStale() then stops
  // the request even while the worker is on it (a long model build).
  request(message, stale = null) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, message, stale });
      this.worker.postMessage({ ...message, id });
    });
  }

  // Rejects the requests whose answers are stale. A call into wasm cannot be interrupted, so
  // the worker is replaced by a fresh one, which is sent the other requests again, in order
  // (they are deterministic: the same answers).
  abandonStale() {
    const stale = [...this.pending].filter(([, p]) => p.stale && p.stale());
    if (!stale.length) return;
    this.worker.terminate();
    for (const [id, p] of stale) {
      this.pending.delete(id);
      p.reject(new Error('abandoned: no longer wanted'));
    }
    this.start();
    for (const [id, p] of this.pending) this.worker.postMessage({ ...p.message, id });
  }

  // The scenario run as `torus run` does; resolves with the report.
  run(scenario) {
    return this.request({ op: 'run', scenario });
  }

  // What `torus model` reports for the scenario.
  report(scenario) {
    return this.request({ op: 'report', scenario });
  }

  // The applicable model's latency at each of `rates` (null where saturated).
  curve(scenario, rates) {
    return this.request({ op: 'curve', scenario, rates });
  }

  // The channel-queue model's latency at each of `rates`, also where a paper's model applies.
  channelQueueCurve(scenario, rates) {
    return this.request({ op: 'channelQueueCurve', scenario, rates });
  }

  // `report` and `channelQueueCurve` with route graphs as large as `torus model` builds: where
  // the report's `channel_queue.past_page_budget` says the page's first budget was too small.
  // They take seconds to a minute: `stale` lets abandonStale() stop them.
  reportFull(scenario, stale) {
    return this.request({ op: 'reportFull', scenario }, stale);
  }

  channelQueueCurveFull(scenario, rates, stale) {
    return this.request({ op: 'channelQueueCurveFull', scenario, rates }, stale);
  }
}

// Fast mode ("as fast as possible") in a worker of its own, so that drawing and the browser's
// own work do not take turns with the simulation on the main thread. The page hands over its
// simulation as saved state (Explorer.save_state); the worker runs it and posts a frame about
// every 50 ms (cycle, live statistics, copies of the VC arrays and channel counters), and hands
// the state back on stop. One session at a time; a stale session's messages are ignored.
export class FastMode {
  constructor(module, { onFrame, onError }) {
    this.worker = startWorker(module);
    this.session = 0;
    this.active = false;
    this.frame = null;
    this.lockstep = false;
    this.arrived = [];
    this.stopping = null;
    // A failed session ends at once; the page keeps the simulation it handed over.
    const fail = (error) => {
      this.active = false;
      this.session++;
      this.frame = null;
      if (this.stopping) this.stopping.reject(error);
      else onError(error);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      fail(new Error(`fast mode's worker failed: ${e.message || 'it could not start'}`));
    };
    this.worker.onmessage = (e) => {
      const m = e.data;
      if (m.session !== this.session) return;
      if (m.op === 'fast-frame') {
        if (this.lockstep) this.arrived.push(m);
        else this.frame = m;
        onFrame(m);
      } else if (m.op === 'fast-state') {
        this.stopping.resolve(m.state);
      } else if (m.op === 'fast-error') {
        fail(new Error(m.error));
      }
    };
  }

  // Hands over a simulation's saved state and starts running it; `draws` says which of the
  // optional drawing data its frames carry (chaos's shared queues, scouting's probes). In
  // lockstep the simulation runs only up to the cycles granted by `until`, and a frame arrived
  // there is drawn once `show` picks it (when the other simulation has reached the same cycle).
  start(state, draws = {}, lockstep = false) {
    this.session++;
    this.active = true;
    this.frame = null;
    this.lockstep = lockstep;
    this.arrived = [];
    this.worker.postMessage({ op: 'fast-start', session: this.session, state, chaos: !!draws.chaos, scouting: !!draws.scouting, lockstep }, [state.buffer]);
  }

  // Lockstep: a further cycle to run to.
  until(cycle) {
    if (this.active) this.worker.postMessage({ op: 'fast-until', session: this.session, cycle });
  }

  // Lockstep: the cycles of the frames arrived and not yet shown.
  arrivedCycles() {
    return this.arrived.map((f) => f.cycle);
  }

  // Lockstep: the frame arrived at `cycle` becomes the one drawn; those before it are dropped.
  show(cycle) {
    const i = this.arrived.findIndex((f) => f.cycle === cycle);
    if (i < 0) return;
    this.frame = this.arrived[i];
    this.arrived.splice(0, i + 1);
  }

  // Stops the session; resolves with its state at the cycle it reached, or in lockstep at
  // cycle `until` (at most the furthest granted).
  stop(until = null) {
    if (!this.active) return Promise.resolve(null);
    this.active = false;
    const session = this.session;
    const done = new Promise((resolve, reject) => { this.stopping = { resolve, reject }; });
    this.worker.postMessage({ op: 'fast-stop', session, until });
    return done.finally(() => {
      this.stopping = null;
      this.frame = null;
      this.arrived = [];
    });
  }

  // Abandons the session without waiting for its state (the page moved on to another scenario).
  discard() {
    if (!this.active) return;
    this.active = false;
    this.worker.postMessage({ op: 'fast-stop', session: this.session, discard: true });
    this.session++;
    this.frame = null;
    this.arrived = [];
  }
}
