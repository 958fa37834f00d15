// Faulty links and nodes on the page: the fault tool fails and repairs what is clicked, the
// link carries the faults and a reload restores them, failed elements and stuck headers are
// drawn from the simulator's own lists, the live numbers count what is stuck where, the
// classroom presets show DOR stuck where scouting switching routes round, and the model panel
// says that no model covers faults.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, ready, hash } from './harness.mjs';

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

const valueOf = (h, key) => new URLSearchParams(h.replaceAll('+', '%2B')).get(key);

async function drawn(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// Where node `node`'s centre is on the screen, as the page reports it.
const centre = (page, node) => page.evaluate((n) => window.torusExplorer.nodeCentre(n), node);

async function clickNode(page, k, node) {
  const { x, y } = await centre(page, node);
  await page.mouse.click(x, y);
}

// The midpoint of the link from `node` to its + neighbour along `dim` (0 = x, 1 = y), halfway
// between the two nodes' centres (no wrap-around link is clicked here).
async function clickLink(page, k, node, dim) {
  const next = dim === 0 ? node + 1 : node + k;
  const [a, b] = [await centre(page, node), await centre(page, next)];
  await page.mouse.click((a.x + b.x) / 2, (a.y + b.y) / 2);
}

test('the fault tool fails and repairs links and nodes, and the link carries them', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=6&routing=dor&rate=0.01&len=8&seed=3`, { reducedMotion: 'reduce' });
  const k = 6;
  await page.locator('#fault-tool').check();
  await clickLink(page, k, 7, 0);
  let h = await hash(page);
  assert.equal(valueOf(h, 'flinks'), '7x', h);
  assert.match(await page.locator('#fault-status').textContent(), /link 7x failed/);
  await clickLink(page, k, 7, 1);
  await clickNode(page, k, 20);
  h = await hash(page);
  assert.equal(valueOf(h, 'flinks'), '7x,7y');
  assert.equal(valueOf(h, 'fnodes'), '20');
  assert.equal(await page.locator('#key-flinks').inputValue(), '7x,7y', 'the form follows');
  // What is drawn is what the simulator has failed: the two channels of each link, the node.
  await drawn(page);
  const shown = await page.evaluate(() => window.torusExplorer.overlays());
  for (const c of [7 * 4 + 0, 8 * 4 + 1, 7 * 4 + 2, 13 * 4 + 3, 20 * 4 + 0, 21 * 4 + 1]) {
    assert.ok(shown.failedChannels.includes(c), `channel ${c} drawn failed: ${shown.failedChannels}`);
  }
  assert.deepEqual(shown.failedNodes, [20]);
  assert.equal(shown.failedChannels.length, 4 + 8, 'two links and the four links of node 20');
  // Legend says what the marks mean.
  assert.match(await page.locator('#legend').textContent(), /failed link.*failed node.*header stuck at a fault/);
  // A link failed only because its node failed is repaired with the node, not by a click.
  await clickLink(page, k, 20, 0);
  assert.equal(valueOf(await hash(page), 'flinks'), '7x,7y');
  assert.match(await page.locator('#fault-status').textContent(), /fnodes/);
  // Clicking again repairs.
  await clickLink(page, k, 7, 0);
  await clickNode(page, k, 20);
  h = await hash(page);
  assert.equal(valueOf(h, 'flinks'), '7y');
  assert.equal(valueOf(h, 'fnodes'), '');
  // The link restores the faults, and the page draws them.
  await clickNode(page, k, 33);
  const link = await hash(page);
  await page.reload();
  await ready(page);
  assert.equal(await hash(page), link);
  await drawn(page);
  const restored = await page.evaluate(() => window.torusExplorer.overlays());
  assert.deepEqual(restored.failedNodes, [33]);
  assert.ok(restored.failedChannels.includes(7 * 4 + 2));
  assert.deepEqual(errors, []);
});

test('a bad fault list in a link names the key and keeps the page running', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=8&flinks=7w`, { reducedMotion: 'reduce' });
  const text = await page.locator('#error').textContent();
  assert.match(text, /flinks/);
  assert.equal(await page.evaluate(() => window.torusExplorer.scenario().includes('flinks=&')), true, 'the default scenario runs instead');
});

