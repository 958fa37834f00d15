// The page starts without console errors, served and as the single offline file, and draws.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, canvasPixels, DIST_URL } from './harness.mjs';

const SMALL = 'k=4&rate=0.02&len=8&warmup=100&cycles=1000';

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

async function checkPage(url) {
  const started = Date.now();
  const { page, errors } = await openPage(browser.context, url);
  const loadMs = Date.now() - started;
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true, 'no error banner');
  assert.equal(await page.evaluate(() => typeof window.torusExplorer.run), 'function');
  // A blank canvas and a drawn torus differ; the empty canvas is the reference.
  const blank = await page.evaluate(() => {
    const c = document.createElement('canvas');
    const t = document.getElementById('torus');
    c.width = t.width;
    c.height = t.height;
    return c.toDataURL();
  });
  assert.notEqual(await canvasPixels(page), blank, 'the torus is drawn');
  // Four charts, each with a canvas.
  assert.equal(await page.locator('.chart canvas').count() >= 4, true);
  await page.evaluate(() => window.torusExplorer.step(50));
  assert.ok(await page.evaluate(() => window.torusExplorer.stats().cycle) >= 50);
  // The worker runs whole scenarios and the models (from file:// too).
  const report = await page.evaluate(() => window.torusExplorer.run());
  assert.equal(report.scenario, await page.evaluate(() => window.torusExplorer.scenario()));
  assert.ok(report.messages_measured > 0);
  await page.waitForFunction(() => /channel-load bound/.test(document.getElementById('model').textContent));
  assert.deepEqual(errors, [], 'no console errors');
  await page.close();
  return loadMs;
}

test('served page loads with no console errors', async () => {
  const ms = await checkPage(`${server.url}#${SMALL}`);
  console.log(`served page ready in ${ms} ms`);
});

test('single-file build loads from file:// with no console errors', async () => {
  const ms = await checkPage(`${DIST_URL}#${SMALL}`);
  console.log(`dist page ready in ${ms} ms`);
});

// Someone opening a shared link on a phone sees the torus first, across the screen, and
// nothing wider than the screen; the charts follow the window when it is resized.
async function layout(page) {
  return page.evaluate(() => {
    const torus = document.getElementById('torus').getBoundingClientRect();
    const form = document.querySelector('.controls').getBoundingClientRect();
    return {
      viewport: window.innerWidth,
      scrollWidth: document.documentElement.scrollWidth,
      torusWidth: torus.width,
      torusAboveForm: torus.bottom <= form.top,
      charts: [...document.querySelectorAll('.plot canvas')].map((c) => c.getBoundingClientRect().right),
    };
  });
}

test('phone-sized window: torus first and full width, nothing overflows, charts follow resizes', async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewportSize({ width: 360, height: 780 });
  // A scenario with a model, so that the model panel's table is on the page too.
  await page.goto(`${server.url}#k=8&routing=duato&rate=0.03&len=8&vcs=4&warmup=100&cycles=1000`);
  await page.waitForFunction(() => window.torusExplorer !== undefined && document.querySelector('#model table') !== null);
  let l = await layout(page);
  assert.equal(l.scrollWidth, 360, 'no horizontal scrolling on a phone');
  assert.ok(l.torusWidth >= 300, `torus drawn across the screen (${l.torusWidth}px)`);
  assert.ok(l.torusAboveForm, 'torus above the scenario form');
  assert.ok(l.charts.length >= 4 && l.charts.every((right) => right <= 360), `charts inside the screen: ${l.charts}`);
  const modelTable = await page.evaluate(() => document.querySelector('#model table').getBoundingClientRect().right);
  assert.ok(modelTable <= 360, `model table inside the screen (right edge ${modelTable})`);

  await page.setViewportSize({ width: 1280, height: 720 });
  await page.waitForFunction(() => [...document.querySelectorAll('.plot canvas')].every((c) => c.getBoundingClientRect().width > 360));
  l = await layout(page);
  assert.ok(!l.torusAboveForm, 'three columns again on a wide window');
  await page.setViewportSize({ width: 400, height: 780 });
  await page.waitForFunction(() => document.documentElement.scrollWidth === 400);
  l = await layout(page);
  assert.ok(l.charts.every((right) => right <= 400), `charts shrank with the window: ${l.charts}`);
  assert.deepEqual(errors, []);
  await page.close();
});
