// Simulator speed in WebAssembly under Node beside native `torus bench`, scenario by scenario:
// the same warm-up (cycles / 10) and timed stretch as the native benchmark, the same scenario
// strings (so the same flit-hops, which the script checks). Usage: make bench (after make wasm
// and cargo build --release); CYCLES overrides the timed cycles (default 50 000), ROUNDS the
// rounds (default 3).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cycles = Number(process.env.CYCLES ?? 50000);
const torus = path.join(root, 'target/release/torus');
const pkg = path.join(root, 'www/pkg');

const wasm = await import(path.join(pkg, 'torus_explorer.js'));
await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'torus_explorer_bg.wasm')) });

const rounds = Number(process.env.ROUNDS ?? 3);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const scenarios = execFileSync(torus, ['bench', '--json', '--cycles', '1000'], { encoding: 'utf8' })
  .trim().split('\n').map((line) => JSON.parse(line).scenario);

// Native: one `torus bench --scenario` run (its own warm-up of cycles / 10).
function native(scenario) {
  return JSON.parse(execFileSync(torus, ['bench', '--json', '--cycles', String(cycles), '--scenario', scenario], { encoding: 'utf8' }));
}

// WebAssembly: the same warm-up and timed stretch. The warm-up is taken in ten calls with a pause
// after it, so that V8 has replaced its baseline code by optimised code before the timed call
// (a call runs to its end in the tier it started in).
async function wasmRun(scenario) {
  // The native benchmark runs its scenario with warm-up 0 and room for every timed cycle.
  const keys = scenario.split('&').filter((kv) => !/^(warmup|cycles)=/.test(kv));
  const sim = new wasm.Explorer(`${keys.join('&')}&warmup=0&cycles=${2 * cycles}`);
  for (let i = 0; i < 10; i++) sim.step(Math.floor(cycles / 100));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const hopsBefore = sim.flit_hops();
  const start = process.hrtime.bigint();
  sim.step(cycles);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const hops = sim.flit_hops() - hopsBefore;
  sim.free();
  return { cycles_per_second: cycles / seconds, flit_hops: hops, seconds };
}

// Native and wasm in turn, `rounds` times, alternating which goes first, so that both see the
// same machine (wall clock on a shared 2-CPU machine swings by ±20% from run to run).
console.log(`${rounds} alternating rounds of ${cycles} cycles per scenario; medians`);
console.log('native cycles/s   wasm cycles/s   wasm/native   (min-max)   wasm ns/flit-hop   scenario');
for (const scenario of scenarios) {
  const n = [], w = [];
  for (let r = 0; r < rounds; r++) {
    const pair = r % 2 === 0 ? [() => n.push(native(scenario)), async () => w.push(await wasmRun(scenario))]
      : [async () => w.push(await wasmRun(scenario)), () => n.push(native(scenario))];
    for (const run of pair) await run();
  }
  for (let r = 0; r < rounds; r++) {
    if (n[r].flit_hops !== w[r].flit_hops) throw new Error(`${scenario}: wasm moved ${w[r].flit_hops} flit-hops, native ${n[r].flit_hops}`);
  }
  const nat = median(n.map((x) => x.cycles_per_second));
  const was = median(w.map((x) => x.cycles_per_second));
  const ratios = n.map((x, r) => w[r].cycles_per_second / x.cycles_per_second);
  console.log(
    `${nat.toFixed(0).padStart(14)}  ${was.toFixed(0).padStart(14)}  ${(was / nat).toFixed(2).padStart(12)}  ${`${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`.padStart(10)}  ${(median(w.map((x) => x.seconds * 1e9 / x.flit_hops))).toFixed(1).padStart(17)}   ${scenario}`,
  );
}

// The channel-queue model in WebAssembly beside `torus bench --models` (docs/models/channel-queue.md
// §9: a 100-point curve within 2× of native): the same scenarios and the same rates (100 from 1 %
// to 99 % of the saturation rate), the mean time of curves repeated for at least 50 ms.
console.log('\nchannel-queue model: native ms/curve   wasm ms/curve   wasm/native   scenario');
const modelRows = execFileSync(torus, ['bench', '--models', '--json'], { encoding: 'utf8' })
  .trim().split('\n').map((line) => JSON.parse(line)).filter((r) => r.model === 'channel-queue');
for (const r of modelRows) {
  const rates = Float64Array.from({ length: r.points }, (_, i) => r.saturation_rate * (0.01 + (0.98 * i) / (r.points - 1)));
  wasm.channel_queue_curve(r.scenario, rates);
  const start = process.hrtime.bigint();
  let curves = 0;
  while (curves === 0 || Number(process.hrtime.bigint() - start) < 50e6) {
    wasm.channel_queue_curve(r.scenario, rates);
    curves += 1;
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6 / curves;
  console.log(`${r.curve_ms.toFixed(2).padStart(33)}  ${ms.toFixed(2).padStart(14)}  ${(ms / r.curve_ms).toFixed(2).padStart(12)}   ${r.scenario}`);
}
