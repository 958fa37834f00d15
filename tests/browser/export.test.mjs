// Export carries the scenario string with the numbers; PNGs are PNGs; "copy link" copies the
// link that restores the scenario.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

async function downloaded(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

// The bands of rows that hold ink (any pixel not white) in a PNG, decoded by the browser:
// [first row, last row] of each, gaps of fewer than 4 white rows bridged.
const inkBands = (page, bytes) => page.evaluate(async (b64) => {
  const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))], { type: 'image/png' }));
  const c = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  const bands = [];
  for (let y = 0; y < c.height; y++) {
    let ink = false;
    for (let x = 0; x < c.width && !ink; x++) {
      const i = 4 * (y * c.width + x);
      ink = d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235;
    }
    if (!ink) continue;
    const last = bands[bands.length - 1];
    if (last && y - last[1] < 5) last[1] = y;
    else bands.push([y, y]);
  }
  return bands;
}, bytes.toString('base64'));

test('JSON, CSV and PNG exports, named after the scenario', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=4&rate=0.02&len=8&warmup=100&cycles=2000&seed=8`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.evaluate(() => window.torusExplorer.step(400));
  await page.evaluate(() => window.torusExplorer.run());
  const scenario = await hash(page);
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  const stem = 'torus-k4-dor-uniform-rate0.02-len8-vcs2-seed8';

  const jsonFile = await downloaded(page, '#export-json');
  assert.equal(jsonFile.name, `${stem}-results.json`);
  const json = JSON.parse(jsonFile.bytes.toString('utf8'));
  assert.equal(json.scenario, scenario);
  assert.equal(json.live.cycle, stats.cycle);
  assert.equal(json.run.scenario, scenario);
  assert.equal(typeof json.run.latency_mean, 'number');

  const png = [0x89, 0x50, 0x4e, 0x47];
  const torus = await downloaded(page, '#export-png');
  assert.equal(torus.name, `${stem}-torus.png`);
  assert.deepEqual([...torus.bytes.subarray(0, 4)], png, 'the torus is a PNG');
  // Twice the torus on the screen, under a one-line title, over the legend and the scenario.
  const shownTorus = await page.locator('#torus').boundingBox();
  assert.ok(torus.bytes.readUInt32BE(16) >= 2 * shownTorus.width, `torus ${torus.bytes.readUInt32BE(16)} px wide, ${shownTorus.width} on the screen`);
  const torusBands = await inkBands(page, torus.bytes);
  assert.ok(torusBands.length >= 4, `title, torus, legend and scenario: ink in rows ${JSON.stringify(torusBands)}`);
  assert.ok(torusBands[0][1] - torusBands[0][0] < 40, `a one-line title first: ${JSON.stringify(torusBands[0])}`);
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().done != null, null, { timeout: 120000 });
  const chart = await downloaded(page, '#chart-latency button:has-text("PNG")');
  assert.equal(chart.name, `${stem}-latency.png`);
  assert.deepEqual([...chart.bytes.subarray(0, 4)], png, 'the chart is a PNG');
  // Twice the chart's size on the screen, with room for its title, legend and scenario.
  const width = chart.bytes.readUInt32BE(16);
  const height = chart.bytes.readUInt32BE(20);
  const shown = await page.evaluate(() => {
    const c = document.querySelector('#chart-latency .u-wrap canvas');
    return { width: c.width, height: c.height };
  });
  assert.ok(width >= 2 * shown.width && height >= 2 * shown.height + 100, `${width}×${height} for a chart drawn ${shown.width}×${shown.height}`);
  const chartBands = await inkBands(page, chart.bytes);
  assert.ok(chartBands.length >= 4, `title, chart, legend and scenario: ink in rows ${JSON.stringify(chartBands)}`);
  assert.ok(chartBands[0][1] - chartBands[0][0] < 40, `a one-line title first: ${JSON.stringify(chartBands[0])}`);
  assert.deepEqual(errors, []);
});

test('the sweep exports as a wide CSV with the model\'s latency beside each point', async () => {
  const scenario = 'k=8&routing=adaptive&traffic=uniform&rate=0.01&len=12&warmup=300&cycles=2000&seed=2';
  const { page, errors } = await openPage(browser.context, `${server.url}#${scenario}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForFunction(() => window.torusExplorer.sweepStatus().done != null, null, { timeout: 120000 });
  const file = await downloaded(page, '#export-csv');
  assert.equal(file.name, 'torus-k8-adaptive-uniform-rate0.01-len12-vcs4-seed2-sweep.csv');
  const [head, ...rows] = file.bytes.toString('utf8').trim().split('\n');
  assert.equal(head, 'scenario,label,rate_messages_per_node_cycle,offered_load_flits_per_node_cycle,latency_mean_cycles,latency_ci95_cycles,accepted_flits_per_node_cycle,accepted_min_source_flits_per_node_cycle,saturated,model,model_latency_cycles');
  const sweep = await page.evaluate(() => window.torusExplorer.results().sweep);
  assert.equal(rows.length, sweep.length, 'a row per sweep point');
  const canonical = await page.evaluate(() => window.torusExplorer.scenario());
  const parsed = rows.map((r) => r.match(/("[^"]*"|[^,]*)(,|$)/g).map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '')));
  let modelled = 0;
  for (const cells of parsed) {
    assert.equal(cells[0], canonical);
    const rate = Number(cells[2]);
    assert.ok(Math.abs(Number(cells[3]) - rate * 12) < 1e-9, 'the load in flits/node/cycle beside the rate');
    const point = sweep.find((p) => p.scenario_rate === rate);
    assert.ok(point && Number(cells[4]) === point.latency_mean, `latency of the point at ${rate}`);
    assert.equal(cells[9], 'quaglia-adaptive');
    if (cells[10] !== '') {
      modelled++;
      const cli = JSON.parse(execFileSync(TORUS, ['model', canonical.replace(/rate=[^&]+/, `rate=${rate}`)], { encoding: 'utf8' }));
      assert.ok(Math.abs(Number(cells[10]) - cli.latency) < 1e-9, `model latency at ${rate}: ${cells[10]} against the CLI's ${cli.latency}`);
    }
  }
  assert.ok(modelled >= 2, 'the model\'s latency beside the points below its saturation');
  assert.deepEqual(errors, []);
});

test('copy link copies a link that restores the scenario', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=5&traffic=tornado&rate=0.01&seed=77`);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  await page.click('#copy-link');
  await page.waitForFunction(() => document.getElementById('copy-status').textContent === 'link copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.evaluate(() => location.href));
  const { page: other } = await openPage(browser.context, copied);
  assert.equal(await hash(other), await hash(page));
});
