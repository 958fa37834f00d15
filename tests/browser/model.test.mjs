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
  if (cli.model) assert.ok(panel.includes(`Model: ${cli.model}`), panel);
  else assert.ok(panel.includes(cli.reason), `panel gives the CLI's reason: ${panel}`);
  assert.ok(panel.includes(`${Number(cli.bound_saturation_fraction_of_capacity).toPrecision(3)} of capacity`), `panel shows the bound: ${panel}`);

  await page.evaluate(() => window.torusExplorer.step(1500));
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  assert.ok(stats.messages_measured > 0);
  await page.click('#chart-latency button:has-text("table")');
  // Columns: rate, model, simulated (sweep), live.
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('#chart-latency .chart-table tbody tr')];
    return rows.filter((r) => r.cells[2].textContent !== '–').length >= 6;
  }, null, { timeout: 60000 });
  const rows = await page.$$eval('#chart-latency .chart-table tbody tr', (trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
  const live = rows.filter((r) => r[3] !== '–');
  assert.equal(live.length, 1, 'one live point');
  assert.equal(Number(live[0][0]), 0.01, 'at the scenario rate');
  const shownLatency = Number(live[0][3]);
  const current = await page.evaluate(() => window.torusExplorer.stats().latency_mean);
  assert.ok(Math.abs(shownLatency - current) < 1e-3, `live point ${shownLatency} is the live mean ${current}`);
  const sweepRates = rows.filter((r) => r[2] !== '–').map((r) => Number(r[0]));
  assert.ok(Math.max(...sweepRates) <= cli.bound_saturation_rate, 'the sweep stays below the bound');
  assert.deepEqual(errors, []);
});
