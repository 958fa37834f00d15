// One unit system, words for students and honest numbers: loads and throughputs in
// flits/node/cycle everywhere with their share of capacity (checked at k = 16, where capacity
// is half a flit per node and cycle), the load entered in either unit, every model and live
// number with its unit; controls named by what they are, the key in a tooltip, the ones that
// do not apply hidden, a glossary, nothing pointing at a file; no "± 0.0", a latency that stops
// at a deadlock and says why, and a model panel that agrees with the legend.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, hash, ROOT } from './harness.mjs';

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

const liveValue = (page, name) => page.evaluate((n) => {
  const dts = [...document.querySelectorAll('#live-numbers dt')];
  const dt = dts.find((d) => d.textContent === n);
  return dt ? dt.nextElementSibling.textContent.replaceAll('\u200b', '') : null;
}, name);

test('k = 16: every throughput in flits/node/cycle, its share of capacity beside it', async () => {
  const scenario = 'k=16&routing=dor&traffic=uniform&rate=0.005&len=16&warmup=200&cycles=3000&seed=3';
  const { page, errors } = await openPage(browser.context, `${server.url}#${scenario}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.evaluate(() => window.torusExplorer.step(1200));
  await page.evaluate(() => window.torusExplorer.run());
  await page.waitForTimeout(400);
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  const capacity = 8 / 16;
  // The live numbers.
  for (const [name, value] of [['offered', stats.offered_flits_per_node_cycle], ['accepted', stats.accepted_flits_per_node_cycle]]) {
    const text = await liveValue(page, name);
    const m = /^([\d.]+) flits\/node\/cycle \((\d+) % of capacity\)$/.exec(text);
    assert.ok(m, `${name}: ${text}`);
    assert.ok(Math.abs(Number(m[1]) - value) < 0.0015, `${name} ${m[1]} is the simulator's ${value}`);
    assert.equal(Number(m[2]), Math.round((100 * Number(m[1])) / capacity), `${name}: ${m[2]} % of a capacity of ${capacity}`);
  }
  // The model panel: the whole run's accepted throughput, the same unit.
  const run = await page.evaluate(() => window.torusExplorer.results().run);
  const row = await page.evaluate(() => [...document.querySelectorAll('#model tr')].map((tr) => [...tr.cells].map((c) => c.textContent)).find((r) => r[0] === 'accepted throughput'));
  const printed = run.accepted_flits_per_node_cycle.toFixed(3);
  assert.equal(row[2], `${printed} (${Math.round((100 * Number(printed)) / capacity)} %)`);
  assert.equal(row[3], 'flits/node/cycle (% of capacity)');
  // Every share on the page is the share of the number printed beside it, so that equal
  // numbers never carry different shares.
  const text = await page.evaluate(() => ['live-numbers', 'model', 'rate-note'].map((id) => document.getElementById(id).textContent.replaceAll('\u200b', '')).join('\n'));
  const shares = [...text.matchAll(/(\d+\.\d{3})(?: flits\/node\/cycle)? \((\d+) %/g)];
  assert.ok(shares.length >= 4, text);
  for (const [, x, share] of shares) assert.equal(Number(share), Math.round((100 * Number(x)) / capacity), `${x} printed with ${share} %`);
  // The charts: the live point's load is λ·M on the latency chart, and offered and accepted
  // are flits/node/cycle on the throughput chart, the fraction of capacity on its other axis.
  const charts = await page.evaluate(() => window.torusExplorer.charts());
  assert.match(charts[0].xLabel ?? '', /flits\/node\/cycle/);
  assert.match(charts[3].yLabel ?? '', /flits\/node\/cycle/);
  await page.click('#chart-throughput button:has-text("table")');
  const live = await page.$$eval('#chart-throughput .chart-table tbody tr', (trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)).find((r) => r[3] !== '–'));
  assert.ok(Math.abs(parseFloat(live[3]) - stats.accepted_flits_per_node_cycle) < 2e-3, `live accepted ${live[3]} against ${stats.accepted_flits_per_node_cycle}`);
  assert.deepEqual(charts[3].axes, ['offered (flits/node/cycle)', 'accepted (flits/node/cycle)', 'fraction of capacity']);
  assert.deepEqual(errors, []);
});

