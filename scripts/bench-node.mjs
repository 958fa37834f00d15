// Simulator speed in WebAssembly under Node beside native `torus bench`, scenario by scenario:
// the same warm-up (cycles / 10) and timed stretch as the native benchmark, the same scenario
// strings (so the same flit-hops, which the script checks). Usage: make bench (after make wasm
// and cargo build --release); CYCLES overrides the timed cycles (default 50 000).
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

const native = execFileSync(torus, ['bench', '--json', '--cycles', String(cycles)], { encoding: 'utf8' })
  .trim().split('\n').map((line) => JSON.parse(line));

console.log('native cycles/s   wasm cycles/s   wasm/native   wasm ns/flit-hop   scenario');
for (const n of native) {
  // The native benchmark runs its scenario with warm-up 0 and room for every timed cycle.
  const keys = n.scenario.split('&').filter((kv) => !/^(warmup|cycles)=/.test(kv));
  const sim = new wasm.Explorer(`${keys.join('&')}&warmup=0&cycles=${2 * cycles}`);
  sim.step(Math.floor(cycles / 10));
  const hopsBefore = sim.flit_hops();
  const start = process.hrtime.bigint();
  sim.step(cycles);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const hops = sim.flit_hops() - hopsBefore;
  if (hops !== n.flit_hops) throw new Error(`${n.scenario}: wasm moved ${hops} flit-hops, native ${n.flit_hops}`);
  const perSecond = cycles / seconds;
  console.log(
    `${n.cycles_per_second.toFixed(0).padStart(14)}  ${perSecond.toFixed(0).padStart(14)}  ${(perSecond / n.cycles_per_second).toFixed(2).padStart(12)}  ${(seconds * 1e9 / hops).toFixed(1).padStart(17)}   ${n.scenario}`,
  );
  sim.free();
}
