// The background sweep of latency against offered load: shortened runs of the scenario, each
// exactly as `torus run` does it, at rates chosen to draw the curve as the papers draw it, from
// near zero load to just past saturation and densest near saturation. Coarse first: a rate near
// zero load and the predicted saturation rate; then steps up to bracket the simulated
// saturation rate, a bisection of the bracket, the points below it, and last two points past
// it, where the accepted throughput flattens. Each point carries its load in flits/node/cycle
// (units.js) beside the rate key it ran at.
import { flitsPerMessage } from './units.js';

// Each point: this much warm-up and measurement at most (fewer when the scenario asks for less).
export const SWEEP_WARMUP = 1000;
export const SWEEP_CYCLES = 6000;
// A step up while looking for saturation; the bisection stops at this relative width.
const STEP_UP = 1.3;
const BRACKET_WIDTH = 0.06;
// Points below the highest rate that kept up, as fractions of it, coarse ones first.
const FILL = [0.55, 0.8, 0.35, 0.94, 0.7, 0.88];
// A filling rate this close (relative to the saturation rate) to one already run is skipped.
const FILL_GAP = 0.035;
// Past saturation, as fractions of the highest rate that kept up: enough to show the accepted
// throughput flatten.
const PAST = [1.15, 1.3];
// No sweep runs more points than this (a scenario that deadlocks at every rate stops here).
const MAX_POINTS = 18;
// A point is past saturation when the network did not carry its offered load (accepted 5 %
// short of offered, or deadlocked) or its mean latency passed PAST_LATENCY times the zero-load
// latency. The run's own `saturated` flag also fires when one source of many falls behind,
// which in a short run near (but below) saturation happens by chance, and would put the knee of
// the curve too low.
const PAST_LATENCY = 10;

function withKeys(s, values) {
  return s.split('&').map((p) => {
    const [k, v] = p.split('=');
    return `${k}=${k in values ? values[k] : v}`;
  }).join('&');
}

const round = (rate) => Number(rate.toPrecision(3));

export class Sweep {
  // runner: a RunnerPool; scenario: canonical; bound: the channel-load bound's rate (or null);
  // predicted: the models' saturation rates; capacity: flits/node/cycle; onPoint(point) as each
  // point arrives: { rate, load, latency, ci, offered, accepted, acceptedMin (flits/node/cycle),
  // saturated, report }.
  constructor(runner, scenario, { bound, predicted, capacity, onPoint }) {
    this.runner = runner;
    this.scenario = scenario;
    const values = Object.fromEntries(scenario.split('&').map((p) => p.split('=')));
    const get = (key) => Number(values[key]);
    // Shortened runs of fixed length, also when the scenario's warm-up or window is automatic.
    const shortened = (key, most) => (values[key] === 'auto' ? most : Math.min(get(key), most));
    this.len = get('len');
    this.warmup = shortened('warmup', SWEEP_WARMUP);
    this.cycles = shortened('cycles', SWEEP_CYCLES);
    this.capacity = capacity;
    this.perMessage = flitsPerMessage(scenario);
    // No rate past the bound can be carried; without one, the rate of a full flit per node and
    // cycle.
    this.cap = bound > 0 ? bound : capacity / this.len;
    const guesses = predicted.filter((r) => r > 0 && Number.isFinite(r));
    // Without a model, simulated saturation has been 0.5–0.8 of the bound.
    const guess = guesses.length ? Math.max(...guesses) : 0.6 * this.cap;
    this.estimate = Math.min(Math.max(guess, 0.05 * this.cap), 0.9 * this.cap);
    this.onPoint = onPoint;
    this.points = [];
    this.cancelled = false;
    this.lo = 0;
    this.hi = null;
  }

  cancel() {
    this.cancelled = true;
  }

  get done() {
    return this.finished === true;
  }

  // Runs the points at `rates` side by side over the pool's workers.
  async batch(rates) {
    const todo = rates.map(round).filter((r, i, all) => r > 0 && all.indexOf(r) === i && !this.points.some((p) => p.rate === r));
    let next = 0;
    const lane = async () => {
      while (next < todo.length && !this.cancelled && this.points.length < MAX_POINTS) {
        const rate = todo[next++];
        const s = withKeys(this.scenario, { rate, warmup: this.warmup, cycles: this.cycles });
        let r;
        try {
          r = await this.runner.run(s);
        } catch (err) {
          console.warn(`sweep point at rate ${rate}: ${err.message}`);
          this.points.push({ rate, failed: true });
          continue;
        }
        if (this.cancelled) return;
        const point = {
          rate,
          load: rate * this.perMessage,
          latency: r.messages_measured > 0 ? r.latency_mean : null,
          ci: r.latency_ci95,
          offered: r.offered_flits_per_node_cycle,
          accepted: r.accepted_flits_per_node_cycle,
          acceptedMin: r.accepted_min_source,
          saturated: false,
          report: r,
        };
        this.points.push(point);
        this.judge();
        this.onPoint(point);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.runner.size, todo.length) }, lane));
  }

  // M + the mean route length, from the lowest rate run (where messages hardly meet).
  zeroLoad() {
    const low = this.points.filter((p) => p.report && p.report.messages_measured > 0).sort((a, b) => a.rate - b.rate)[0];
    return low ? this.len + low.report.hops_mean : null;
  }

  // Marks the points past saturation, and brackets the saturation rate between the highest
  // rate that kept up (lo) and the lowest that did not (hi).
  judge() {
    const zero = this.zeroLoad();
    const run = this.points.filter((p) => !p.failed);
    for (const p of run) {
      const r = p.report;
      p.saturated = r.deadlock || r.messages_measured === 0
        || r.accepted_flits_per_node_cycle < 0.95 * r.offered_flits_per_node_cycle
        || (zero != null && r.latency_mean > PAST_LATENCY * zero);
    }
    const past = run.filter((p) => p.saturated).map((p) => p.rate);
    this.hi = past.length ? Math.min(...past) : null;
    const kept = run.filter((p) => !p.saturated && (this.hi == null || p.rate < this.hi)).map((p) => p.rate);
    this.lo = kept.length ? Math.max(...kept) : 0;
  }

  // The whole sweep; resolves when it is done or cancelled.
  async run() {
    const live = () => !this.cancelled && this.points.length < MAX_POINTS;
    // Coarse: near zero load, and where saturation is expected.
    await this.batch([0.15 * this.estimate, this.estimate]);
    // Up in steps until a rate saturates or the bound is reached.
    while (live() && this.hi == null && this.lo < this.cap * 0.999) {
      await this.batch([Math.min(this.lo * STEP_UP, this.cap)]);
    }
    // Bisect the bracket.
    while (live() && this.hi != null && this.hi - this.lo > BRACKET_WIDTH * this.hi && this.hi > 0.02 * this.estimate) {
      await this.batch([(this.lo + this.hi) / 2]);
    }
    // Fill in below the highest rate that kept up.
    const top = this.lo;
    if (live() && top > 0) {
      const near = (r) => this.points.some((p) => Math.abs(p.rate - r) < FILL_GAP * top);
      await this.batch(FILL.map((f) => f * top).filter((r) => !near(r)));
      if (live()) await this.batch(PAST.map((f) => f * top).filter((r) => !near(r) && r <= this.cap));
    }
    this.finished = !this.cancelled;
    return this.points;
  }

  // The simulated saturation rate as far as the sweep knows it: between the highest rate that
  // kept up and the lowest that did not.
  saturation() {
    return this.hi ?? (this.lo || null);
  }
}