test('the load is entered in flits/node/cycle or as the rate λ, converted in one place', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=16&routing=dor&rate=0.005&len=16`);
  await page.locator('#rate-unit').selectOption('flits');
  assert.equal(await page.locator('#key-rate').inputValue(), '0.08');
  await page.locator('#key-rate').fill('0.16');
  await page.locator('#key-rate').dispatchEvent('change');
  assert.equal(new URLSearchParams(await hash(page)).get('rate'), '0.01', 'the link keeps the rate key in messages/node/cycle');
  assert.match(await page.locator('#rate-note').textContent(), /^32 % of capacity; rate λ = 0\.01 messages\/node\/cycle$/);
  await page.locator('#rate-unit').selectOption('messages');
  assert.equal(await page.locator('#key-rate').inputValue(), '0.01');
  assert.match(await page.locator('#rate-note').textContent(), /0\.160 flits\/node\/cycle \(32 % of capacity\)/);
  await page.locator('#key-rate').fill('0.0025');
  await page.locator('#key-rate').dispatchEvent('change');
  assert.equal(new URLSearchParams(await hash(page)).get('rate'), '0.0025');
  // With broadcasts a message offers more flits: M (1 + β (N − 2)) of them.
  await page.evaluate(() => window.torusExplorer.setScenario('k=8&routing=duato&vcs=4&beta=0.04&rate=0.003&len=32'));
  await page.locator('#rate-unit').selectOption('flits');
  assert.equal(Number(await page.locator('#key-rate').inputValue()), Number((0.003 * 32 * (1 + 0.04 * 62)).toPrecision(6)));
  assert.deepEqual(errors, []);
});

test('a light load reads as a share of capacity below 1 %, not "0 %"', async () => {
  // k = 8: capacity 1 flit/node/cycle; λ = 0.0003 messages of 16 flits offers 0.0048.
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&rate=0.0003&len=16`);
  await page.waitForFunction(() => !document.getElementById('model').textContent.includes('Evaluating'));
  const row = await page.evaluate(() => [...document.querySelectorAll('#model tr')].map((tr) => [...tr.cells].map((c) => c.textContent)).find((r) => r[0] === 'offered load'));
  assert.equal(row[1], '0.005 (0.5 %)');
  await page.locator('#rate-unit').selectOption('flits');
  assert.match(await page.locator('#rate-note').textContent(), /^0\.5 % of capacity;/);
  assert.deepEqual(errors, []);
});

test('controls are named by what they are, the key in a tooltip; those that do not apply are hidden', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&rate=0.005`);
  const option = (key, value) => page.evaluate(([k, v]) => {
    const o = document.querySelector(`#key-${k} option[value="${v}"]`);
    return { text: o.textContent, title: o.title };
  }, [key, value]);
  assert.deepEqual(await option('routing', 'dor'), { text: 'dimension-order routing (DOR)', title: 'routing=dor' });
  assert.deepEqual(await option('routing', 'minad'), { text: 'minimal adaptive (MIN AD)', title: 'routing=minad' });
  assert.deepEqual(await option('traffic', 'bitcomp'), { text: 'bit complement', title: 'traffic=bitcomp' });
  assert.match(await page.locator('label[for="key-vcs"]').getAttribute('title'), /scenario key vcs/);
  // No code names left as the only name of a choice.
  const codes = await page.$$eval('#scenario-form option', (os) => os.filter((o) => o.textContent === o.value && /^[a-z]+$/.test(o.value) && o.value.length > 3).map((o) => o.value));
  assert.deepEqual(codes.filter((c) => !['tornado', 'transpose', 'diagonal', 'wormhole'].includes(c)), []);
  const shown = () => page.evaluate(() => Object.fromEntries(['scout', 'mq', 'vcs', 'unsafe', 'beta'].map((k) => [k, !document.querySelector(`.field[data-key="${k}"]`).hidden])));
  assert.deepEqual(await shown(), { scout: false, mq: false, vcs: true, unsafe: true, beta: true });
  await page.locator('#key-switching').selectOption('scouting');
  assert.equal((await shown()).scout, true);
  await page.locator('#key-switching').selectOption('wormhole');
  assert.equal(new URLSearchParams(await hash(page)).get('scout'), '0', 'back to wormhole drops the probe lead');
  await page.locator('#key-routing').selectOption('chaos');
  assert.deepEqual(await shown(), { scout: false, mq: true, vcs: false, unsafe: false, beta: true });
  // The glossary.
  await page.click('#help-toggle');
  const words = await page.$$eval('#glossary dt', (dts) => dts.map((d) => d.textContent));
  for (const w of ['flit', 'virtual channel (VC)', 'saturation', 'channel-load bound', 'capacity', 'deadlock']) assert.ok(words.includes(w), `the glossary explains ${w}`);
  assert.deepEqual(errors, []);
});

