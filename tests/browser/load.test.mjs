// The page starts without console errors, served and as the single offline file, and draws.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, canvasPixels, DIST_URL } from './harness.mjs';

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
  assert.deepEqual(errors, [], 'no console errors');
  await page.close();
  return loadMs;
}

test('served page loads with no console errors', async () => {
  const ms = await checkPage(server.url);
  console.log(`served page ready in ${ms} ms`);
});

test('single-file build loads from file:// with no console errors', async () => {
  const ms = await checkPage(DIST_URL);
  console.log(`dist page ready in ${ms} ms`);
});
