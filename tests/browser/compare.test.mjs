// Compare mode: two simulations side by side from one link, in lockstep under one set of
// controls, each run whole equal to the CLI's run of its own scenario; a bad second scenario
// falls back to the single view with the error naming the key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launch, openPage, canvasPixels, hash, ROOT, wormPoint } from './harness.mjs';

const TORUS = join(ROOT, 'target', 'release', 'torus');
const FIRST = 'k=6&routing=dor&traffic=tornado&rate=0.012&len=8&warmup=300&cycles=2000&seed=11';
const LINK = `${FIRST}&compare=routing:goal,vcs:3`;
const secondPixels = (page) => page.evaluate(() => document.getElementById('torus-b').toDataURL());

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

test('a compare link restores both scenarios, each labelled with what differs', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  const [first, second] = await page.evaluate(() => window.torusExplorer.scenarios());
  const canonical = (s) => JSON.parse(execFileSync(TORUS, ['model', s], { encoding: 'utf8' })).scenario;
  assert.equal(first, canonical(FIRST));
  assert.equal(second, canonical(FIRST.replace('routing=dor', 'routing=goal&vcs=3')));
  assert.ok(await page.locator('#torus-b').isVisible(), 'the second torus is shown');
  assert.equal(await page.locator('#torus-label').textContent(), 'DOR');
  assert.equal(await page.locator('#torus-label-b').textContent(), 'GOAL');
  assert.match(await page.locator('#compare-note').textContent(), /identical seeds mean identical message arrivals and destinations/);
  // Each routing's virtual channels under the tori, the second's as the simulator classes them.
  const headings = await page.locator('#vc-classes h2').allTextContents();
  assert.equal(headings.length, 2);
  assert.match(headings[0], /^Virtual channels of .*\(DOR\) \(left\)$/);
  assert.match(headings[1], /^Virtual channels of .*\(GOAL\) \(right\)$/);
  assert.equal(await page.locator('#vc-classes-b li').count(), new Set(await page.evaluate(() => window.torusExplorer.vcClasses(1).map((c) => c.name))).size);
  assert.match(await hash(page), /&compare=routing:goal(,vcs:3)?(&|$)/);
  // A reload of the link the page wrote restores the same two.
  const written = await page.evaluate(() => location.href);
  const again = await openPage(browser.context, written);
  assert.deepEqual(await again.page.evaluate(() => window.torusExplorer.scenarios()), [first, second]);
  // compare(null) leaves compare mode, and the link says so.
  await page.evaluate(() => window.torusExplorer.compare(null));
  assert.deepEqual(await page.evaluate(() => window.torusExplorer.scenarios()), [first]);
  assert.ok(!(await page.locator('#torus-b').isVisible()));
  assert.doesNotMatch(await hash(page), /compare=/);
  assert.deepEqual(errors, []);
  assert.deepEqual(again.errors, []);
});

test('both canvases change while playing and not while paused; a step advances both by one cycle', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.waitForTimeout(100);
  const a1 = await canvasPixels(page);
  const b1 = await secondPixels(page);
  const c1 = await page.evaluate(() => [window.torusExplorer.stats().cycle, window.torusExplorer.stats(1).cycle]);
  assert.equal(c1[0], c1[1], 'the two run in lockstep');
  await page.waitForTimeout(500);
  assert.equal(await canvasPixels(page), a1, 'the first canvas stays still while paused');
  assert.equal(await secondPixels(page), b1, 'the second canvas stays still while paused');

  await page.evaluate(() => window.torusExplorer.step(1));
  const c2 = await page.evaluate(() => [window.torusExplorer.stats().cycle, window.torusExplorer.stats(1).cycle]);
  assert.deepEqual(c2, [c1[0] + 1, c1[1] + 1], 'a step advances both by one cycle');

  await page.evaluate(() => window.torusExplorer.play());
  await page.waitForFunction((c) => window.torusExplorer.stats().cycle > c + 100, c1[0]);
  await page.waitForTimeout(100);
  const a2 = await canvasPixels(page);
  const b2 = await secondPixels(page);
  await page.waitForTimeout(400);
  assert.notEqual(a2, a1, 'the first canvas changes while playing');
  assert.notEqual(b2, b1, 'the second canvas changes while playing');
  assert.notEqual(await canvasPixels(page), a2);
  assert.notEqual(await secondPixels(page), b2);

  // Fast mode runs both; pausing brings both back at the same cycle.
  await page.fill('#speed', '100');
  await page.dispatchEvent('#speed', 'input');
  const c3 = await page.evaluate(() => window.torusExplorer.stats(1).cycle);
  await page.waitForFunction((c) => window.torusExplorer.stats(1).cycle > c + 2000, c3);
  await page.evaluate(() => window.torusExplorer.pause());
  const c4 = await page.evaluate(() => [window.torusExplorer.stats().cycle, window.torusExplorer.stats(1).cycle]);
  assert.equal(c4[0], c4[1], 'fast mode hands both back in lockstep');
  // The charts plot both live points, each in its own series.
  const charts = await page.evaluate(() => window.torusExplorer.charts());
  const labels = charts[0].series;
  assert.ok(labels.includes('live (DOR)') && labels.includes('live (GOAL)'), labels.join(' | '));
  assert.deepEqual(errors, []);
});

