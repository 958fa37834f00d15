// Page speed in headless Chromium. First the first minute as a reader sees it (the frame-rate
// limit on): opening the default link, when the background sweep draws its first point and
// completes, and when the first measured live point appears. Then, with the frame-rate limit
// off, beside native `torus bench`: frames per second animating 8×8 at a moderate load,
// simulated cycles per second in fast mode, and the longest main-thread task seen; then the
// same for compare mode's two 8×8 tori (frames per second, and each simulation's cycles per
// second in fast mode against the single simulation's, and against its own scenario's fast mode
// alone: in lockstep both run at the slower one's pace).
// Usage: make bench-page
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, launch, openPage, ROOT } from '../tests/browser/harness.mjs';

// torus bench's second scenario; short runs so that the worker's background work (the whole
// run and the sweep) is over before measuring.
const SCENARIO = 'k=8&routing=dor&traffic=uniform&len=16&rate=0.02';
const SHORT = '&warmup=500&cycles=2000';
const SECONDS = 5;
// Compare mode's second simulation: the same traffic under Duato's adaptive routing.
const SECOND = `${SCENARIO.replace('routing=dor', 'routing=duato&vcs=3')}${SHORT}`;

const server = await startServer();
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const f = (x) => x.toFixed(1);

// The first minute: the default link (an empty hash), LOADS times, each in a fresh page.
// Times are from navigation start (performance.now() in the page).
const LOADS = 3;
const firstMinute = [];
{
  const reader = await launch();
  for (let i = 0; i < LOADS; i++) {
    const p = await reader.context.newPage();
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.goto(server.url);
    await p.waitForFunction(() => {
      const s = window.torusExplorer && window.torusExplorer.sweepStatus();
      return s && s.done != null && s.liveSince != null;
    }, null, { timeout: 120000, polling: 100 });
    const s = await p.evaluate(() => ({ ...window.torusExplorer.sweepStatus(), workers: window.torusExplorer.workers() }));
    firstMinute.push({ ...s, load: loadavg()[0] });
    await p.close();
  }
  await reader.close();
}

const browser = await launch(['--disable-frame-rate-limit', '--disable-gpu-vsync']);
const { page } = await openPage(browser.context, `${server.url}#${SCENARIO}${SHORT}`);
await page.evaluate(() => window.torusExplorer.pause());
await page.evaluate(() => window.torusExplorer.run());
await page.waitForTimeout(3000);
// The simulator alone: 20 000 cycles in one call, no drawing.
const wasmAlone = () => page.evaluate(() => {
  const t = performance.now();
  window.torusExplorer.step(20000);
  return 20000 / ((performance.now() - t) / 1000);
});
await page.evaluate(() => {
  window.__frames = 0;
  const count = () => { window.__frames++; requestAnimationFrame(count); };
  requestAnimationFrame(count);
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push(e.duration);
  }).observe({ type: 'longtask' });
});

async function measure(speedSlider) {
  await page.fill('#speed', String(speedSlider));
  await page.dispatchEvent('#speed', 'input');
  await page.evaluate(() => window.torusExplorer.play());
  const now = () => page.evaluate(() => ({
    frames: window.__frames,
    cycle: window.torusExplorer.stats().cycle,
    second: window.torusExplorer.scenarios().length > 1 ? window.torusExplorer.stats(1).cycle : null,
    t: performance.now(),
    tasks: window.__longTasks.slice(),
  }));
  const before = await now();
  await page.waitForTimeout(SECONDS * 1000);
  const after = await now();
  await page.evaluate(() => window.torusExplorer.pause());
  const secs = (after.t - before.t) / 1000;
  const tasks = after.tasks.slice(before.tasks.length);
  return {
    fps: (after.frames - before.frames) / secs,
    cyclesPerSecond: (after.cycle - before.cycle) / secs,
    secondCyclesPerSecond: after.second == null ? null : (after.second - before.second) / secs,
    longTasks: tasks.length,
    longestTaskMs: tasks.length ? Math.max(...tasks) : 0,
  };
}

// Page ready from the single file: navigation start to the first frame drawn (the cycle label
// is written by the first draw), best of three loads.
const distUrl = pathToFileURL(join(ROOT, 'dist', 'torus-explorer.html')).href;
const readyMs = [];
for (let i = 0; i < 3; i++) {
  const p = await browser.context.newPage();
  await p.goto(`${distUrl}#k=8&routing=dor&traffic=uniform&len=16&rate=0.02`);
  await p.waitForFunction(() => (document.getElementById('cycle-label')?.textContent ?? '') !== '', null, { polling: 'raf', timeout: 30000 });
  readyMs.push(await p.evaluate(() => performance.now()));
  await p.close();
}

// The native figure, with the page paused, for the same scenario and the same machine state.
const nativeBench = () => {
  const out = execFileSync(join(ROOT, 'target', 'release', 'torus'), ['bench', '--cycles', '100000', '--scenario', SCENARIO], { encoding: 'utf8' });
  return Number(/([\d.]+) cycles\/s/.exec(out)[1]);
};

