// Takes the README's screenshots of the served page at 1280×800 into docs/screenshots/.
// Usage: node scripts/screenshots.mjs  (after make wasm)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launch, openPage, ROOT } from '../tests/browser/harness.mjs';

const outDir = join(ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });
const server = await startServer();
const browser = await launch();

async function shot(name, hash, prepare, { width = 1280, height = 800 } = {}) {
  const { page } = await openPage(browser.context, `${server.url}#${hash}`);
  await page.setViewportSize({ width, height });
  await page.evaluate(() => window.torusExplorer.pause());
  await prepare(page);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(outDir, `${name}.png`) });
  console.log(`    docs/screenshots/${name}.png`);
  await page.close();
}

const warm = (cycles) => async (page) => {
  await page.evaluate((n) => window.torusExplorer.step(n), cycles);
};

// Until the background work is over: the sweep, the whole run, the pinned scenarios' sweeps.
async function settled(page) {
  await page.waitForFunction(() => {
    const t = window.torusExplorer;
    return t.sweepStatus().done != null && t.results().run != null && t.pins().every((p) => p.done);
  }, null, { timeout: 300000, polling: 250 });
}

// The page as a link without a scenario opens it.
await shot('explorer-8x8-uniform', '', async (page) => {
  await warm(3000)(page);
  await settled(page);
});
await shot('router-panel', 'k=8&routing=dor&traffic=tornado&rate=0.03&len=16&seed=7', async (page) => {
  await warm(1500)(page);
  await page.locator('#torus').click({ position: { x: 150, y: 220 } });
});
await shot('follow-message', 'k=8&routing=minad&traffic=uniform&rate=0.02&len=16&seed=5&warmup=500&cycles=20000', async (page) => {
  await warm(800)(page);
  await page.waitForTimeout(300);
  // Click the middle one of the canvas pixels in a worm colour (Okabe–Ito orange).
  const at = await page.evaluate(() => {
    const c = document.getElementById('torus');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const hits = [];
    for (let i = 0; i < d.length; i += 4) if (d[i] === 0xe6 && d[i + 1] === 0x9f && d[i + 2] === 0x00) hits.push(i / 4);
    const p = hits[hits.length >> 1];
    const r = c.getBoundingClientRect();
    return { x: (p % c.width) * (r.width / c.width), y: Math.floor(p / c.width) * (r.height / c.height) };
  });
  await page.locator('#torus').click({ position: at });
  for (let i = 0; i < 12; i++) {
    await page.evaluate(() => window.torusExplorer.step(1));
    await page.waitForTimeout(30);
  }
});
async function preset(page, title) {
  const index = await page.evaluate((t) => window.torusExplorer.presets().findIndex((p) => p.title === t), title);
  await page.selectOption('#preset', String(index));
  await page.evaluate(() => window.torusExplorer.pause());
}
await shot('preset-tornado', '', async (page) => {
  await preset(page, 'Tornado traffic defeats minimal routing');
  await warm(12000)(page);
  await settled(page);
});
await shot('preset-dor-goal-pinned', '', async (page) => {
  await preset(page, 'Tornado: DOR against GOAL');
  await warm(4000)(page);
  await settled(page);
});
// Past saturation: the live point and the saturated sweep points sit on the top edge; the
// tooltip gives the live point's value.
await shot('saturated', 'k=8&routing=adaptive&traffic=uniform&rate=0.045&len=16&warmup=1000', async (page) => {
  await warm(5000)(page);
  await settled(page);
  await page.waitForTimeout(400);
  const at = await page.evaluate(() => {
    const over = document.querySelector('#chart-latency .u-over').getBoundingClientRect();
    const [x0, x1] = window.torusExplorer.charts()[0].x;
    return { x: over.left + ((0.045 - x0) / (x1 - x0)) * over.width, y: over.top + 2 };
  });
  await page.mouse.move(at.x, at.y);
});
await shot('presentation', 'view=present', async (page) => {
  await warm(3000)(page);
  await settled(page);
});
await shot('preset-deadlock', '', async (page) => {
  await preset(page, 'A deadlock forms without escape channels');
  await page.waitForFunction(() => { window.torusExplorer.step(100); return window.torusExplorer.stats().deadlock; }, null, { polling: 50, timeout: 60000 });
});
await shot('preset-seed002-model', '', async (page) => {
  await preset(page, 'Quaglia et al. 2002: minimal fully adaptive routing, 8×8, 12 flits');
  await warm(12000)(page);
  await settled(page);
});
// The torus view column alone (canvas, legend and panels below it), for the overlays.
async function viewShot(name, hash, prepare) {
  const { page } = await openPage(browser.context, `${server.url}#${hash}`);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.evaluate(() => window.torusExplorer.pause());
  await prepare(page);
  await page.waitForTimeout(400);
  await page.locator('section.view').screenshot({ path: join(outDir, `${name}.png`) });
  console.log(`    docs/screenshots/${name}.png`);
  await page.close();
}
const heatOff = async (page) => {
  await page.uncheck('#show-heat');
};
await viewShot('deadlock-cycle', '', async (page) => {
  await preset(page, 'A deadlock forms without escape channels');
  await page.waitForFunction(() => { window.torusExplorer.step(100); return window.torusExplorer.stats().deadlock; }, null, { polling: 50, timeout: 60000 });
});
await viewShot('vc-classes-duato', 'k=4&routing=duato&traffic=uniform&rate=0.03&len=16&vcs=4&buf=4&seed=3', async (page) => {
  await heatOff(page);
  await warm(400)(page);
});
await viewShot('scouting-backtracks', 'k=8&routing=duato&switching=scouting&scout=3&traffic=uniform&rate=0.03&len=16&seed=5', async (page) => {
  await heatOff(page);
  // One cycle at a time until a backtrack has just happened, so that its mark is on screen.
  for (let i = 0; i < 5000; i++) {
    await page.evaluate(() => window.torusExplorer.step(1));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if ((await page.evaluate(() => window.torusExplorer.overlays().backtracks.length)) > 1) break;
  }
});
// Faults: DOR's worms stuck at four failed links, and scouting switching going round them.
await viewShot('faults-dor-stuck', '', async (page) => {
  await preset(page, 'Faults stop dimension-order routing');
  await heatOff(page);
  await warm(3000)(page);
});
await viewShot('faults-scouting', '', async (page) => {
  await preset(page, 'Scouting switching routes round the faults');
  await heatOff(page);
  await warm(3000)(page);
});
// Compare mode: one VC without a dateline deadlocked beside two VCs going on.
await viewShot('compare-one-vc-two', '', async (page) => {
  await preset(page, 'one VC without a dateline against two');
  await heatOff(page);
  await page.waitForFunction(() => { window.torusExplorer.step(100); return window.torusExplorer.stats().deadlock; }, null, { polling: 50, timeout: 60000 });
});
await viewShot('broadcast-tree', 'k=8&routing=duato&traffic=uniform&beta=0.04&rate=0.003&len=32&vcs=4&seed=4', async (page) => {
  await heatOff(page);
  await warm(300)(page);
  await page.evaluate(() => window.torusExplorer.selectNode(27));
});
await viewShot('chaos-bitcomp', '', async (page) => {
  await preset(page, 'Chaos deflects instead of using virtual channels');
  await warm(3000)(page);
});
await shot('bad-link', 'k=8&rate=banana', async () => {});
await shot('help', 'k=4&rate=0.02&seed=2', async (page) => {
  await warm(200)(page);
  await page.click('#help-toggle');
});

await browser.close();
server.stop();
