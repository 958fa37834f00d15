// Compare mode: a second simulation beside the page's own, on a torus of its own, advanced in
// lockstep by the same controls. It differs from the first in the keys its link value names
// (`compare=routing:goal`, as a pin's value) and shares every other one, the seed among them:
// the traffic draws from its own random stream (src/rng.rs), so the same seed gives both the
// same message arrivals and destinations whatever the routing does.
import { TorusView } from './render.js';
import { FastMode } from './wasm-loader.js';
import { differences } from './link.js';
import { shortLabel } from './words.js';

// The second simulation's colour on the charts (its live point, line and model curve); the
// first keeps the page's orange.
export const COMPARE_COLOUR = '#CC79A7';
export const FIRST_COLOUR = '#D55E00';

// The page's per-simulation methods that read only the simulation's own fields (the explorer,
// its views into wasm memory, fast mode's frames, the heat and the marks): the second
// simulation uses the same code on its own fields.
const SHARED = ['stateViews', 'drawData', 'sampleHeat', 'drawState', 'collectMarks', 'fastFrame', 'cycle', 'liveStats',
  'backtracks', 'liveMisroutes', 'deadlockCycle', 'heatValues', 'predictedHeat', 'stuckHeaders'];

// What differs between two canonical scenarios, in the words of the page (`GOAL`, `2 VCs`).
// Between two routing algorithms the keys that only follow from each one's defaults (its VCs,
// buffer, shared queue) are left out, and so is wormhole switching's zero probe lead.
export function differenceWords(api, from, to) {
  const diff = differences(from, to);
  const routing = diff.some(([key]) => key === 'routing');
  const switching = diff.some(([key]) => key === 'switching');
  const shown = diff.filter(([key, value]) => {
    // Wormhole switching has no probe lead and no misroutes: 0 says nothing more.
    if (switching && ['scout', 'misroute'].includes(key) && value === '0') return false;
    if (!routing || !['vcs', 'buf', 'mq'].includes(key)) return true;
    const without = to.split('&').filter((p) => p.split('=')[0] !== key).join('&');
    try {
      return api.canonical(without) !== to;
    } catch {
      return true;
    }
  });
  const words = (key, value) => {
    if (key === 'vcs') return `${value} VC${value === '1' ? '' : 's'}`;
    if (key === 'unsafe') return value === '1' ? 'deadlock allowed' : 'deadlock-free';
    if (key === 'scout') return `K = ${value}`;
    if (key === 'misroute') return `up to ${value} misroutes`;
    return shortLabel(key, value);
  };
  return shown.map(([k, v]) => words(k, v)).join(', ') || 'the same scenario';
}

export class Companion {
  // `app` is the page (its wasm API and memory, the shared view options); `scenario` canonical.
  constructor(app, scenario, canvas) {
    const proto = Object.getPrototypeOf(app);
    for (const name of SHARED) this[name] = proto[name];
    this.app = app;
    this.api = app.api;
    this.memory = app.memory;
    this.scenario = scenario;
    this.explorer = new app.api.Explorer(scenario);
    const get = (key) => scenario.split('&').find((p) => p.startsWith(`${key}=`)).slice(key.length + 1);
    this.k = this.explorer.k();
    this.vcs = this.explorer.vcs();
    this.buf = Number(get('buf'));
    this.scout = Number(get('scout'));
    this.chaos = get('routing') === 'chaos';
    this.beta = Number(get('beta'));
    this.scouting = get('switching') === 'scouting';
    this.classes = JSON.parse(this.explorer.vc_classes());
    this.failedChannels = Array.from(this.explorer.failed_channels());
    this.failedNodes = Array.from(this.explorer.failed_nodes());
    this.hasFaults = this.failedChannels.length > 0 || this.failedNodes.length > 0;
    this.view = new TorusView(canvas);
    this.view.setGeometry(this.k, this.vcs, this.buf);
    this.views = null;
    this.heat = new Float32Array(this.k * this.k * 4);
    this.heatFlits = new Uint32Array(this.stateViews().channelFlits);
    this.heatCycle = this.explorer.cycle();
    this.marks = { backtracks: { list: [], seen: 0 }, deflections: { list: [], seen: 0 } };
    this.deadlock = null;
    this.deadlockAt = null;
    this.selected = -1;
    this.hover = -1;
    this.followed = null;
    this.tree = null;
    this.fast = null;
    this.fastStopping = null;
    this.models = [];
    this.modelReport = null;
    this.sweep = null;
  }

  free() {
    if (this.sweep) this.sweep.cancel();
    if (this.fast) {
      this.fast.discard();
      this.fast.worker.terminate();
    }
    this.explorer.free();
  }

  step(cycles) {
    this.explorer.step(cycles);
    this.sampleHeat();
  }

  draw() {
    this.view.draw(this.drawState());
  }

  // Notes a deadlock from the live numbers, as the page does for its own simulation.
  noteDeadlock(stats) {
    if (stats.deadlock && this.deadlockAt == null) this.deadlockAt = stats.cycle;
    if (stats.deadlock !== !!this.deadlock) this.deadlock = stats.deadlock ? this.deadlockCycle() : null;
  }

  // Fast mode in a worker of its own, in lockstep with the first simulation's (the page shows
  // each frame when both have reached its cycle; see App.showLockstep).
  startFast(onFrame, onError) {
    if (this.fastStopping || (this.fast && this.fast.active)) return;
    if (!this.fast) this.fast = new FastMode(this.app.module, { onFrame, onError });
    this.fast.start(this.explorer.save_state(), { chaos: this.chaos, scouting: this.scout > 0 }, true);
  }

  // Takes the simulation back from its fast-mode worker, at the cycle it reached there (in
  // lockstep at cycle `until`).
  stopFast(until = null) {
    if (this.fastStopping) return this.fastStopping;
    if (!this.fast || !this.fast.active) return Promise.resolve();
    this.fastStopping = this.fast.stop(until)
      .then((state) => {
        if (!state) return;
        const explorer = this.api.Explorer.restore(state);
        this.explorer.free();
        this.explorer = explorer;
        this.views = null;
      })
      .finally(() => { this.fastStopping = null; });
    return this.fastStopping;
  }
}
