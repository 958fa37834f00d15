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

// Where no paper's model applies (DOR under tornado traffic), the channel-queue model's curve is
// drawn and the heat overlay can show its predicted channel utilisation; where a paper's model
// applies (NBC under uniform traffic), both curves are drawn.
test('the channel-queue curve and the predicted heat for a DOR tornado link; both curves for NBC', async () => {
  const tornado = 'k=8&routing=dor&traffic=tornado&rate=0.008&len=16&warmup=500&cycles=3000';
  const cli = JSON.parse(execFileSync(TORUS, ['model', tornado], { encoding: 'utf8' }));
  assert.equal(cli.model, 'channel-queue');
  const { page, errors } = await openPage(browser.context, `${server.url}#${tornado}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => !document.getElementById('model').textContent.includes('Evaluating'));
  const panel = await page.locator('#model').textContent();
  assert.ok(panel.includes('(channel-queue)') && panel.includes(Number(cli.latency).toPrecision(4)), panel);
  const modelColumns = () => page.evaluate(() => {
    const head = [...document.querySelectorAll('#chart-latency .chart-table thead th')].map((th) => th.textContent);
    const rows = [...document.querySelectorAll('#chart-latency .chart-table tbody tr')];
    return head.map((h, i) => ({ h, i })).filter(({ h }) => h.startsWith('model')).map(({ h, i }) => ({
      label: h,
      values: rows.map((r) => r.cells[i].textContent).filter((v) => v !== '–').length,
    }));
  });
  await page.click('#chart-latency button:has-text("table")');
  const columns = await modelColumns();
  assert.equal(columns.length, 1, JSON.stringify(columns));
  assert.ok(columns[0].label.includes('channel-queue') && columns[0].values > 20, JSON.stringify(columns));

  // The overlay: measured by default; predicted on request, the CLI's values in its order.
  assert.deepEqual(await page.evaluate(() => window.torusExplorer.heatShown()), await page.evaluate(() => window.torusExplorer.heat()));
  await page.selectOption('#heat-source', 'predicted');
  const shown = await page.evaluate(() => window.torusExplorer.heatShown());
  assert.equal(shown.length, cli.channel_utilisation_predicted.length);
  shown.forEach((u, c) => assert.ok(Math.abs(u - cli.channel_utilisation_predicted[c]) < 1e-9, `channel ${c}: ${u}`));
  // Tornado under DOR loads only the +x channels (3 λ M flits/cycle each).
  assert.ok(shown.some((u) => Math.abs(u - 3 * 0.008 * 16) < 1e-9) && shown.some((u) => u === 0), 'the +x channels carry the load');

  const nbc = 'k=8&routing=nbc&traffic=uniform&rate=0.005&len=16&warmup=500&cycles=3000';
  await page.evaluate((s) => window.torusExplorer.setScenario(s), nbc);
  await page.waitForFunction(() => document.getElementById('model').textContent.includes('Duato-Nbc'), null, { timeout: 120000 });
  await page.waitForFunction(() => [...document.querySelectorAll('#chart-latency .chart-table thead th')].filter((th) => th.textContent.startsWith('model')).length === 2, null, { timeout: 120000 });
  const both = await modelColumns();
  assert.ok(both[0].label.includes('Safaei') && both[1].label.includes('channel-queue'), JSON.stringify(both));
  assert.ok(both.every((c) => c.values > 20), JSON.stringify(both));
  assert.ok((await page.locator('#model').textContent()).includes('channel-queue: mean latency'));
  assert.equal(await page.locator('#model .model-assumption').count(), 0, 'the input-queued router and fixed lengths: nothing to say');

  // A router organisation and lengths the models do not describe: the CLI's line, in the panel.
  const paper = 'k=8&routing=goal&traffic=tornado&rate=0.008&len=16&warmup=500&cycles=3000&router=damq+speedup2+wide&lengths=geometric';
  const said = JSON.parse(execFileSync(TORUS, ['model', paper], { encoding: 'utf8' })).assumption;
  assert.ok(said.includes('router=damq+speedup2+wide') && said.includes('lengths=geometric'), said);
  await page.evaluate((s) => window.torusExplorer.setScenario(s), paper);
  await page.waitForSelector('#model .model-assumption', { timeout: 120000 });
  const line = await page.locator('#model .model-assumption').textContent();
  assert.equal(line, `${said[0].toUpperCase()}${said.slice(1)}.`);
  assert.deepEqual(errors, []);
});

// Past the page's first route-state budget (16 × 16 MIN AD under uniform traffic, 424 416 route
// states): the page first gives the reason and runs its sweep; then it builds the routes as
// `torus model` does and draws the channel-queue model, the CLI's numbers.
test('a scenario past the page\'s first route budget gets its prediction after the sweep', async () => {
  const large = 'k=16&routing=minad&traffic=uniform&rate=0.005&len=16&vcs=3&warmup=200&cycles=1500';
  const cli = JSON.parse(execFileSync(TORUS, ['model', large], { encoding: 'utf8' }));
  assert.equal(cli.model, 'channel-queue');
  const { page, errors } = await openPage(browser.context, `${server.url}#${large}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => document.getElementById('model').textContent.includes('route states'), null, { timeout: 60000 });
  assert.ok((await page.locator('#model').textContent()).includes('once the sweep is done it builds up to 2500000'));
  await page.waitForFunction(() => document.getElementById('model').textContent.includes('(channel-queue)'), null, { timeout: 240000 });
  const panel = await page.locator('#model').textContent();
  assert.ok(panel.includes(Number(cli.latency).toPrecision(4)) && !panel.includes('Building'), panel);
  assert.equal(await page.locator('#heat-source').isDisabled(), false, 'the predicted heat is there');
  await page.click('#chart-latency button:has-text("table")');
  await page.waitForFunction(() => [...document.querySelectorAll('#chart-latency .chart-table thead th')].some((th) => th.textContent.includes('channel-queue')), null, { timeout: 120000 });
  const sweep = await page.evaluate(() => window.torusExplorer.sweepStatus());
  assert.ok(sweep.done != null, 'the sweep finished before the model was built');
  assert.deepEqual(errors, []);
});

// The same for compare mode's second scenario and for a pin: after their sweeps, their
// channel-queue curves with the full budget.
test('compare mode and a pin past the first route budget get the model after their sweeps', async () => {
  const base = 'k=16&routing=dor&traffic=uniform&rate=0.004&len=16&vcs=3&warmup=200&cycles=1000';
  const cli = JSON.parse(execFileSync(TORUS, ['model', base.replace('routing=dor', 'routing=minad')], { encoding: 'utf8' }));
  const { page, errors } = await openPage(browser.context, `${server.url}#${base}&pin=routing:minad&compare=routing:minad`);
  await page.waitForFunction(() => {
    const c = window.torusExplorer.results().compare;
    return c && c.model && c.model.model === 'channel-queue';
  }, null, { timeout: 240000 });
  const second = await page.evaluate(() => window.torusExplorer.results().compare.model);
  assert.equal(second.latency, cli.latency, 'the CLI\'s latency, bit for bit');
  await page.click('#chart-latency button:has-text("table")');
  const curves = () => page.evaluate(() => [...document.querySelectorAll('#chart-latency .chart-table thead th')]
    .map((th) => th.textContent).filter((h) => h.includes('channel-queue')));
  // The first scenario's own curve, the second's and the pin's.
  await page.waitForFunction(() => [...document.querySelectorAll('#chart-latency .chart-table thead th')]
    .filter((th) => th.textContent.includes('channel-queue')).length === 3, null, { timeout: 240000 }).catch(async () => assert.fail(JSON.stringify(await curves())));
  assert.deepEqual(errors, []);
});

// A full-budget build takes the worker up to a minute (16 × 16 GOAL: half a minute); a new
// scenario does not wait for it: the worker on it is replaced.
test('a new scenario does not wait for the build of the one before', async () => {
  const goal = 'k=16&routing=goal&traffic=uniform&rate=0.004&len=16&vcs=3&warmup=200&cycles=1000';
  const { page, errors } = await openPage(browser.context, `${server.url}#${goal}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => document.getElementById('model').textContent.includes('Building the channel-queue model'), null, { timeout: 120000 });
  const small = 'k=4&routing=dor&traffic=tornado&rate=0.01&len=8&warmup=200&cycles=1000';
  const cli = JSON.parse(execFileSync(TORUS, ['model', small], { encoding: 'utf8' }));
  const switched = Date.now();
  await page.evaluate((s) => window.torusExplorer.setScenario(s), small);
  await page.waitForFunction((latency) => document.getElementById('model').textContent.includes(latency), Number(cli.latency).toPrecision(4), { timeout: 60000 });
  // The build had about half a minute left; the new report takes a fraction of a second.
  assert.ok(Date.now() - switched < 10000, `the new scenario's model came ${Date.now() - switched} ms after the switch`);
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().first != null, null, { timeout: 30000 });
  assert.deepEqual(errors, []);
});

// With several workers (four cores reported: three), the full-budget report and its curve come
// from the worker that built the model; the CLI's numbers all the same. Last in this file: the
// reported cores stay with the browser context.
test('with a pool of workers the full-budget model comes as with one', async () => {
  await browser.context.addInitScript('Object.defineProperty(navigator, "hardwareConcurrency", { get: () => 4, configurable: true });');
  const large = 'k=16&routing=minad&traffic=uniform&rate=0.005&len=16&vcs=3&warmup=200&cycles=1500';
  const cli = JSON.parse(execFileSync(TORUS, ['model', large], { encoding: 'utf8' }));
  const { page, errors } = await openPage(browser.context, `${server.url}#${large}`);
  assert.equal(await page.evaluate(() => window.torusExplorer.workers()), 3);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.click('#chart-latency button:has-text("table")');
  await page.waitForFunction(() => [...document.querySelectorAll('#chart-latency .chart-table thead th')].some((th) => th.textContent.includes('channel-queue')), null, { timeout: 240000 });
  const model = await page.evaluate(() => window.torusExplorer.results().model);
  assert.equal(model.latency, cli.latency);
  assert.deepEqual(model.channel_utilisation_predicted, cli.channel_utilisation_predicted);
  assert.deepEqual(errors, []);
});
