// What the torus draws beyond the worms: the deadlock's wait-for cycle and its panel, the
// routing's VC classes in the legend, scouting backtracks, broadcast trees and the channel
// utilisation heat. Each is checked against the simulator's own exports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage } from './harness.mjs';

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

// Channel numbering of src/topology.rs for a 2-D torus: channel = node·4 + port.
function ends(channel, k) {
  const node = Math.floor(channel / 4);
  const port = channel % 4;
  const [x, y] = [node % k, Math.floor(node / k)];
  const [nx, ny] = [[(x + 1) % k, y], [(x + k - 1) % k, y], [x, (y + 1) % k], [x, (y + k - 1) % k]][port];
  return { tail: node, head: nx + ny * k };
}

// Waits until the frame loop has drawn the state the simulation is in now.
async function drawn(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// Canvas pixels within a small distance of an RGB colour.
async function pixelsOf(page, [r, g, b]) {
  return page.evaluate(([r, g, b]) => {
    const c = document.getElementById('torus');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 12 && d[i + 3] === 255) n++;
    return n;
  }, [r, g, b]);
}
const DEADLOCK_RGB = [0x7a, 0x01, 0x77];

test('a deadlock highlights its wait-for cycle and lists it, distinct from saturation', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8`);
  const index = await page.evaluate(() => window.torusExplorer.presets().findIndex((p) => /deadlock forms/.test(p.title)));
  assert.ok(index >= 0, 'the deadlock preset exists');
  await page.evaluate((i) => { window.torusExplorer.loadPreset(i); window.torusExplorer.pause(); }, index);
  await drawn(page);
  assert.equal(await pixelsOf(page, DEADLOCK_RGB), 0, 'nothing is highlighted before the deadlock');
  assert.equal(await page.locator('#deadlock').isHidden(), true);
  for (let i = 0; i < 60 && !(await page.evaluate(() => window.torusExplorer.stats().deadlock)); i++) {
    await page.evaluate(() => window.torusExplorer.step(500));
  }
  assert.equal(await page.evaluate(() => window.torusExplorer.stats().deadlock), true, 'the preset deadlocks');
  await page.waitForFunction(() => window.torusExplorer.overlays()?.deadlock != null);
  await drawn(page);

  const { shown, exported, k, vcs } = await page.evaluate(() => ({
    shown: window.torusExplorer.overlays().deadlock,
    exported: window.torusExplorer.deadlockCycle(),
    k: Number(/k=(\d+)/.exec(window.torusExplorer.scenario())[1]),
    vcs: Number(/vcs=(\d+)/.exec(window.torusExplorer.scenario())[1]),
  }));
  assert.deepEqual(shown, exported, 'the highlighted cycle is the one the simulator reports');
  assert.ok(exported.vcs.length >= 2, `a cycle of several VCs: ${JSON.stringify(exported)}`);
  assert.deepEqual(exported.channels, exported.vcs.map((v) => Math.floor(v / vcs)));
  // Closed: each VC waits for the next. A blocked header waits for a VC of a channel leaving
  // the router it sits at (its channel's head is the next one's tail); an empty VC allocated
  // to a message whose flits are still upstream waits for the VC feeding it (the other way).
  const n = exported.channels.length;
  for (let i = 0; i < n; i++) {
    const a = ends(exported.channels[i], k);
    const b = ends(exported.channels[(i + 1) % n], k);
    assert.ok(a.head === b.tail || a.tail === b.head, `VC ${exported.vcs[i]} does not wait on a neighbouring channel's VC ${exported.vcs[(i + 1) % n]}`);
  }
  assert.ok(await pixelsOf(page, DEADLOCK_RGB) > 100, 'the cycle is drawn in the deadlock colour');

  const panel = page.locator('#deadlock');
  assert.equal(await panel.isVisible(), true);
  assert.match(await panel.locator('h2').textContent(), /^Deadlock$/);
  const items = await panel.locator('li').allTextContents();
  assert.equal(items.length, n);
  const c0 = exported.channels[0];
  const node = Math.floor(c0 / 4);
  assert.equal(items[0], `channel from node (${node % k}, ${Math.floor(node / k)}) ${['+x', '−x', '+y', '−y'][c0 % 4]} to (${ends(c0, k).head % k}, ${Math.floor(ends(c0, k).head / k)}), VC ${exported.vcs[0] % vcs}`);
  const live = await page.locator('#live-numbers').textContent();
  assert.match(live, /deadlock/);
  assert.doesNotMatch(live, /saturated/);

  // A new scenario clears the highlight.
  await page.evaluate(() => window.torusExplorer.setScenario('k=8&rate=0.01'));
  await drawn(page);
  assert.equal(await panel.isHidden(), true);
  assert.equal(await page.evaluate(() => window.torusExplorer.overlays().deadlock), null);
  assert.deepEqual(errors, []);
});

