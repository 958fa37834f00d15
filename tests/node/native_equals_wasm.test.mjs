// Native = wasm: the same scenarios through `torus run` and through the WebAssembly build in
// Node must give the same report, field for field and bit for bit (both sides print floats with
// serde_json's shortest round-trip form, so equal parsed doubles are equal bits). Only
// `wall_seconds`, which the CLI adds, is left out.
//
// Needs `make wasm` (www/pkg) and `cargo build --release` (target/release/torus); TORUS and
// WASM_PKG override the two paths. Run with `node --test tests/node/`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const torus = process.env.TORUS ?? path.join(root, 'target/release/torus');
const pkg = process.env.WASM_PKG ?? path.join(root, 'www/pkg');
const glue = path.join(pkg, 'torus_explorer.js');

const SCENARIOS = [
  'k=4&rate=0.01&len=4&warmup=200&cycles=3000',
  'k=8&routing=duato&traffic=tornado&rate=0.02&len=8&warmup=500&cycles=5000&seed=3',
  'k=8&routing=minad&traffic=uniform&rate=0.05&len=4&warmup=500&cycles=4000&seed=9',
  'k=5&n=3&routing=dor&traffic=bitcomp&rate=0.01&len=16&vcs=4&buf=2&warmup=100&cycles=2000',
  // Past saturation: the source-queue cap and the drain under load.
  'k=4&n=2&routing=dor&traffic=uniform&rate=0.25&len=4&warmup=0&cycles=3000',
  // A deadlock: the watchdog and the reported cycle of VCs.
  'k=4&n=1&routing=dor&vcs=1&unsafe=1&len=8&rate=0.12&warmup=0&cycles=50000',
  // The router organisations and message lengths drawn per message (geometric: libm's log).
  'k=8&routing=goal&traffic=tornado&rate=0.45&len=1&vcs=3&buf=8&router=damq%2Bspeedup2%2Bwide&warmup=300&cycles=2000&seed=4',
  'k=8&routing=val&rate=0.3&len=1&vcs=4&buf=6&router=maxmatch%2Bspeedup2%2Bwide&warmup=300&cycles=2000',
  'k=8&routing=duato&vcs=4&rate=0.01&len=12&lengths=geometric&warmup=500&cycles=4000&seed=2',
  'k=8&routing=dor&rate=0.01&lengths=uniform:4-20&warmup=500&cycles=4000',
  // rng=2: rand_distr's ziggurat Exp and exact Geometric, whose logarithms and exponentials go
  // through libm (a tail draw of the ziggurat calls them; 5 000 cycles at this load make
  // thousands of draws).
  'k=8&routing=minad&rate=0.04&len=4&rng=2&warmup=500&cycles=5000&seed=6',
  'k=8&routing=duato&vcs=4&rate=0.01&len=12&lengths=geometric&rng=2&warmup=500&cycles=4000&seed=2',
  // Router, link and credit delays, with buffers above and below the credit round trip.
  'k=8&routing=minad&rate=0.03&len=8&buf=8&rdelay=2&ldelay=1&cdelay=1&warmup=500&cycles=4000&seed=5',
  'k=8&routing=val&traffic=tornado&rate=0.2&len=4&buf=3&rdelay=1&ldelay=3&warmup=300&cycles=3000',
];

const missing = [torus, glue].filter((p) => !existsSync(p));

test('torus run and the wasm run() report identical statistics', { skip: missing.length > 0 && `missing ${missing.join(', ')}` }, async () => {
  const wasm = await import(glue);
  await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'torus_explorer_bg.wasm')) });
  for (const scenario of SCENARIOS) {
    const native = JSON.parse(execFileSync(torus, ['run', scenario], { encoding: 'utf8' }));
    delete native.wall_seconds;
    const fromWasm = JSON.parse(wasm.run(scenario));
    assert.deepEqual(fromWasm, native, scenario);
  }
});

test('a rejected scenario gives the same one-line error natively and in wasm', { skip: missing.length > 0 && `missing ${missing.join(', ')}` }, async () => {
  const wasm = await import(glue);
  await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'torus_explorer_bg.wasm')) });
  for (const scenario of ['k=1', 'rate=NaN', 'a%0Ab=1', 'vcs=1000000', 'x'.repeat(5000), 'lengths=uniform:1-4', 'router=damq&routing=chaos', 'rdelay=33', 'ldelay=2&routing=chaos']) {
    let nativeError;
    try {
      execFileSync(torus, ['run', scenario], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      assert.equal(e.status, 2, scenario);
      nativeError = e.stderr.trim().replace(/^torus: /, '');
    }
    assert.ok(nativeError, `${scenario.slice(0, 40)}: torus run should fail`);
    assert.throws(() => wasm.run(scenario), (e) => e.message === nativeError, scenario.slice(0, 40));
  }
});

test('torus model and the wasm model() agree, the channel-queue model included', { skip: missing.length > 0 && `missing ${missing.join(', ')}` }, async () => {
  const wasm = await import(glue);
  await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'torus_explorer_bg.wasm')) });
  for (const scenario of [
    'k=8&routing=dor&traffic=tornado&rate=0.008',
    'k=8&routing=goal&traffic=transpose&rate=0.01&len=8',
    'k=8&routing=nbc&traffic=uniform&rate=0.005',
    'k=4&routing=val&traffic=permutation&rate=0.02&len=4',
    'routing=chaos',
    'k=8&routing=adaptive&vcs=4&rate=0.004&rdelay=2&ldelay=1&buf=2',
  ]) {
    const native = JSON.parse(execFileSync(torus, ['model', scenario], { encoding: 'utf8' }));
    assert.deepEqual(JSON.parse(wasm.model(scenario)), native, scenario);
    const utilisation = Array.from(wasm.predicted_channel_utilisation(scenario));
    assert.deepEqual(utilisation, native.channel_utilisation_predicted, scenario);
    const [latency] = JSON.parse(wasm.channel_queue_curve(scenario, new Float64Array([native.rate])));
    assert.equal(latency, native.channel_queue.latency ?? null, scenario);
  }
  // The page first keeps to route graphs of 400 000 states, the CLI goes to 2.5 million: 16 × 16
  // MIN AD under uniform traffic (424 416 states) is answered natively; the page's first answer
  // says that it goes further, and its full-budget answer is the CLI's, bit for bit.
  const large = 'k=16&routing=minad&traffic=uniform&len=16&rate=0.005';
  const native = JSON.parse(execFileSync(torus, ['model', large], { encoding: 'utf8' }));
  assert.ok(native.channel_queue.latency > 0 && !native.channel_queue.reason && !native.channel_queue.past_page_budget, JSON.stringify(native.channel_queue));
  const page = JSON.parse(wasm.model(large)).channel_queue;
  assert.equal(page.reason, "the routes of routing=minad on this 256-node torus need more than 400000 route states, the page's budget while its load sweep runs; once the sweep is done it builds up to 2500000, as the CLI's torus model does");
  assert.equal(page.past_page_budget, true);
  assert.deepEqual(JSON.parse(wasm.model_full(large)), native);
  const rates = [0.002, native.channel_queue.saturation_rate * 0.9];
  const curve = JSON.parse(wasm.channel_queue_curve_full(large, new Float64Array(rates)));
  const cli = rates.map((rate) => JSON.parse(execFileSync(torus, ['model', large.replace('rate=0.005', `rate=${rate}`)], { encoding: 'utf8' })).channel_queue.latency);
  assert.deepEqual(curve, cli);
});