// A shared machine's speed drifts by tens of per cent over a minute, so fast mode, wasm alone
// and native are measured in turns, ROUNDS times, and the medians compared.
const ROUNDS = 3;
const animated = await measure(62);
const rounds = [];
for (let i = 0; i < ROUNDS; i++) {
  const fast = await measure(100);
  const alone = await wasmAlone();
  rounds.push({ fast, alone, native: nativeBench() });
}
// The second scenario's own fast mode, alone, for the same comparison.
await page.evaluate((s) => window.torusExplorer.setScenario(s), SECOND);
await page.evaluate(() => window.torusExplorer.pause());
await page.waitForTimeout(3000);
const secondAlone = [];
for (let i = 0; i < ROUNDS; i++) secondAlone.push((await measure(100)).cyclesPerSecond);
await page.evaluate((s) => window.torusExplorer.setScenario(s), `${SCENARIO}${SHORT}`);
await page.evaluate(() => window.torusExplorer.pause());
// Compare mode: two 8×8 tori, animated, then in fast mode (a worker each), in turns with the
// single simulation's fast mode.
await page.evaluate((s) => window.torusExplorer.compare(s), SECOND);
await page.evaluate(() => window.torusExplorer.pause());
await page.evaluate(() => Promise.all([window.torusExplorer.run(0), window.torusExplorer.run(1)]));
await page.waitForTimeout(3000);
const comparedAnimated = await measure(62);
const comparedRounds = [];
for (let i = 0; i < ROUNDS; i++) comparedRounds.push(await measure(100));
await page.evaluate(() => window.torusExplorer.compare(null));
await browser.close();
server.stop();

const fastCps = median(rounds.map((r) => r.fast.cyclesPerSecond));
const alone = median(rounds.map((r) => r.alone));
const native = median(rounds.map((r) => r.native));
const fastFps = median(rounds.map((r) => r.fast.fps));
const longTasks = rounds.reduce((n, r) => n + r.fast.longTasks, 0);
const longest = Math.max(...rounds.map((r) => r.fast.longestTaskMs));

console.log(`first minute, the default link (${firstMinute[0].scenario}), ${LOADS} loads at 1280×800, ${firstMinute[0].workers} sweep worker(s):`);
for (const [i, s] of firstMinute.entries()) {
  console.log(`  load ${i + 1}: page started the scenario at ${f(s.started / 1000)} s; first sweep point ${f((s.first - s.started) / 1000)} s after, sweep of ${s.points} points complete ${f((s.done - s.started) / 1000)} s after; first measured live point at ${f(s.liveSince / 1000)} s after navigation (1-min load average ${s.load.toFixed(1)})`);
}
console.log(`  medians: first sweep point ${f(median(firstMinute.map((s) => s.first - s.started)) / 1000)} s, sweep complete ${f(median(firstMinute.map((s) => s.done - s.started)) / 1000)} s, live point ${f(median(firstMinute.map((s) => s.liveSince)) / 1000)} s`);
console.log(`scenario: ${SCENARIO}`);
console.log(`animating (${f(animated.cyclesPerSecond)} cycles/s): ${f(animated.fps)} frames/s, ${animated.longTasks} main-thread tasks over 50 ms (longest ${f(animated.longestTaskMs)} ms)`);
for (const [i, r] of rounds.entries()) {
  console.log(`round ${i + 1}: fast mode ${f(r.fast.cyclesPerSecond)}, wasm alone ${f(r.alone)}, native ${f(r.native)} cycles/s (fast mode ${f(r.fast.cyclesPerSecond / r.native * 100)} % of native)`);
}
console.log(`fast mode (median of ${ROUNDS}): ${f(fastCps)} cycles/s at ${f(fastFps)} frames/s, ${longTasks} tasks over 50 ms (longest ${f(longest)} ms)`);
console.log(`wasm alone (step(20000), no drawing, median): ${f(alone)} cycles/s`);
console.log(`native torus bench (median): ${f(native)} cycles/s; fast mode is ${f(fastCps / native * 100)} % of native, wasm alone ${f(alone / native * 100)} %`);
console.log(`compare mode, ${SCENARIO} beside ${SECOND}:`);
console.log(`  animating (${f(comparedAnimated.cyclesPerSecond)} cycles/s each): ${f(comparedAnimated.fps)} frames/s, ${comparedAnimated.longTasks} main-thread tasks over 50 ms (longest ${f(comparedAnimated.longestTaskMs)} ms)`);
for (const [i, r] of comparedRounds.entries()) {
  console.log(`  fast mode round ${i + 1}: ${f(r.cyclesPerSecond)} and ${f(r.secondCyclesPerSecond)} cycles/s at ${f(r.fps)} frames/s`);
}
const firstCps = median(comparedRounds.map((r) => r.cyclesPerSecond));
const secondCps = median(comparedRounds.map((r) => r.secondCyclesPerSecond));
const secondAloneCps = median(secondAlone);
console.log(`  fast mode (medians): first ${f(firstCps)} cycles/s (${f(firstCps / fastCps * 100)} % of the single simulation's), second ${f(secondCps)} cycles/s (${f(secondCps / fastCps * 100)} %)`);
console.log(`  the second scenario's fast mode alone (median of ${ROUNDS}: ${secondAlone.map(f).join(', ')}): ${f(secondAloneCps)} cycles/s; in compare mode the second keeps ${f(secondCps / secondAloneCps * 100)} % of it, the first ${f(firstCps / fastCps * 100)} % of its own`);
console.log(`page ready from dist/torus-explorer.html (file://, navigation to first frame, best of 3): ${f(Math.min(...readyMs))} ms (all: ${readyMs.map(f).join(', ')})`);
console.log(`load average during the run: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} CPUs`);