async function preset(page, title) {
  const index = await page.evaluate((t) => window.torusExplorer.presets().findIndex((p) => p.title === t), title);
  assert.ok(index >= 0, `preset ${title}`);
  await page.evaluate((i) => { window.torusExplorer.loadPreset(i); window.torusExplorer.pause(); }, index);
}

test('the classroom presets: DOR is stuck at the faults, scouting switching goes round them', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8`, { reducedMotion: 'reduce' });
  await preset(page, 'Faults stop dimension-order routing');
  for (let i = 0; i < 20 && (await page.evaluate(() => window.torusExplorer.stats().stuck_at_faults)) < 3; i++) {
    await page.evaluate(() => window.torusExplorer.step(250));
  }
  const dor = await page.evaluate(() => ({ stats: window.torusExplorer.stats(), stuck: window.torusExplorer.stuckHeaders() }));
  assert.ok(dor.stats.stuck_at_faults >= 3, `DOR strands messages at the faults: ${dor.stats.stuck_at_faults}`);
  assert.equal(dor.stuck.length, dor.stats.stuck_at_faults);
  for (const s of dor.stuck) assert.ok(['10x', '27y', '36x', '49y'].includes(s.fault), s.fault);
  await drawn(page);
  assert.equal((await page.evaluate(() => window.torusExplorer.overlays())).stuck.length, dor.stuck.length, 'each stuck header is marked');
  // The live numbers refresh every 250 ms of frames, so they may still show an earlier cycle.
  await page.waitForFunction((n) => document.getElementById('live-numbers').textContent.includes(`${n} messages (`), dor.stats.stuck_at_faults);
  const numbers = await page.locator('#live-numbers').textContent();
  assert.match(numbers, /stuck at faults/);
  assert.match(numbers, new RegExp(`${dor.stats.stuck_at_faults} messages \\(\\d+ at (10x|27y|36x|49y)`));
  assert.match(numbers, /4 links, 0 nodes failed/);
  // The model panel: no model covers faults, and no bound is given.
  await page.waitForFunction(() => /No latency model applies/.test(document.getElementById('model').textContent));
  assert.match(await page.locator('#model').textContent(), /no analytical model covers faulty links or nodes/);

  await preset(page, 'Scouting switching routes round the faults');
  await page.evaluate(() => window.torusExplorer.step(5000));
  const scouting = await page.evaluate(() => window.torusExplorer.stats());
  assert.equal(scouting.stuck_at_faults, 0, 'nothing is stuck under scouting');
  assert.ok(scouting.misroutes > 0, 'headers misrouted round the faults');
  assert.ok(scouting.messages_measured > 1000, `messages keep arriving: ${scouting.messages_measured}`);
  assert.equal(scouting.deadlock || scouting.fault_stall, false);
  assert.deepEqual(errors, []);
});

test('a stall at faults is reported apart from deadlock', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=6&routing=dor&rate=0.02&len=8&flinks=3x,9y,20x&warmup=0`, { reducedMotion: 'reduce' });
  for (let i = 0; i < 20 && !(await page.evaluate(() => window.torusExplorer.stats().fault_stall)); i++) {
    await page.evaluate(() => window.torusExplorer.step(1000));
  }
  const s = await page.evaluate(() => window.torusExplorer.stats());
  assert.equal(s.fault_stall, true);
  assert.equal(s.deadlock, false);
  await page.waitForFunction(() => /stalled at faults/.test(document.getElementById('live-numbers').textContent));
  assert.equal(await page.locator('#deadlock').isHidden(), true, 'no deadlock panel');
});
