// Takes the README's screenshots of the served page at 1280×720 into docs/screenshots/.
// Usage: node scripts/screenshots.mjs  (after make wasm)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launch, openPage, ROOT } from '../tests/browser/harness.mjs';

const outDir = join(ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });
const server = await startServer();
const browser = await launch();

async function shot(name, hash, prepare) {
  const { page } = await openPage(browser.context, `${server.url}#${hash}`);
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

await shot('explorer-8x8-uniform', 'k=8&routing=dor&traffic=uniform&rate=0.025&len=16&seed=7&warmup=1000&cycles=20000', async (page) => {
  await warm(6000)(page);
  await page.waitForTimeout(8000);
});
await shot('router-panel', 'k=8&routing=dor&traffic=tornado&rate=0.03&len=16&seed=7', async (page) => {
  await warm(1500)(page);
  await page.locator('#torus').click({ position: { x: 150, y: 220 } });
});
await shot('bad-link', 'k=8&rate=banana', async () => {});
await shot('help', 'k=4&rate=0.02&seed=2', async (page) => {
  await warm(200)(page);
  await page.click('#help-toggle');
});

await browser.close();
server.stop();