test('the legend names the VC classes the simulator gives the routing algorithm', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=duato&vcs=4&rate=0.01`);
  const legend = async () => page.locator('#vc-classes li').allTextContents();
  assert.deepEqual(await legend(), ['VC 0: escape, before the dateline', 'VC 1: escape, after the dateline', 'VC 2, 3: adaptive']);
  assert.deepEqual(await page.locator('#vc-classes li').evaluateAll((li) => li.map((l) => l.dataset.kind)), ['escape', 'escape, after a dateline', '']);
  for (const scenario of ['k=8&routing=dor&vcs=2', 'k=8&routing=minad&vcs=3', 'k=8&routing=nbc&vcs=6', 'k=8&routing=val&vcs=4']) {
    await page.evaluate((s) => window.torusExplorer.setScenario(s), scenario);
    const classes = await page.evaluate(() => window.torusExplorer.vcClasses());
    const names = [...new Set(classes.map((c) => c.name))];
    const expected = names.map((name) => `VC ${classes.flatMap((c, v) => (c.name === name ? [v] : [])).join(', ')}: ${name}`);
    assert.deepEqual(await legend(), expected, scenario);
  }
  assert.deepEqual(await legend(), ['VC 0: phase 1, before the dateline', 'VC 1: phase 1, after the dateline', 'VC 2: phase 2, before the dateline', 'VC 3: phase 2, after the dateline']);
  assert.deepEqual(errors, []);
});

test('scouting backtracks are marked on the torus and counted', async () => {
  // No autoplay: the warm-up, played through in seconds, would leave marks of its own.
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=duato&switching=scouting&scout=3&rate=0.03&len=16&seed=5`, { reducedMotion: 'reduce' });
  await drawn(page);
  let marks = [];
  // One cycle at a time so that the frame after a backtrack still shows it.
  for (let i = 0; i < 3000 && marks.length === 0; i++) {
    await page.evaluate(() => window.torusExplorer.step(1));
    if (i % 20 === 19) {
      await drawn(page);
      marks = await page.evaluate(() => window.torusExplorer.overlays().backtracks);
    }
  }
  assert.ok(marks.length > 0, 'some backtrack was marked');
  const { cycle, channels } = await page.evaluate(() => ({ cycle: window.torusExplorer.stats().cycle, channels: 8 * 8 * 4 }));
  for (const m of marks) {
    assert.ok(m.cycle <= cycle && cycle - m.cycle < 40, `a recent backtrack: ${JSON.stringify(m)} at cycle ${cycle}`);
    assert.ok(Number.isInteger(m.channel) && m.channel >= 0 && m.channel < channels);
  }
  // The stats panel refreshes a few times a second, paused or not.
  await page.waitForTimeout(600);
  const total = await page.locator('#live-numbers').textContent();
  const counted = Number(/backtracks([\d,]+)/.exec(total)[1].replaceAll(',', ''));
  assert.ok(counted >= marks.length, `the stats panel counts the backtracks: ${total}`);
  // Long after, the marks have gone.
  await page.evaluate(() => window.torusExplorer.setScenario('k=8&routing=duato&switching=scouting&scout=3&rate=0.0001&len=16&seed=5'));
  await page.evaluate(() => window.torusExplorer.step(200));
  await drawn(page);
  assert.deepEqual(await page.evaluate(() => window.torusExplorer.overlays().backtracks), []);
  assert.deepEqual(errors, []);
});

test('the broadcast tree drawn from a clicked node is the simulator\'s spanning tree', async () => {
  const k = 8;
  const { page, errors } = await openPage(browser.context, `${server.url}#k=${k}&routing=duato&vcs=4&beta=0.04&rate=0.003&len=32`);
  await page.evaluate(() => window.torusExplorer.pause());
  await drawn(page);
  assert.equal(await page.evaluate(() => window.torusExplorer.overlays().tree), null, 'no tree before a node is chosen');
  for (const source of [0, 27, 63]) {
    await page.evaluate((s) => window.torusExplorer.selectNode(s), source);
    await drawn(page);
    const { tree, exported } = await page.evaluate((s) => ({ tree: window.torusExplorer.overlays().tree, exported: window.torusExplorer.broadcastTree(s) }), source);
    assert.equal(tree.source, source);
    assert.deepEqual(tree.channels, exported);
    assert.equal(tree.channels.length, k * k - 1, 'N − 1 edges');
    const reached = new Set([source]);
    for (const c of tree.channels) {
      const { tail, head } = ends(c, k);
      assert.ok(reached.has(tail), `edge ${c} leaves a node the tree has reached`);
      assert.ok(!reached.has(head), `node ${head} is reached once`);
      reached.add(head);
    }
    assert.equal(reached.size, k * k, 'every node is reached');
  }
  // Without broadcasts a selected node draws no tree.
  await page.evaluate(() => window.torusExplorer.setScenario('k=8&routing=duato&vcs=4&rate=0.003'));
  await page.evaluate(() => window.torusExplorer.selectNode(5));
  await drawn(page);
  assert.equal(await page.evaluate(() => window.torusExplorer.overlays().tree), null);
  assert.deepEqual(errors, []);
});

test('the heat overlay is each channel\'s flits per cycle', async () => {
  // Tornado under DOR uses only + x channels: their heat is the flits they carried over the
  // cycles stepped, the other channels' zero (VC occupancy would not be: blocked worms hold VCs).
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=dor&traffic=tornado&rate=0.02&len=16&seed=2`);
  await page.evaluate(() => { window.torusExplorer.pause(); window.torusExplorer.step(1000); });
  const before = await page.evaluate(() => window.torusExplorer.channelFlits());
  // One call of many cycles: the average's weight 1 − e^(−2000/50) is 1 to float precision.
  await page.evaluate(() => window.torusExplorer.step(2000));
  const { after, heat } = await page.evaluate(() => ({ after: window.torusExplorer.channelFlits(), heat: window.torusExplorer.heat() }));
  let busy = 0;
  for (let c = 0; c < heat.length; c++) {
    const expected = (after[c] - before[c]) / 2000;
    assert.ok(Math.abs(heat[c] - expected) < 1e-6, `channel ${c}: heat ${heat[c]}, carried ${expected} flits/cycle`);
    if (c % 4 === 0) busy += expected > 0.05;
    else assert.equal(expected, 0, `channel ${c} (port ${c % 4}) is idle under tornado`);
  }
  assert.ok(busy > 32, `most + x channels carry flits (${busy})`);
  assert.deepEqual(errors, []);
});
