// Every preset teaches what it says: each preset's claims (www/js/presets.js) are checked
// against the CLI. Where the rate lies against the simulated saturation rate (`torus
// saturation`, on shortened runs), whether a run keeps up, saturates, deadlocks or stalls at its
// faults, which model `torus model` applies, the channel-load bound, what a run shows
// (backtracks, deflections, broadcasts, misroutes) and what it never shows, starvation, and how
// a pinned or named variant compares.
//
// Needs `cargo build --release` (target/release/torus; TORUS overrides). Run with
// `node --test tests/node/`. Every number is computed here, from the CLI, each time.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { PRESETS, claimWords } from '../../www/js/presets.js';
import { pinScenario } from '../../www/js/link.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const torus = process.env.TORUS ?? path.join(root, 'target/release/torus');

// Shortened runs: at most this much warm-up, and this many cycles measured. Saturation rates
// found this way differ from long runs' by a few per cent, well inside the claims' margins.
const WARMUP = 2000;
const CYCLES = 10000;

function cli(args) {
  return JSON.parse(execFileSync(torus, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

const canonical = (scenario) => cli(['model', scenario]).scenario;

function shortened(scenario) {
  return scenario.split('&').map((p) => {
    const [k, v] = p.split('=');
    if (k === 'warmup') return `warmup=${Math.min(Number(v), WARMUP)}`;
    if (k === 'cycles') return `cycles=${CYCLES}`;
    return p;
  }).join('&');
}

const saturations = new Map();
function saturation(scenario) {
  const s = shortened(scenario);
  if (!saturations.has(s)) saturations.set(s, cli(['saturation', s]).saturation_rate);
  return saturations.get(s);
}

const rateOf = (scenario) => Number(/(?:^|&)rate=([^&]+)/.exec(scenario)[1]);

test('every preset states its operating point', () => {
  for (const p of PRESETS) {
    assert.ok(p.claims && p.claims.point, `${p.title}: a claim about its operating point`);
    assert.ok(claimWords(p.claims).length > 0);
  }
  // A paragraph that calls its load moderate sits at 30-60 % of saturation.
  for (const p of PRESETS.filter((q) => /moderate load/i.test(q.text))) {
    assert.deepEqual(p.claims.point.below, [0.3, 0.6], `${p.title} says "moderate load"`);
  }
  // A paragraph that names a paper's model claims that model.
  for (const p of PRESETS.filter((q) => / model (of|predicts)|model's curve|The model /.test(q.text))) {
    assert.ok(p.claims.model, `${p.title} names a model`);
  }
});

for (const p of PRESETS) {
  test(`preset "${p.title}": ${claimWords(p.claims).join('; ')}`, () => {
    const scenario = canonical(p.scenario);
    const claims = p.claims;
    const report = cli(['model', scenario]);
    if (claims.model) assert.equal(report.model, claims.model, `the ${claims.model} model applies: ${report.reason}`);
    if (claims.bound) {
      assert.ok(Math.abs(report.bound_saturation_fraction_of_capacity - claims.bound) < 0.005,
        `bound ${report.bound_saturation_fraction_of_capacity} of capacity, the text says ${claims.bound}`);
    }
    const point = claims.point;
    if (claims.compared) {
      const other = canonical(pinScenario(scenario, p.compare));
      const theirs = cli(['run', other.replace(/cycles=\d+/, 'cycles=20000')]);
      if (claims.compared.deadlock === false) assert.equal(theirs.deadlock, false, `the scenario beside it (compare=${p.compare}) does not deadlock`);
      if (claims.compared.stall === false) assert.equal(theirs.fault_stall || theirs.deadlock, false, `the scenario beside it (compare=${p.compare}) does not stall`);
      for (const field of claims.compared.none || []) assert.equal(theirs[field], 0, `the scenario beside it has no ${field}`);
    }
    if (point === 'deadlock') {
      const run = cli(['run', scenario.replace(/cycles=\d+/, 'cycles=20000')]);
      assert.equal(run.deadlock, true, 'the run deadlocks');
      return;
    }
    if (point === 'stall') {
      const run = cli(['run', scenario.replace(/cycles=\d+/, 'cycles=20000')]);
      assert.equal(run.fault_stall && !run.deadlock, true, 'the run stalls at its faults, apart from deadlock');
      for (const field of claims.shows || []) assert.ok(run[field] > 0, `the run shows ${field}: ${run[field]}`);
      return;
    }
    const run = cli(['run', shortened(scenario)]);
    const rate = rateOf(scenario);
    const sat = saturation(scenario);
    const ratio = rate / sat;
    console.log(`${p.title}: rate ${rate}, simulated saturation ${sat.toPrecision(3)} messages/node/cycle: ${(ratio * 100).toFixed(0)} %`);
    if (point.below) {
      const [lo, hi] = point.below;
      assert.ok(ratio >= lo && ratio <= hi, `rate ${rate} is ${(ratio * 100).toFixed(0)} % of saturation ${sat}, not ${lo * 100}-${hi * 100} %`);
      assert.equal(run.saturated || run.deadlock, false, `below saturation a run keeps up: ${run.saturation_reason}`);
    }
    if (point.past) {
      assert.ok(ratio >= point.past, `rate ${rate} is ${ratio.toFixed(2)}× saturation ${sat}, not past ${point.past}×`);
      assert.equal(run.saturated, true, 'past saturation a run saturates');
    }
    for (const field of claims.shows || []) assert.ok(run[field] > 0, `the run shows ${field}: ${run[field]}`);
    for (const field of claims.none || []) assert.equal(run[field], 0, `the run has no ${field}`);
    if (claims.starved != null) {
      assert.ok(run.accepted_min_pair <= claims.starved * run.accepted_flits_per_node_cycle,
        `worst pair ${run.accepted_min_pair} against mean ${run.accepted_flits_per_node_cycle}`);
    }
    if (claims.than) {
      const other = canonical(pinScenario(scenario, claims.than.scenario));
      const theirs = saturation(other);
      assert.ok(sat >= claims.than.higher * theirs, `saturation ${sat} against ${theirs} for ${claims.than.scenario}`);
    }
    if (claims.pin) {
      const pinned = canonical(pinScenario(scenario, p.pins[0]));
      if (claims.pin.higher) {
        const theirs = saturation(pinned);
        assert.ok(theirs >= claims.pin.higher * sat, `pinned ${p.pins[0]} saturates at ${theirs}, this at ${sat}`);
      }
      if (claims.pin.fair) {
        const theirs = cli(['run', shortened(pinned)]);
        assert.ok(theirs.accepted_min_pair >= claims.pin.fair * theirs.accepted_flits_per_node_cycle,
          `pinned ${p.pins[0]}: worst pair ${theirs.accepted_min_pair} against mean ${theirs.accepted_flits_per_node_cycle}`);
      }
    }
  });
}