test('nothing on the page points at a file the page cannot open', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  const presets = await page.evaluate(() => window.torusExplorer.presets());
  const file = /\b[\w/-]+\.(md|rs|mjs|json|csv)\b|\bdocs\/|\bsrc\/|§/;
  for (let i = 0; i < presets.length; i++) {
    await page.selectOption('#preset', String(i));
    await page.waitForFunction(() => !document.getElementById('model').textContent.includes('Evaluating'), null, { timeout: 30000 });
    const text = await page.evaluate(() => ['preset-info', 'model', 'legend', 'vc-classes', 'live-numbers'].map((id) => document.getElementById(id).textContent).join('\n'));
    const hit = file.exec(text);
    assert.equal(hit, null, `${presets[i].title}: "${hit && text.slice(Math.max(0, hit.index - 60), hit.index + 30)}"`);
  }
  await page.click('#help-toggle');
  assert.equal(file.exec(await page.locator('#help').textContent()), null);
  assert.deepEqual(errors, []);
});

test('no "± 0.0": an interval shows as "–" until it can be computed', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&rate=0.004&len=16&warmup=100&cycles=50000&seed=2`, { reducedMotion: 'reduce' });
  let dash = false;
  for (let i = 0; i < 30; i++) {
    await page.evaluate(() => window.torusExplorer.step(40));
    await page.waitForTimeout(280);
    const text = await liveValue(page, 'mean latency');
    assert.doesNotMatch(text, /± 0\.0\b/);
    if (/± – cycles/.test(text)) dash = true;
    const stats = await page.evaluate(() => window.torusExplorer.stats());
    if (stats.latency_ci95 > 0) {
      assert.match(await liveValue(page, 'mean latency'), /± [\d.]+ cycles$/);
      break;
    }
  }
  assert.ok(dash, 'early in the window the interval is "–"');
  assert.deepEqual(errors, []);
});

test('after a deadlock the live latency stops and says why', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&vcs=1&unsafe=1&traffic=uniform&rate=0.04&len=16&warmup=200&seed=1`, { reducedMotion: 'reduce' });
  for (let i = 0; i < 60 && !(await page.evaluate(() => window.torusExplorer.stats().deadlock)); i++) {
    await page.evaluate(() => window.torusExplorer.step(500));
  }
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().deadlock), true);
  // The live numbers are redrawn on the page's own clock: on a loaded machine that takes longer
  // than a fixed pause.
  await page.waitForSelector('#live-numbers dd.alarm', { timeout: 15000 });
  assert.match(await liveValue(page, 'mean latency'), /^stopped: deadlocked at cycle [\d,]+, no message can arrive$/);
  // The warning reads across the panel, not down a column one word wide.
  // Both read in one go: the live numbers are rebuilt every quarter second, and a locator
  // resolved between two reads may find the element already replaced.
  const [alarm, panel] = await page.evaluate(() => ['#live-numbers dd.alarm', '#live-numbers'].map((s) => document.querySelector(s).getBoundingClientRect().width));
  assert.ok(alarm > 0.6 * panel, `the warning is ${alarm} px wide in a panel of ${panel}`);
  const charts = await page.evaluate(() => window.torusExplorer.charts());
  assert.equal(charts[0].points.live, 0, 'no live point on the latency chart');
  const points = charts[1].points.mean;
  await page.evaluate(() => window.torusExplorer.step(3000));
  await page.waitForTimeout(400);
  assert.equal((await page.evaluate(() => window.torusExplorer.charts()))[1].points.mean, points, 'the live latency line stops');
  // The whole run deadlocks too: its throughputs, averaged over a window it never finished,
  // are not shown as if they were measured.
  await page.waitForFunction(() => window.torusExplorer.results().run != null, null, { timeout: 60000 });
  await page.waitForTimeout(200);
  const simulated = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#model tbody tr')].map((tr) => [tr.cells[0].textContent, tr.cells[2].textContent])));
  assert.equal(simulated['offered load'], 'deadlocked');
  assert.equal(simulated['accepted throughput'], 'deadlocked');
  assert.deepEqual(errors, []);
});

