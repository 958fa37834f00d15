// How the torus draws worms and what the routers do: a heat scale no worm shares, each worm one
// continuous body from its header back to its tail with every flit counted, readable at 10
// VCs; scouting's probes and acknowledgements, chaos's shared queues and deflections,
// broadcast copies; node coordinates on hover; panels that cover neither the torus nor what is
// drawn on it. Each is checked against the simulator's own exports.
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

async function drawn(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// Channel numbering of src/topology.rs for a 2-D torus: channel = node·4 + port.
function ends(channel, k) {
  const node = Math.floor(channel / 4);
  const [x, y] = [node % k, Math.floor(node / k)];
  const [nx, ny] = [[(x + 1) % k, y], [(x + k - 1) % k, y], [x, (y + 1) % k], [x, (y + k - 1) % k]][channel % 4];
  return { tail: node, head: nx + ny * k };
}

test('the heat is a grey ramp that no worm colour shares', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=4&rate=0.01`);
  const { heat, worms } = await page.evaluate(async () => {
    const r = await import('./js/render.js');
    const rgb = (s) => (s.startsWith('#') ? [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)) : s.match(/\d+/g).map(Number));
    return { heat: Array.from({ length: 21 }, (_, i) => rgb(r.heatColour(i / 20))), worms: r.MESSAGE_COLOURS.map(rgb) };
  });
  // Greys have no chroma; every worm colour has plenty, so none can pass for a heat shade.
  const chroma = (c) => Math.max(...c) - Math.min(...c);
  for (const w of worms) assert.ok(chroma(w) >= 80, `worm colour ${w} is saturated`);
  for (const h of heat) {
    assert.ok(chroma(h) <= 2, `heat ${h} is a grey`);
  }
  // Light to dark: idle reads as nearly white, a busy channel as dark.
  assert.ok(heat[0][0] > 240 && heat[20][0] < 110 && heat.every((h, i) => i === 0 || h[0] <= heat[i - 1][0]));
  assert.deepEqual(errors, []);
});

test('each worm is one continuous body from its header back to its tail, every flit counted', async () => {
  const k = 8;
  const { page, errors } = await openPage(browser.context, `${server.url}#k=${k}&routing=dor&traffic=uniform&rate=0.012&len=16&buf=4&seed=4&warmup=0`, { reducedMotion: 'reduce' });
  let long = 0;
  for (let round = 0; round < 5; round++) {
    await page.evaluate(() => window.torusExplorer.step(150));
    await drawn(page);
    const { worms, geometry, stats } = await page.evaluate(() => ({ ...window.torusExplorer.overlays(), stats: window.torusExplorer.stats() }));
    let flits = 0;
    for (const w of worms) {
      const channels = w.lanes.map((vc) => Math.floor(vc / 2));
      // Header first: each lane's channel starts where the next one (upstream) ends.
      for (let i = 0; i + 1 < channels.length; i++) {
        assert.equal(ends(channels[i + 1], k).head, ends(channels[i], k).tail, `worm ${w.id}: lanes ${w.lanes} form one path`);
      }
      assert.ok(w.flits + w.sourceFlits <= 16, `worm ${w.id}: at most a message's flits`);
      // The body runs through every lane it holds, not only the flits buffered in them.
      const [from, , to] = w.body;
      assert.ok(to - from >= (w.lanes.length - 1) * geometry.laneLength - 1e-6, `worm ${w.id}: body ${from}..${to} over ${w.lanes.length} lanes`);
      flits += w.flits;
      if (w.lanes.length >= 3) long++;
    }
    assert.equal(flits, stats.flits_in_network, 'every flit in the network belongs to a drawn worm');
  }
  assert.ok(long > 0, 'worms spanning three channels or more');
  assert.deepEqual(errors, []);
});

test('a header waiting out its router delay is drawn in the router', async () => {
  const k = 8;
  const { page, errors } = await openPage(browser.context, `${server.url}#k=${k}&routing=dor&rate=0.02&len=4&buf=4&rdelay=6&seed=3&warmup=0`, { reducedMotion: 'reduce' });
  let inRouter = 0;
  for (let round = 0; round < 4; round++) {
    await page.evaluate(() => window.torusExplorer.step(37));
    await drawn(page);
    const { worms, geometry } = await page.evaluate(() => window.torusExplorer.overlays());
    for (const w of worms.filter((x) => x.inRouter)) {
      inRouter++;
      assert.equal(w.blocked, false, `worm ${w.id}: waiting in the router, not blocked`);
      // The body runs on from its header's lane to the router's centre, past every lane.
      const [from, , to] = w.body;
      assert.ok(to - from > (w.lanes.length - 1) * geometry.laneLength + (geometry.pitch - geometry.laneLength) / 2 - 1e-6, `worm ${w.id}: body ${from}..${to}`);
    }
  }
  // At six router cycles to one on the wire, most headers are in a router at any moment.
  assert.ok(inRouter > 5, `${inRouter} headers drawn in their routers`);
  assert.deepEqual(errors, []);
});

