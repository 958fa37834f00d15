// torusExplorer.run() in the page gives the same statistics as the native CLI, bit for bit
// (every field of `torus run` but wall_seconds).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, ROOT } from './harness.mjs';

const TORUS = join(ROOT, 'target', 'release', 'torus');
const SCENARIOS = [
  'k=4&routing=dor&traffic=uniform&rate=0.02&len=8&warmup=300&cycles=3000&seed=5',
  'k=8&routing=minad&traffic=tornado&rate=0.012&len=16&warmup=500&cycles=4000&seed=9',
  'k=6&routing=duato&traffic=transpose&rate=0.05&len=4&vcs=4&buf=2&warmup=200&cycles=3000&seed=123456789012345',
  'k=6&routing=duato&switching=scouting&scout=2&traffic=uniform&rate=0.015&len=8&warmup=200&cycles=2000&seed=4',
  'k=4&routing=duato&traffic=uniform&beta=0.05&rate=0.01&len=4&vcs=4&warmup=200&cycles=2000&seed=6',
  // The automatic warm-up and window decide the same cycles in both builds.
  'k=4&routing=dor&traffic=uniform&rate=0.04&len=4&warmup=auto&cycles=auto&ci=0.05&seed=2',
  // A small source-queue cap throttles the offered load.
  'k=4&routing=dor&traffic=tornado&rate=0.3&len=4&qcap=3&warmup=200&cycles=1500&seed=3',
];

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

for (const scenario of SCENARIOS) {
  test(`page run() equals torus run for ${scenario}`, async () => {
    const native = JSON.parse(execFileSync(TORUS, ['run', scenario], { encoding: 'utf8' }));
    assert.equal(typeof native.wall_seconds, 'number');
    delete native.wall_seconds;
    const { page, errors } = await openPage(browser.context, `${server.url}#${scenario}`);
    await page.evaluate(() => window.torusExplorer.pause());
    const inPage = await page.evaluate(() => window.torusExplorer.run());
    assert.ok(native.messages_measured > 0, 'the scenario measures messages');
    assert.deepEqual(inPage, native);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