test('the model panel and the legend agree: a model without virtual channels says so beside the VCs simulated', async () => {
  const scenario = 'k=8&routing=adaptive&traffic=uniform&rate=0.01&len=12';
  const cli = JSON.parse(execFileSync(TORUS, ['model', scenario], { encoding: 'utf8' }));
  assert.equal(cli.model, 'quaglia-adaptive');
  const { page, errors } = await openPage(browser.context, `${server.url}#${scenario}`);
  await page.waitForFunction(() => !document.getElementById('model').textContent.includes('Evaluating'));
  const panel = await page.locator('#model').textContent();
  assert.match(panel, /no virtual channels/);
  assert.match(panel, /The simulation uses 4 per channel \(VC 0–3, listed under the torus\)/);
  assert.equal(await page.locator('#vc-classes li').count(), 3, 'two escape VCs and the adaptive ones');
  assert.match(await page.locator('#vc-note').textContent(), /no virtual channels .* the simulation uses the 4 listed here/);
  // Every number in the model panel has its unit.
  const units = await page.$$eval('#model tbody tr', (trs) => trs.map((r) => [r.cells[0].textContent, r.cells[3].textContent]));
  for (const [name, unit] of units) assert.ok(unit.length > 0, `${name} has a unit`);
  assert.deepEqual(errors, []);
});

test('accepted against offered spans 0 to a little past saturation, shows the flattening, and past saturation the worst source', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&traffic=tornado&rate=0.0065&len=16&warmup=500&cycles=3000&seed=2`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().done != null, null, { timeout: 180000 });
  const status = await page.evaluate(() => window.torusExplorer.sweepStatus());
  let chart = (await page.evaluate(() => window.torusExplorer.charts()))[3];
  assert.equal(chart.x[0], 0);
  assert.ok(chart.x[1] >= 1.1 * status.saturationLoad && chart.x[1] <= 2 * status.saturationLoad, `x to ${chart.x[1]}, saturation ${status.saturationLoad}`);
  assert.deepEqual(chart.series, ['accepted = offered', 'mean (sweep)', 'live mean'], 'below saturation: the means');
  // Past saturation the accepted throughput flattens: a point offered more than it accepted.
  const sweep = await page.evaluate(() => window.torusExplorer.results().sweep);
  const past = sweep.filter((p) => p.offered_flits_per_node_cycle > status.saturationLoad);
  assert.ok(past.length >= 2, 'points past saturation');
  assert.ok(past.some((p) => p.accepted_flits_per_node_cycle < 0.95 * p.offered_flits_per_node_cycle), 'the flattening');
  assert.ok(Math.max(...sweep.map((p) => p.offered_flits_per_node_cycle)) <= chart.x[1], 'every point on the chart');

  // A preset past saturation: the worst-served source beside the mean.
  const presets = await page.evaluate(() => window.torusExplorer.presets());
  await page.selectOption('#preset', String(presets.findIndex((p) => /CHAOS on bit-complement past saturation/.test(p.title))));
  await page.evaluate(() => { window.torusExplorer.pause(); window.torusExplorer.step(4000); });
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().done != null, null, { timeout: 240000 });
  await page.waitForTimeout(400);
  chart = (await page.evaluate(() => window.torusExplorer.charts()))[3];
  assert.deepEqual(chart.series, ['accepted = offered', 'mean (sweep)', 'worst source (sweep)', 'live mean', 'live worst source']);
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  assert.ok(stats.accepted_min_source < 0.5 * stats.accepted_flits_per_node_cycle, `a starved source: ${stats.accepted_min_source} against ${stats.accepted_flits_per_node_cycle}`);
  assert.ok(chart.points['worst source (sweep)'] > 0 && chart.points['live worst source'] === 1);
  assert.deepEqual(errors, []);
});
