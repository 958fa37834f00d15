// Page speed in headless Chromium with the frame-rate limit off, beside native `torus bench`:
// frames per second animating 8×8 at a moderate load, simulated cycles per second in fast
// mode, and the longest main-thread task seen. Usage: make bench-page
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, ROOT } from '../tests/browser/harness.mjs';

const SCENARIO = 'k=8&routing=dor&traffic=uniform&len=16&rate=0.02';
const SECONDS = 5;

const server = await startServer();
const browser = await launch(['--disable-frame-rate-limit', '--disable-gpu-vsync']);
const { page } = await openPage(browser.context, `${server.url}#${SCENARIO}`);
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
  const before = await page.evaluate(() => ({ frames: window.__frames, cycle: window.torusExplorer.stats().cycle, t: performance.now(), tasks: window.__longTasks.length }));
  await page.waitForTimeout(SECONDS * 1000);
  const after = await page.evaluate(() => ({ frames: window.__frames, cycle: window.torusExplorer.stats().cycle, t: performance.now(), tasks: window.__longTasks.slice() }));
  await page.evaluate(() => window.torusExplorer.pause());
  const secs = (after.t - before.t) / 1000;
  const tasks = after.tasks.slice(before.tasks);
  return {
    fps: (after.frames - before.frames) / secs,
    cyclesPerSecond: (after.cycle - before.cycle) / secs,
    longTasks: tasks.length,
    longestTaskMs: tasks.length ? Math.max(...tasks) : 0,
  };
}

const animated = await measure(62);
const fast = await measure(100);
await browser.close();
server.stop();

const bench = execFileSync(join(ROOT, 'target', 'release', 'torus'), ['bench'], { encoding: 'utf8' });
const line = bench.split('\n').find((l) => l.includes('len=16&rate=0.02') && l.includes('routing=dor'));
const native = line ? Number(/([\d.]+) cycles\/s/.exec(line)[1]) : NaN;

const f = (x) => x.toFixed(1);
console.log(`scenario: ${SCENARIO}`);
console.log(`animating (${f(animated.cyclesPerSecond)} cycles/s): ${f(animated.fps)} frames/s, ${animated.longTasks} main-thread tasks over 50 ms (longest ${f(animated.longestTaskMs)} ms)`);
console.log(`fast mode: ${f(fast.cyclesPerSecond)} cycles/s at ${f(fast.fps)} frames/s, ${fast.longTasks} tasks over 50 ms (longest ${f(fast.longestTaskMs)} ms)`);
console.log(`native torus bench: ${f(native)} cycles/s; fast mode is ${f(fast.cyclesPerSecond / native * 100)} % of native`);