test('with 10 virtual channels worms stay wide enough to see', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=nbc&vcs=10&traffic=uniform&rate=0.004&len=32&seed=2`, { reducedMotion: 'reduce' });
  await page.evaluate(() => window.torusExplorer.step(400));
  await drawn(page);
  const { geometry, worms } = await page.evaluate(() => window.torusExplorer.overlays());
  assert.ok(geometry.wormWidth >= 4, `worms ${geometry.wormWidth} units wide`);
  assert.ok(worms.length > 0);
  // The canvas shows the worms' colours in quantity, not as hairlines.
  const coloured = await page.evaluate(async () => {
    const { MESSAGE_COLOURS } = await import('./js/render.js');
    const rgb = MESSAGE_COLOURS.map((s) => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)));
    const c = document.getElementById('torus');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (rgb.some(([r, g, b]) => Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 10)) n++;
    return n / (c.width / 600) ** 2;
  });
  const bodies = worms.reduce((n, w) => n + w.body[2] - w.body[0], 0);
  assert.ok(coloured > 2.5 * bodies, `${coloured.toFixed(0)} worm-coloured pixels for ${bodies.toFixed(0)} units of body`);
  assert.deepEqual(errors, []);
});

test('scouting: the probe runs ahead of its data and acknowledgements come back', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=adaptive&switching=scouting&scout=3&traffic=uniform&rate=0.008&len=32&seed=3&warmup=0`, { reducedMotion: 'reduce' });
  let ahead = null;
  let acks = 0;
  for (let i = 0; i < 40 && !(ahead && acks); i++) {
    await page.evaluate(() => window.torusExplorer.step(7));
    await drawn(page);
    const o = await page.evaluate(() => window.torusExplorer.overlays());
    ahead = ahead || o.worms.find((w) => w.lead > 0);
    acks += o.acks;
  }
  assert.ok(ahead, 'a probe ahead of its data');
  const [from, data, to] = ahead.body;
  assert.ok(from <= data && data < to, `the data ends before the header: ${ahead.body}`);
  assert.ok(ahead.lead <= ahead.lanes.length, 'the reserved stretch is part of the worm');
  assert.ok(acks > 0, 'acknowledgements drawn');
  assert.deepEqual(errors, []);
});

test('chaos: each node\'s shared queue and each deflection are drawn', async () => {
  const k = 8;
  const { page, errors } = await openPage(browser.context, `${server.url}#k=${k}&routing=chaos&traffic=bitcomp&rate=0.05&len=4&buf=4&mq=2&seed=1&warmup=0`, { reducedMotion: 'reduce' });
  let marks = [];
  let queued = 0;
  for (let i = 0; i < 200 && !(marks.length && queued); i++) {
    await page.evaluate(() => window.torusExplorer.step(5));
    await drawn(page);
    const o = await page.evaluate(() => window.torusExplorer.overlays());
    assert.equal(o.queues.length, 2 * k * k * 2, 'two words for each of the two slots of every node');
    queued = Math.max(queued, o.queues.filter((v, j) => j % 2 === 0 && v !== 0xffffffff).length);
    marks = o.deflections;
  }
  assert.ok(queued > 0, 'a shared queue held a packet');
  assert.ok(marks.length > 0, 'a deflection was marked');
  const stats = await page.evaluate(() => window.torusExplorer.stats());
  for (const m of marks) {
    assert.ok(stats.cycle - m.cycle < 40 && m.vc < k * k * 4 && m.channel === m.vc, JSON.stringify(m));
  }
  assert.ok(stats.misroutes >= marks.length);
  assert.deepEqual(errors, []);
});

const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('broadcast copies are marked, and no panel covers the tree or a followed worm', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&routing=duato&vcs=4&beta=0.04&rate=0.0025&len=32&seed=4`, { reducedMotion: 'reduce' });
  let copies = [];
  for (let i = 0; i < 50 && copies.length === 0; i++) {
    await page.evaluate(() => window.torusExplorer.step(20));
    await drawn(page);
    copies = (await page.evaluate(() => window.torusExplorer.overlays().worms)).filter((w) => w.broadcast);
  }
  assert.ok(copies.length > 0, 'broadcast copies drawn as such');
  assert.ok(copies.every((w) => w.lanes.length === 1), 'each copy crosses one channel of the tree');
  await page.evaluate(() => window.torusExplorer.selectNode(27));
  await drawn(page);
  assert.ok(await page.evaluate(() => window.torusExplorer.overlays().tree != null));
  const box = (id) => page.evaluate((i) => document.getElementById(i).getBoundingClientRect().toJSON(), id);
  assert.equal(overlap(await box('router'), await box('torus')), false, 'the router panel is off the torus');
  const w = (await page.evaluate(() => window.torusExplorer.overlays().worms))[0];
  await page.evaluate((id) => { window.torusExplorer.follow(id); }, w.id);
  await drawn(page);
  assert.equal(overlap(await box('message'), await box('torus')), false, 'the followed message\'s panel is off the torus');
  assert.deepEqual(errors, []);
});

test('node coordinates on hover and in print; the axes are numbered', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&rate=0.001&seed=2`, { reducedMotion: 'reduce' });
  const c = await page.evaluate(() => window.torusExplorer.nodeCentre(35));
  await page.mouse.move(c.x, c.y);
  assert.equal(await page.locator('#torus-tip').textContent(), 'node 35 (3, 4)');
  const right = await page.evaluate(() => window.torusExplorer.nodeCentre(36));
  // Half-way to the next node along x: the two channels between them.
  await page.mouse.move((c.x + right.x) / 2, (c.y + right.y) / 2 - 4);
  assert.match(await page.locator('#torus-tip').textContent(), /^channel \((3, 4\) \+x → \(4, 4|4, 4\) −x → \(3, 4)\)$/);
  const plain = await page.evaluate(() => document.getElementById('torus').toDataURL());
  await page.check('#show-coordinates');
  await drawn(page);
  assert.notEqual(await page.evaluate(() => document.getElementById('torus').toDataURL()), plain, 'coordinates printed');
  await page.mouse.move(0, 0);
  assert.equal(await page.locator('#torus-tip').isHidden(), true);
  assert.deepEqual(errors, []);
});
