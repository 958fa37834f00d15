// Every preset loads from the menu with its explanation, exactly when the native CLI accepts its
// scenario; a preset naming a feature this build lacks shows the CLI's own error instead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, launch, openPage, hash, ROOT } from './harness.mjs';

const TORUS = join(ROOT, 'target', 'release', 'torus');

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

test('presets load with their explanations, as the CLI accepts them', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  const presets = await page.evaluate(() => window.torusExplorer.presets());
  assert.ok(presets.length >= 10, 'classroom and seed presets');
  let loaded = 0;
  for (let i = 0; i < presets.length; i++) {
    const { title, scenario } = presets[i];
    // The CLI validates the same string; a one-cycle run keeps this quick.
    const quick = new URLSearchParams(scenario);
    quick.set('warmup', '0');
    quick.set('cycles', '1');
    const cli = spawnSync(TORUS, ['run', quick.toString()], { encoding: 'utf8' });
    await page.selectOption('#preset', String(i));
    const shown = await page.evaluate(() => ({
      title: document.getElementById('preset-title').textContent,
      text: document.getElementById('preset-text').textContent,
      error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
    }));
    assert.equal(shown.title, title);
    assert.ok(shown.text.length > 150, `${title} has a paragraph`);
    if (cli.status === 0) {
      assert.equal(shown.error, null, `${title} loads`);
      const h = new URLSearchParams(await hash(page));
      for (const [key, value] of new URLSearchParams(scenario)) assert.equal(h.get(key), value, `${title}: ${key}`);
      loaded++;
    } else {
      const message = cli.stderr.trim().replace(/^torus: /, '');
      assert.ok(shown.error && shown.error.includes(message), `${title}: page shows "${message}", got "${shown.error}"`);
    }
  }
  assert.ok(loaded >= 4, `at least the DOR/MIN AD/Duato presets load (${loaded})`);
  assert.deepEqual(errors, []);
});
