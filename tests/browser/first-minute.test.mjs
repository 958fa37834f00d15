// The first minute of a reader opening a link: the default link shows worms, a model's curve,
// the sweep and a live point in the first screen; the latency chart is drawn as the papers draw
// it, readable on a saturated scenario too; a measured live point comes within seconds; pinned
// curves and presentation mode travel in the link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, ready, hash, ROOT } from './harness.mjs';

const TORUS = join(ROOT, 'target', 'release', 'torus');

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

const latencyChart = (page) => page.evaluate(() => window.torusExplorer.charts().find((c) => c.title === 'Latency against offered load'));
const modelSeries = (chart) => chart.series.filter((s) => s.startsWith('model'));

for (const [width, height] of [[1280, 800], [1920, 1080]]) {
  test(`the default link shows worms, a model curve, sweep points and a live point in the first screen at ${width}×${height}`, async () => {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setViewportSize({ width, height });
    await page.goto(server.url);
    await ready(page);
    await page.waitForFunction(() => {
      const c = window.torusExplorer.charts()[0];
      return c.points['simulated (sweep)'] >= 3 && c.points.live === 1
        && c.series.filter((label) => label.startsWith('model')).length === 2;
    }, null, { timeout: 60000 });
    const chart = await latencyChart(page);
    const models = modelSeries(chart);
    // The paper's model (Quaglia et al. 2002) and the channel-queue model beside it.
    assert.equal(models.length, 2, `two models' curves: ${chart.series}`);
    assert.ok(models[0].includes('Quaglia') && models[1].includes('channel-queue'), `${chart.series}`);
    for (const m of models) assert.ok(chart.points[m] >= 20, `the model's curve is drawn: ${JSON.stringify(chart.points)}`);
    const stats = await page.evaluate(() => window.torusExplorer.stats());
    assert.ok(stats.flits_in_network > 0, 'worms in the network');
    const boxes = await page.evaluate(() => Object.fromEntries(['torus', 'chart-latency', 'live-numbers'].map((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return [id, { top: r.top, bottom: r.bottom, right: r.right, height: r.height }];
    })));
    for (const [id, box] of Object.entries(boxes)) {
      assert.ok(box.height > 0 && box.bottom <= height && box.right <= width, `${id} within the first screen: ${JSON.stringify(box)}`);
    }
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    const h = new URLSearchParams(await hash(page));
    assert.equal(h.get('routing'), 'adaptive', 'the link spells the scenario that runs');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a measured live point appears within 10 s of opening a link', async () => {
  // The CLI's default warm-up of 10 000 cycles: the page plays it through in a few seconds.
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=duato&traffic=uniform&rate=0.01&len=16&warmup=10000`);
  await page.waitForFunction(() => window.torusExplorer.charts()[0].points.live === 1, null, { timeout: 10000 });
  const shownAt = await page.evaluate(() => performance.now());
  assert.ok(shownAt < 10000, `live point after ${shownAt} ms`);
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  assert.ok(stats.measuring && stats.messages_measured > 0);
  assert.ok(stats.warmup_messages > 0, 'the warm-up delivered messages of its own');
  const time = (await page.evaluate(() => window.torusExplorer.charts()))[1];
  assert.ok(time.points['warm-up (not measured)'] > 0, 'the warm-up drawn apart');
  assert.ok(time.points.mean > 0, 'the measured mean drawn');
  // The chosen speed once the warm-up is over.
  await page.waitForFunction(() => document.getElementById('speed-label').textContent === '63 cycles/s');
  assert.deepEqual(errors, []);
  await page.close();
});

test('before measurement starts the running mean is the warm-up\'s, drawn apart and not measured', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=8&routing=dor&traffic=uniform&rate=0.02&len=16&warmup=5000&cycles=5000`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.evaluate(() => window.torusExplorer.step(600));
  await page.waitForFunction(() => window.torusExplorer.charts()[1].points['warm-up (not measured)'] > 0);
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  assert.equal(stats.measuring, false);
  assert.equal(stats.messages_measured, 0);
  assert.ok(stats.warmup_messages > 0 && stats.warmup_latency_mean >= 17, JSON.stringify(stats));
  const charts = await page.evaluate(() => window.torusExplorer.charts());
  assert.equal(charts[1].points.mean, 0, 'no measured mean yet');
  assert.equal(charts[0].points.live, 0, 'no live point on the latency chart yet');
  assert.match(await page.locator('#live-numbers').textContent(), /warm-up: [\d.]+ cycles, not measured/);
  await page.close();
});

test('on a saturated scenario the latency axis stays below 10× the zero-load latency', async () => {
  // Past saturation, and far enough below the channel-load bound that the load axis (rounded
  // up from 1.05 times the live load) stops short of it.
  const rate = 0.045;
  const scenario = `k=8&routing=adaptive&traffic=uniform&rate=${rate}&len=16&warmup=500&cycles=3000`;
  const zero = JSON.parse(execFileSync(TORUS, ['run', 'k=8&routing=adaptive&traffic=uniform&rate=0.0005&len=16&warmup=0&cycles=20000'], { encoding: 'utf8' }));
  const model = JSON.parse(execFileSync(TORUS, ['model', scenario], { encoding: 'utf8' }));
  const { page, errors } = await openPage(browser.context, `${server.url}#${scenario}`);
  await page.evaluate(() => window.torusExplorer.step(4000));
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().done != null && window.torusExplorer.charts()[0].points.live === 1, null, { timeout: 120000 });
  const chart = await latencyChart(page);
  const status = await page.evaluate(() => window.torusExplorer.sweepStatus());
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  assert.equal(chart.y[0], 0);
  assert.ok(chart.y[1] < 10 * zero.latency_mean, `y axis to ${chart.y[1]}, zero-load latency ${zero.latency_mean}`);
  assert.ok(chart.y[1] >= 3 * zero.latency_mean, `y axis to ${chart.y[1]} shows the knee`);
  assert.ok(stats.latency_mean > chart.y[1], 'the live point lies above the axis (a marker on the top edge)');
  // The load axis, in flits/node/cycle (λ times the 16 flits of a message): from 0 to a
  // little past the larger saturation rate, and past the live rate.
  const M = 16;
  const saturation = Math.max(status.saturation, model.saturation_rate) * M;
  assert.ok(Math.abs(status.saturationLoad - status.saturation * M) < 1e-9, 'the sweep reports its saturation in both units');
  assert.equal(chart.x[0], 0);
  assert.ok(chart.x[1] >= saturation && chart.x[1] >= rate * M, `x axis to ${chart.x[1]}, saturation ${saturation}`);
  assert.ok(chart.x[1] <= 1.5 * Math.max(saturation, rate * M), `x axis to ${chart.x[1]}: not far past`);
  assert.ok(chart.x[1] < model.bound_saturation_rate * M, `the bound ${model.bound_saturation_rate * M} lies off the range to ${chart.x[1]} (an arrow on the edge)`);
  // The sweep spends its points below saturation, densest near it, and stops just past it.
  const rates = (await page.evaluate(() => window.torusExplorer.results().sweep)).map((p) => p.scenario_rate);
  assert.ok(Math.max(...rates) <= 1.35 * status.saturation, `sweep rates ${rates} against saturation ${status.saturation}`);
  const near = rates.filter((r) => r >= 0.7 * status.saturation && r <= status.saturation).length;
  const far = rates.filter((r) => r < 0.4 * status.saturation).length;
  assert.ok(near > far, `denser near saturation: ${rates}`);
  // Log y shows every point; the table has the live value.
  await page.click('#chart-latency button:has-text("log y")');
  const log = await latencyChart(page);
  assert.equal(log.logY, true);
  assert.ok(log.y[1] >= stats.latency_mean, `log axis to ${log.y[1]} shows the live point ${stats.latency_mean}`);
  await page.click('#chart-latency button:has-text("table")');
  const liveColumn = await page.$$eval('#chart-latency .chart-table thead th', (ths) => ths.findIndex((th) => th.textContent === 'live'));
  const liveCell = await page.$$eval('#chart-latency .chart-table tbody tr', (trs, j) => trs.map((r) => r.cells[j].textContent).find((t) => t !== '–'), liveColumn);
  assert.ok(parseFloat(liveCell) > chart.y[1], `the table gives the live value: ${liveCell}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('drag to zoom, and reset', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=6&routing=duato&traffic=uniform&rate=0.02&len=8&warmup=200&cycles=2000`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => window.torusExplorer.charts()[0].points['simulated (sweep)'] >= 3, null, { timeout: 60000 });
  const before = await latencyChart(page);
  const box = await page.locator('#chart-latency .u-over').boundingBox();
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.8, { steps: 5 });
  await page.mouse.up();
  const zoomed = await latencyChart(page);
  assert.equal(zoomed.zoomed, true);
  assert.ok(zoomed.x[0] > before.x[0] && zoomed.x[1] < before.x[1], `x zoomed: ${zoomed.x} from ${before.x}`);
  await page.click('#chart-latency button:has-text("reset zoom")');
  const reset = await latencyChart(page);
  assert.equal(reset.zoomed, false);
  assert.deepEqual(reset.x, (await latencyChart(page)).x);
  assert.equal(reset.x[0], 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('charts() gives each chart\'s title, ranges and series as drawn', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=4&routing=chaos&rate=0.02&len=4&warmup=100&cycles=1000`);
  const charts = await page.evaluate(() => window.torusExplorer.charts());
  assert.deepEqual(charts.map((c) => c.title), [
    'Latency against offered load',
    'Live mean latency with its 95 % confidence band',
    'Latency histogram (whole run, measured messages)',
    'Accepted against offered throughput',
  ]);
  for (const c of charts) {
    assert.ok(c.x.length === 2 && c.y.length === 2 && c.series.length >= 1, JSON.stringify(c));
  }
  assert.deepEqual(charts[0].series, ['simulated (sweep)', 'live'], 'no model applies to chaos: no model series');
  await page.close();
});

test('pinned curves survive a reload from the link', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=6&routing=dor&traffic=tornado&rate=0.01&len=8&warmup=200&cycles=2000`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().done != null, null, { timeout: 60000 });
  await page.click('#pin-curve');
  await page.locator('#key-routing').selectOption('goal');
  await page.waitForFunction(() => location.hash.includes('routing=goal'));
  const link = await hash(page);
  assert.match(link, /&pin=routing:dor,vcs:2$/, link);
  let pins = await page.evaluate(() => window.torusExplorer.pins());
  assert.equal(pins.length, 1);
  assert.equal(pins[0].label, 'routing=dor', 'labelled with what differs, not the VCs that follow from it');
  assert.equal(pins[0].name, 'DOR', 'named in words for the legend');
  await page.reload();
  await ready(page);
  assert.equal(await hash(page), link, 'the link keeps the pin');
  pins = await page.evaluate(() => window.torusExplorer.pins());
  assert.equal(pins.length, 1);
  assert.match(pins[0].scenario, /routing=dor&.*vcs=2/);
  await page.waitForFunction(() => window.torusExplorer.pins()[0].done, null, { timeout: 120000 });
  const chart = await latencyChart(page);
  assert.ok(chart.points['DOR (simulated)'] >= 3, `the pin's sweep is drawn again: ${JSON.stringify(chart.points)}`);
  assert.equal(await page.locator('#pins li').count(), 1);
  assert.match(await page.locator('#pins li').textContent(), /^DOR/);
  assert.equal(await page.locator('#pins li').getAttribute('title'), 'routing=dor', 'the key in a tooltip');
  // Unpinning takes it out of the link.
  await page.click('#pins li button');
  assert.doesNotMatch(await hash(page), /pin=/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a bad pin gives the usual error and the rest of the link runs', async () => {
  // A link written before pins existed, with every key it had then.
  const old = 'k=6&n=2&routing=dor&switching=wormhole&scout=0&traffic=uniform&rate=0.01&len=8&vcs=2&buf=4&beta=0&seed=3&warmup=200&cycles=2000&unsafe=0&mq=0';
  const scenario = JSON.parse(execFileSync(TORUS, ['model', old], { encoding: 'utf8' })).scenario;
  const { page, errors } = await openPage(browser.context, `${server.url}#${old}&pin=rate:banana&pin=routing:goal,vcs:3`);
  const error = await page.evaluate(() => document.getElementById('error').textContent);
  assert.match(error, /pin 1 \(pin=rate:banana\): rate/);
  assert.equal(await page.evaluate(() => window.torusExplorer.scenario()), scenario, 'the old link parses as the CLI parses it');
  const pins = await page.evaluate(() => window.torusExplorer.pins());
  assert.deepEqual(pins.map((p) => p.label), ['routing=goal']);
  assert.equal(await hash(page), `${scenario}&pin=routing:goal,vcs:3`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a preset may pin: tornado, DOR against GOAL', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  const index = await page.evaluate(() => window.torusExplorer.presets().findIndex((p) => p.title === 'Tornado: DOR against GOAL'));
  assert.ok(index >= 0);
  await page.selectOption('#preset', String(index));
  const pins = await page.evaluate(() => window.torusExplorer.pins());
  assert.deepEqual(pins.map((p) => p.label), ['routing=goal']);
  // ... and runs GOAL beside DOR (compare mode).
  assert.match(await hash(page), /routing=dor&.*&pin=routing:goal,vcs:3&compare=routing:goal,vcs:3$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('presentation mode hides the form; P, the button and the link reach it', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=4&routing=dor&rate=0.02&len=4&warmup=100&cycles=1000`);
  const visible = () => page.evaluate(() => Object.fromEntries(['scenario-form', 'torus', 'chart-latency', 'live-numbers', 'model', 'chart-time', 'preset'].map((id) => {
    const e = document.getElementById(id);
    return [id, e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'];
  })));
  assert.equal((await visible())['scenario-form'], true);
  await page.keyboard.press('p');
  assert.deepEqual(await visible(), { 'scenario-form': false, torus: true, 'chart-latency': true, 'live-numbers': true, model: false, 'chart-time': false, preset: false });
  assert.match(await hash(page), /&view=present$/);
  const fontSize = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('#live-numbers dd')).fontSize));
  assert.ok(fontSize >= 20, `large type: ${fontSize}px`);
  await page.reload();
  await ready(page);
  assert.equal((await visible())['scenario-form'], false, 'reachable by link');
  await page.click('#present-exit');
  assert.equal((await visible())['scenario-form'], true);
  assert.doesNotMatch(await hash(page), /view=present/);
  await page.click('#present');
  assert.equal((await visible())['scenario-form'], false, 'and by the button');
  assert.deepEqual(errors, []);
  await page.close();
});