test("the two runs' run() results each equal the CLI's for their own scenario", async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  await page.evaluate(() => window.torusExplorer.pause());
  const scenarios = await page.evaluate(() => window.torusExplorer.scenarios());
  for (const i of [0, 1]) {
    const native = JSON.parse(execFileSync(TORUS, ['run', scenarios[i]], { encoding: 'utf8' }));
    delete native.wall_seconds;
    const inPage = await page.evaluate((j) => window.torusExplorer.run(j), i);
    assert.ok(native.messages_measured > 0);
    assert.deepEqual(inPage, native, `simulation ${i}`);
  }
  assert.deepEqual(errors, []);
});

test('a bad second scenario falls back to the single view with an error naming the key', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${FIRST}&compare=routing:warp`);
  assert.ok(await page.locator('#error').isVisible());
  const text = await page.locator('#error').textContent();
  assert.match(text, /routing/);
  assert.match(text, /alone/);
  assert.equal((await page.evaluate(() => window.torusExplorer.scenarios())).length, 1);
  assert.ok(!(await page.locator('#torus-b').isVisible()));
  assert.doesNotMatch(await hash(page), /compare=/);
  // The console API says the same.
  await assert.rejects(page.evaluate(() => window.torusExplorer.compare('k=6&vcs=99')), /vcs/);
  assert.equal((await page.evaluate(() => window.torusExplorer.scenarios())).length, 1);
  assert.deepEqual(errors, []);
});

test('presentation mode shows both tori, the latency chart and both live numbers; a phone stacks the tori', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}&view=present`);
  const shown = (id) => page.evaluate((i) => document.getElementById(i).getClientRects().length > 0, id);
  for (const id of ['torus', 'torus-b', 'chart-latency', 'live-numbers']) assert.ok(await shown(id), `${id} shown`);
  assert.ok(!(await shown('scenario-form')));
  const heads = await page.locator('#live-numbers dt.compare-head').allTextContents();
  assert.deepEqual(heads, ['DOR', 'GOAL']);
  const boxes = async () => page.evaluate(() => ['torus', 'torus-b'].map((id) => {
    const r = document.getElementById(id).getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width };
  }));
  const [a, b] = await boxes();
  assert.ok(b.left >= a.left + a.width - 1 && Math.abs(a.top - b.top) < 2, `side by side: ${JSON.stringify([a, b])}`);
  await page.setViewportSize({ width: 390, height: 800 });
  await page.evaluate(() => window.torusExplorer.present(false));
  await page.waitForTimeout(200);
  const [c, d] = await boxes();
  assert.ok(d.top >= c.top + c.width - 1 && c.width > 300 && d.width > 300, `stacked, each across the screen: ${JSON.stringify([c, d])}`);
  assert.deepEqual(errors, []);
});

