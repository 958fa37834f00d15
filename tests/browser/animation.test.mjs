// The canvas changes while playing and stays still while paused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, canvasPixels } from './harness.mjs';

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

test('canvas changes while playing and not while paused', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&rate=0.03&len=16&seed=3`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForTimeout(100);
  const paused1 = await canvasPixels(page);
  const cycle1 = await page.evaluate(() => window.torusExplorer.stats().cycle);
  await page.waitForTimeout(600);
  assert.equal(await canvasPixels(page), paused1, 'paused canvas does not change');
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().cycle), cycle1, 'paused simulation does not advance');

  await page.fill('#speed', '100');
  await page.dispatchEvent('#speed', 'input');
  await page.evaluate(() => window.torusExplorer.play());
  await page.waitForFunction((c) => window.torusExplorer.stats().cycle > c + 200, cycle1);
  await page.waitForTimeout(100);
  const playing1 = await canvasPixels(page);
  await page.waitForTimeout(400);
  const playing2 = await canvasPixels(page);
  assert.notEqual(playing1, paused1, 'canvas changed after playing');
  assert.notEqual(playing2, playing1, 'canvas keeps changing while playing');

  // Space pauses; the right arrow advances exactly one cycle.
  await page.locator('#torus').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Space');
  const c = await page.evaluate(() => window.torusExplorer.stats().cycle);
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().cycle), c + 1);
  assert.deepEqual(errors, []);
});
