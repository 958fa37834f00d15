// Background sweeps use a pool of Web Workers (one per core beyond the animation's, at least
// one, at most four). With four cores reported, the page starts three workers, and every sweep
// point it shows is exactly `torus run` of that point's scenario: spreading runs over workers
// changes nothing in their results.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, ROOT } from './harness.mjs';

const TORUS = join(ROOT, 'target', 'release', 'torus');
const SCENARIO = 'k=4&routing=dor&traffic=uniform&rate=0.02&len=4&warmup=200&cycles=2000&seed=5';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser.close();
  server.stop();
});

async function sweepOf(cores) {
  await browser.context.addInitScript(`Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => ${cores}, configurable: true });`);
  const { page, errors } = await openPage(browser.context, `${server.url}#${SCENARIO}`);
  await page.evaluate(() => window.torusExplorer.pause());
  const workers = await page.evaluate(() => window.torusExplorer.workers());
  await page.waitForFunction(() => window.torusExplorer.results().sweep.length >= 6, null, { timeout: 60000 });
  const sweep = await page.evaluate(() => window.torusExplorer.results().sweep);
  await page.close();
  return { workers, sweep, errors };
}

test('a pool of workers runs the sweep, with results identical to the CLI', async () => {
  const { workers, sweep, errors } = await sweepOf(4);
  assert.equal(workers, 3, 'four cores: three workers beside the animation');
  assert.deepEqual(errors, []);
  const rates = sweep.map((p) => p.scenario_rate);
  assert.deepEqual(rates, [...rates].sort((a, b) => a - b), 'points shown in rate order');
  assert.equal(new Set(rates).size, rates.length, 'each rate once');
  for (const point of sweep) {
    const cli = JSON.parse(execFileSync(TORUS, ['run', point.scenario], { encoding: 'utf8' }));
    assert.equal(point.latency_mean, cli.latency_mean, `${point.scenario}: page and CLI latency`);
    assert.equal(point.accepted_flits_per_node_cycle, cli.accepted_flits_per_node_cycle, point.scenario);
  }
});

test('two cores: a single worker, so the animation keeps a core', async () => {
  const { workers } = await sweepOf(2);
  assert.equal(workers, 1);
});