test('fast mode keeps the two in lockstep: every update shows both at the same cycle', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  await page.fill('#speed', '100');
  await page.dispatchEvent('#speed', 'input');
  const start = await page.evaluate(() => window.torusExplorer.stats().cycle);
  // Sampled at every animation frame for a while: the cycles the page shows for the two.
  const seen = await page.evaluate(() => new Promise((resolve) => {
    const out = [];
    const t0 = performance.now();
    const look = () => {
      out.push([window.torusExplorer.stats().cycle, window.torusExplorer.stats(1).cycle, document.getElementById('cycle-label').textContent]);
      if (performance.now() - t0 < 3000) requestAnimationFrame(look);
      else resolve(out);
    };
    requestAnimationFrame(look);
  }));
  const unequal = seen.filter(([a, b]) => a !== b);
  assert.deepEqual(unequal.slice(0, 3), [], `${unequal.length} of ${seen.length} looks showed the two at different cycles`);
  const distinct = new Set(seen.map(([a]) => a));
  assert.ok(distinct.size >= 5, `fast mode moved on while looked at (${distinct.size} distinct cycles)`);
  assert.ok(seen[seen.length - 1][0] > start + 2000, `both ran fast: ${start} -> ${seen[seen.length - 1][0]}`);
  for (const [a, , label] of seen) assert.equal(label, `cycle ${a.toLocaleString('en')}`);
  await page.evaluate(() => window.torusExplorer.pause());
  const [a, b] = await page.evaluate(() => [window.torusExplorer.stats().cycle, window.torusExplorer.stats(1).cycle]);
  assert.equal(a, b, 'pausing brings both back at the same cycle');
  assert.ok(a >= seen[seen.length - 1][0]);
  // Played on at a set speed from there, the two still advance together.
  await page.fill('#speed', '60');
  await page.dispatchEvent('#speed', 'input');
  await page.evaluate(() => window.torusExplorer.play());
  await page.waitForFunction((c) => window.torusExplorer.stats().cycle > c + 20, a);
  await page.evaluate(() => window.torusExplorer.pause());
  const after = await page.evaluate(() => [window.torusExplorer.stats().cycle, window.torusExplorer.stats(1).cycle]);
  assert.equal(after[0], after[1]);
  assert.deepEqual(errors, []);
});

test('the router panel shows a router of either torus', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.evaluate(() => window.torusExplorer.step(300));
  // Node 7 of the second torus, clicked where the reader sees it.
  const k = 6;
  const click = (id, node) => page.evaluate(([i, u, n]) => {
    const r = document.getElementById(i).getBoundingClientRect();
    const pitch = (600 - 22) / n;
    const x = 22 + ((u % n) + 0.5) * pitch;
    const y = (n - 1 - Math.floor(u / n) + 0.5) * pitch;
    return { x: r.left + (x / 600) * r.width, y: r.top + (y / 600) * r.height };
  }, [id, node, k]);
  const second = await click('torus-b', 7);
  // Hovering names the node under the mouse on the second torus too.
  await page.mouse.move(second.x, second.y);
  await page.waitForFunction(() => !document.getElementById('torus-tip-b').hidden);
  assert.equal(await page.locator('#torus-tip-b').textContent(), 'node 7 (1, 1)');
  await page.mouse.click(second.x, second.y);
  await page.waitForFunction(() => !document.getElementById('router').hidden);
  assert.match(await page.locator('#router-title').textContent(), /^Router of node 7 \(1, 1\) \(GOAL\)/);
  // GOAL here has three VCs a channel, DOR two: the table is the second simulation's.
  assert.equal(await page.locator('#router-table thead th').count(), 1 + 3);
  // Its cells follow the second simulation as it runs: a message passes through in time.
  let held = false;
  for (let i = 0; i < 100 && !held; i++) {
    await page.evaluate(() => window.torusExplorer.step(20));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    held = (await page.locator('#router-table tbody td').allTextContents()).some((t) => /^#\d+ \d+\/\d+/.test(t));
  }
  assert.ok(held, 'a message shows in the second router within 2,000 cycles');
  assert.equal(await page.locator('#router-table thead th').count(), 1 + 3);
  // A click on a node of the first torus shows the first's router instead.
  const first = await click('torus', 7);
  await page.mouse.click(first.x, first.y);
  await page.waitForFunction(() => /\(DOR\)/.test(document.getElementById('router-title').textContent));
  assert.equal(await page.locator('#router-table thead th').count(), 1 + 2);
  // The console API selects on either.
  await page.evaluate(() => window.torusExplorer.selectNode(3, 1));
  assert.match(await page.locator('#router-title').textContent(), /^Router of node 3 \(3, 0\) \(GOAL\)/);
  await page.click('#router-close');
  assert.ok(await page.locator('#router').isHidden());
  assert.deepEqual(errors, []);
});

