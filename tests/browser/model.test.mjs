// The model panel says what `torus model` says; the latency chart gets the channel-load bound,
// the background sweep's points and the live point (read through the chart's table toggle).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, ROOT } from './harness.mjs';

const TORUS = join(ROOT, 'target', 'release', 'torus');
const SCENARIO = 'k=6&routing=minad&traffic=uniform&rate=0.01&len=8&warmup=200&cycles=3000&seed=3';

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

test('model panel, bound, sweep points and live point', async () => {
  const cli = JSON.parse(execFileSync(TORUS, ['model', SCENARIO], { encoding: 'utf8' }));
  const { page, errors } = await openPage(browser.context, `${server.url}#${SCENARIO}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => !document.getElementById('model').textContent.includes('Evaluating'));
  const panel = await page.locator('#model').textContent();
  if (cli.model) assert.ok(panel.includes(`(${cli.model})`) && panel.includes(cli.description), panel);
  else assert.ok(panel.includes(cli.reason), `panel gives the CLI's reason: ${panel}`);
  // The bound in flits/node/cycle (capacity 8/k on a 2-D torus), with its share of capacity.
  const bound = cli.bound_saturation_fraction_of_capacity * (8 / 6);
  assert.ok(panel.includes(`${bound.toFixed(3)} (${Math.round((100 * Number(bound.toFixed(3))) / (8 / 6))} %)`), `panel shows the bound: ${panel}`);

  await page.evaluate(() => window.torusExplorer.step(1500));
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  assert.ok(stats.messages_measured > 0);
  await page.click('#chart-latency button:has-text("table")');
  // Columns: the rate, each model's curve, the sweep, the live point; values with their 95 %
  // intervals. The live point comes with the next statistics update after the steps, the sweep
  // points as the worker finishes them.
  const table = () => page.evaluate(() => {
    const head = [...document.querySelectorAll('#chart-latency .chart-table thead th')].map((th) => th.textContent);
    const rows = [...document.querySelectorAll('#chart-latency .chart-table tbody tr')].map((r) => [...r.cells].map((c) => c.textContent));
    const column = (label) => rows.map((r) => ({ rate: parseFloat(r[0]), value: r[head.indexOf(label)] })).filter((c) => c.value !== '–');
    return { head, sweep: column('simulated (sweep)'), live: column('live') };
  });
  await page.waitForFunction(() => {
    const head = [...document.querySelectorAll('#chart-latency .chart-table thead th')].map((th) => th.textContent);
    const rows = [...document.querySelectorAll('#chart-latency .chart-table tbody tr')];
    const filled = (label) => rows.filter((r) => r.cells[head.indexOf(label)].textContent !== '–').length;
    return filled('simulated (sweep)') >= 6 && filled('live') === 1;
  }, null, { timeout: 60000 });
  const { head, sweep, live } = await table();
  assert.equal(head.filter((h) => h.startsWith('model')).length, cli.model ? 1 : 0, `a model column exactly when a model applies: ${head}`);
  assert.equal(live.length, 1, 'one live point');
  assert.equal(live[0].rate, 0.01 * 8, 'at the scenario load: λ times the 8 flits of a message');
  const shownLatency = parseFloat(live[0].value);
  const current = await page.evaluate(() => window.torusExplorer.stats().latency_mean);
  assert.ok(Math.abs(shownLatency - current) < 1e-3, `live point ${shownLatency} is the live mean ${current}`);
  assert.ok(Math.max(...sweep.map((p) => p.rate)) <= cli.bound_saturation_rate * 8 * (1 + 1e-9), 'the sweep stays below the bound');
  assert.deepEqual(errors, []);
});
