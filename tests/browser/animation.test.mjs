// The canvas changes while playing and stays still while paused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, canvasPixels, wormPoint } from './harness.mjs';

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

  // Space pauses; the right arrow advances exactly one cycle. Fast mode runs in a worker,
  // which hands the simulation back when paused: pause() resolves once it has.
  await page.locator('#torus').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Space');
  assert.equal(await page.locator('#play').textContent(), 'Play');
  await page.evaluate(() => window.torusExplorer.pause());
  const c = await page.evaluate(() => window.torusExplorer.stats().cycle);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().cycle), c, 'paused after fast mode');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().cycle), c + 1);
  assert.deepEqual(errors, []);
});

test('with reduced motion the page waits for play', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&rate=0.02`, { reducedMotion: 'reduce' });
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().cycle), 0);
  assert.equal(await page.locator('#play').textContent(), 'Play');
  await page.click('#play');
  await page.waitForFunction(() => window.torusExplorer.stats().cycle > 0);
  assert.deepEqual(errors, []);
});

test('fast mode simulates many cycles between frames', async () => {
  // Main-thread task lengths are wall-clock figures: `make bench-page` reports them; a test
  // only checks that fast mode runs far ahead of the animated speed, without errors.
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&rate=0.02&warmup=100&cycles=500`);
  await page.fill('#speed', '100');
  await page.dispatchEvent('#speed', 'input');
  await page.evaluate(() => window.torusExplorer.play());
  const c0 = await page.evaluate(() => window.torusExplorer.stats().cycle);
  await page.waitForTimeout(2500);
  const cycle = await page.evaluate(() => window.torusExplorer.stats().cycle);
  assert.ok(cycle - c0 > 2000, `fast mode simulates (${cycle - c0} cycles in 2.5 s)`);
  assert.deepEqual(errors, []);
});

test('clicking a node shows its router; clicking a worm follows its message', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=minad&rate=0.02&len=16&seed=5`);
  // The page plays from load until paused, for however long that takes: start again from
  // cycle 0 (setScenario builds a new simulation), so that what lies under the click is the
  // same on every run.
  await page.evaluate(() => {
    const e = window.torusExplorer;
    e.pause();
    e.setScenario(e.scenario());
    e.step(600);
  });
  // Two animation frames: the stepped state has been drawn (a fixed delay is not enough on a
  // loaded machine).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // Node (0, 7) is the top-left square.
  const corner = await page.evaluate(() => window.torusExplorer.nodeCentre(56));
  await page.mouse.click(corner.x, corner.y);
  assert.match(await page.locator('#router-title').textContent(), /node 56 \(0, 7\)/);
  assert.equal(await page.locator('#router-table tbody tr').count(), 4, 'a row per input port');
  assert.equal(await page.locator('#router-table tbody td.vc').count(), 4 * 3, 'four input ports × three VCs');
  await page.click('#router-close');
  assert.equal(await page.locator('#router').isHidden(), true);

  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const at = await wormPoint(page);
  assert.ok(at, 'a worm in the first message colour is drawn');
  await page.locator('#torus').click({ position: at });
  // The description is written by the next frame drawn.
  await page.waitForFunction(() => document.getElementById('message-text').textContent !== '', null, { timeout: 5000 }).catch(() => {});
  assert.match(await page.locator('#message-text').textContent(), /^Message #\d+ .*(header at node \d+|left the network)/);
  assert.deepEqual(errors, []);
});

test('fast mode runs in a worker and hands back the very simulation it was given', async () => {
  // Deterministic: the simulation handed to fast mode's worker and back twice, with steps on
  // the main thread between, ends exactly where one straight run of as many cycles does.
  const scenario = 'k=8&routing=duato&vcs=3&traffic=uniform&rate=0.2&len=8&seed=11&warmup=300&cycles=2000';
  const { page, errors } = await openPage(browser.context, `${server.url}#${scenario}`, { reducedMotion: 'reduce' });
  await page.fill('#speed', '100');
  await page.dispatchEvent('#speed', 'input');
  for (const until of [1500, 4000]) {
    await page.evaluate(() => window.torusExplorer.play());
    await page.waitForFunction((c) => window.torusExplorer.stats().cycle > c, until);
    await page.evaluate(() => window.torusExplorer.pause());
    await page.evaluate(() => window.torusExplorer.step(37));
  }
  const handedOver = await page.evaluate(() => ({ stats: window.torusExplorer.stats(), channels: window.torusExplorer.channelFlits() }));
  assert.ok(handedOver.stats.cycle > 4000 + 37, `ran in fast mode (${handedOver.stats.cycle} cycles)`);
  const straight = await page.evaluate((cycles) => {
    const e = window.torusExplorer;
    e.setScenario(e.scenario());
    e.step(cycles);
    return { stats: e.stats(), channels: e.channelFlits() };
  }, handedOver.stats.cycle);
  assert.deepEqual(handedOver, straight);
  assert.deepEqual(errors, []);
});

test('leaving fast mode, resetting in it and choosing a router in it all work', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&rate=0.03&len=16&seed=4&warmup=200&cycles=5000`);
  const stats = () => page.evaluate(() => window.torusExplorer.stats());
  const setSpeed = async (v) => {
    await page.fill('#speed', String(v));
    await page.dispatchEvent('#speed', 'input');
  };
  await setSpeed(100);
  await page.evaluate(() => window.torusExplorer.play());
  await page.waitForFunction(() => window.torusExplorer.stats().cycle > 3000);

  // A slower speed while playing: the simulation comes back to the main thread and goes on
  // from where the worker left it, at the set pace.
  await setSpeed(50);
  await page.waitForFunction(() => document.getElementById('speed-label').textContent === '100 cycles/s');
  await page.waitForTimeout(300);
  const back = (await stats()).cycle;
  await page.waitForTimeout(1000);
  const later = (await stats()).cycle;
  assert.ok(back > 3000 && later > back && later - back < 1000, `slow again after fast: ${back} then ${later}`);

  // Reset while fast mode runs: a fresh simulation from cycle 0, in fast mode again (the
  // worker's session of the old one is dropped).
  await setSpeed(100);
  await page.waitForFunction(() => window.torusExplorer.stats().cycle > 150000, null, { timeout: 60000 });
  const before = (await stats()).cycle;
  await page.click('#reset');
  const reset = (await stats()).cycle;
  assert.ok(reset < before, `reset starts again (cycle ${before}, then ${reset})`);
  await page.waitForFunction((c) => window.torusExplorer.stats().cycle > c + 5000, reset);

  // A router chosen while fast mode runs: its panel shows the input VCs of the frames the
  // worker posts, and the cycle label keeps up with the worker.
  const corner = await page.evaluate(() => window.torusExplorer.nodeCentre(56));
  await page.mouse.click(corner.x, corner.y);
  assert.match(await page.locator('#router-title').textContent(), /node 56 \(0, 7\)/);
  assert.equal(await page.locator('#router-table tbody td.vc').count(), 4 * 2, 'four input ports × two VCs');
  const label = async () => Number((await page.locator('#cycle-label').textContent()).replace(/\D/g, ''));
  const shown = await label();
  await page.waitForTimeout(500);
  assert.ok(await label() > shown + 1000, 'the cycle label follows fast mode');
  assert.match(await page.locator('#router-table tbody').textContent(), /\d+\/4|free/);
  assert.deepEqual(errors, []);
});
