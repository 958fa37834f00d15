// Export carries the scenario string with the numbers; PNGs are PNGs; "copy link" copies the
// link that restores the scenario.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer, launch, openPage, hash } from './harness.mjs';

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

test('JSON, CSV and PNG exports', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=4&rate=0.02&len=8&warmup=100&cycles=2000&seed=8`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.evaluate(() => window.torusExplorer.step(400));
  await page.evaluate(() => window.torusExplorer.run());
  const scenario = await hash(page);
  const stats = await page.evaluate(() => window.torusExplorer.stats());

  const json = JSON.parse((await downloaded(page, '#export-json')).bytes.toString('utf8'));
  assert.equal(json.scenario, scenario);
  assert.equal(json.live.cycle, stats.cycle);
  assert.equal(json.run.scenario, scenario);
  assert.equal(typeof json.run.latency_mean, 'number');

  const csv = (await downloaded(page, '#export-csv')).bytes.toString('utf8').trim().split('\n');
  assert.equal(csv[0], 'section,field,value');
  assert.equal(csv[1], `scenario,scenario,"${scenario}"`);
  assert.ok(csv.includes(`live,cycle,"${stats.cycle}"`), 'live cycle row');
  assert.ok(csv.some((l) => l.startsWith('run,latency_mean,')), 'run latency row');

  const png = [0x89, 0x50, 0x4e, 0x47];
  for (const selector of ['#export-png', '#chart-latency button:has-text("PNG")']) {
    const { name, bytes } = await downloaded(page, selector);
    assert.ok(name.endsWith('.png'), name);
    assert.deepEqual([...bytes.subarray(0, 4)], png, `${name} is a PNG`);
  }
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