test('a click on a worm of the second torus follows that simulation\'s message', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  // The page plays from load until paused: start both again from cycle 0 (setScenario builds
  // new simulations), so that what lies under the click is the same on every run, and step
  // until a worm in the colour wormPoint looks for is on the second torus.
  await page.evaluate(() => {
    const e = window.torusExplorer;
    e.pause();
    e.setScenario(e.scenario());
  });
  let at = null;
  for (let i = 0; i < 50 && !at; i++) {
    await page.evaluate(() => window.torusExplorer.step(20));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    at = await wormPoint(page, 'torus-b');
  }
  assert.ok(at, 'a worm in the first message colour is drawn on the second torus within 1,000 cycles');
  await page.locator('#torus-b').click({ position: at });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const followed = await page.evaluate(() => [window.torusExplorer.followed(0), window.torusExplorer.followed(1)]);
  assert.equal(followed[0], 0xffffffff, 'nothing followed on the first torus');
  assert.ok(followed[1] !== 0xffffffff, 'a message followed on the second');
  const label = await page.locator('#torus-label-b').textContent();
  await page.waitForFunction(() => document.getElementById('message-text').textContent !== '');
  const text = await page.locator('#message-text').textContent();
  assert.ok(text.startsWith(`Message #${followed[1]} on ${label} (`), text);
  assert.match(text, /header at node \d+|left the network|no longer in the network/);
  // Its trail grows as the second simulation runs on.
  await page.evaluate(() => window.torusExplorer.step(30));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.match(await page.locator('#message-text').textContent(), new RegExp(`^Message #${followed[1]} on `));
  // Following a message on the first torus ends following this one: one panel, one message.
  await page.evaluate(() => window.torusExplorer.follow(1, 0));
  assert.deepEqual(await page.evaluate(() => [window.torusExplorer.followed(0), window.torusExplorer.followed(1)]), [1, 0xffffffff]);
  await page.click('#message-close');
  assert.deepEqual(await page.evaluate(() => [window.torusExplorer.followed(0), window.torusExplorer.followed(1)]), [0xffffffff, 0xffffffff]);
  assert.ok(await page.locator('#message').isHidden());
  assert.deepEqual(errors, []);
});

test('the accepted-against-offered chart has a sweep and a live point for each simulation', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  await page.waitForFunction(() => {
    const c = window.torusExplorer.charts()[3];
    return c.points['mean (sweep, DOR)'] >= 3 && c.points['mean (sweep, GOAL)'] >= 3
      && c.points['live mean (DOR)'] === 1 && c.points['live mean (GOAL)'] === 1;
  }, null, { timeout: 120000, polling: 250 });
  const [latency, , , throughput] = await page.evaluate(() => window.torusExplorer.charts());
  assert.deepEqual(throughput.series, ['accepted = offered', 'mean (sweep, DOR)', 'live mean (DOR)', 'mean (sweep, GOAL)', 'live mean (GOAL)']);
  // The latency chart carries the second's sweep too, in its own series.
  assert.ok(latency.series.includes('simulated (sweep, GOAL)'), latency.series.join(' | '));
  assert.deepEqual(errors, []);
});

test('the torus PNG of compare mode shows both tori', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#${LINK}`);
  await page.evaluate(() => window.torusExplorer.pause());
  await page.evaluate(() => window.torusExplorer.step(300));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  const bytes = readFileSync(await download.path());
  // Decoded by the browser: the picture's size, and in each half the worm pixels (saturated
  // colours; the heat, the nodes and the text are grey).
  const seen = await page.evaluate(async (b64) => {
    const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))], { type: 'image/png' }));
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const halves = [{ colour: 0 }, { colour: 0 }];
    for (let y = 0; y < c.height; y++) {
      for (let x = 0; x < c.width; x++) {
        const i = 4 * (y * c.width + x);
        const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
        const h = halves[x < c.width / 2 ? 0 : 1];
        if (Math.max(r, g, b) - Math.min(r, g, b) > 60) h.colour++;
      }
    }
    return { width: c.width, height: c.height, halves };
  }, bytes.toString('base64'));
  assert.ok(seen.width > 2 * 1200, `two tori side by side at twice the size: ${seen.width} px wide`);
  const [left, right] = seen.halves;
  assert.ok(left.colour > 5000 && right.colour > 5000, `worms drawn in both halves: ${JSON.stringify(seen.halves)}`);
  assert.deepEqual(errors, []);
});
