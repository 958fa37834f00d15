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

test('the lesson stays on screen while the reader changes controls, with a way back', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  const presets = await page.evaluate(() => window.torusExplorer.presets());
  const blocking = presets.findIndex((p) => p.title === 'Blocking and virtual channels');
  await page.selectOption('#preset', String(blocking));
  const original = await hash(page);
  const lesson = () => page.evaluate(() => ({
    shown: !document.getElementById('preset-info').hidden,
    title: document.getElementById('preset-title').textContent,
    changed: document.getElementById('preset-changed').hidden ? null : document.getElementById('preset-changed-keys').textContent,
    menu: document.getElementById('preset').value,
    claims: document.getElementById('preset-claims').textContent,
  }));
  let l = await lesson();
  assert.deepEqual([l.shown, l.title, l.changed, l.menu], [true, 'Blocking and virtual channels', null, String(blocking)]);
  assert.match(l.claims, /moderate load: 30–60 % of the simulated saturation rate/);
  // The paragraph asks the reader to raise the virtual channels: the lesson stays, marked.
  await page.locator('#key-vcs').fill('4');
  await page.locator('#key-vcs').dispatchEvent('change');
  l = await lesson();
  assert.deepEqual([l.shown, l.title, l.changed, l.menu], [true, 'Blocking and virtual channels', 'vcs=4', String(blocking)]);
  await page.click('#new-seed');
  assert.match((await lesson()).changed, /^vcs=4, seed=\d+$/);
  // Back to the preset: exactly its scenario again.
  await page.click('#preset-back');
  l = await lesson();
  assert.equal(l.changed, null);
  assert.equal(await hash(page), original);
  await page.click('#preset-close');
  assert.equal((await lesson()).shown, false);
  assert.equal((await lesson()).menu, '');
  assert.deepEqual(errors, []);
});

test('a preset sets every setting it depends on, and nothing leaks into the next', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  const presets = await page.evaluate(() => window.torusExplorer.presets());
  const find = (t) => String(presets.findIndex((p) => p.title.startsWith(t)));
  const settings = () => page.evaluate(() => ({
    speed: document.getElementById('speed-label').textContent,
    heat: document.getElementById('show-heat').checked,
    heatSource: document.getElementById('heat-source').value,
    lanes: document.getElementById('show-lanes').checked,
    coordinates: document.getElementById('show-coordinates').checked,
    pins: window.torusExplorer.pins().length,
    logY: window.torusExplorer.charts()[0].logY,
    simulations: window.torusExplorer.scenarios().length,
  }));
  await page.selectOption('#preset', find('Blocking and virtual channels'));
  const plain = await settings();
  assert.deepEqual({ ...plain, speed: plain.speed.replace(/ \(warm-up.*/, '') }, { speed: '63 cycles/s', heat: true, heatSource: 'measured', lanes: true, coordinates: false, pins: 0, logY: false, simulations: 1 });
  await page.selectOption('#preset', find('A deadlock forms'));
  assert.match((await settings()).speed, /^302 cycles\/s/);
  // The reader changes what a preset does not mention...
  await page.uncheck('#show-heat');
  await page.evaluate(() => {
    const source = document.getElementById('heat-source');
    source.value = 'predicted';
    source.dispatchEvent(new Event('change'));
  });
  await page.check('#show-coordinates');
  await page.click('#chart-latency button:has-text("log y")');
  await page.selectOption('#preset', find('Tornado: DOR against GOAL'));
  assert.equal((await settings()).pins, 1);
  // It runs GOAL beside DOR (compare mode); the next preset shows one torus again.
  assert.equal((await settings()).simulations, 2);
  assert.equal(await page.locator('#torus-label-b').textContent(), 'GOAL');
  // ... and the next preset starts from the page's defaults again.
  await page.selectOption('#preset', find('Blocking and virtual channels'));
  const again = await settings();
  assert.deepEqual({ ...again, speed: again.speed.replace(/ \(warm-up.*/, '') }, { ...plain, speed: '63 cycles/s' });
  // A preset that needs a view option sets it, and the next one resets it.
  await page.selectOption('#preset', find('One message on an idle network'));
  assert.match((await settings()).speed, /^14 cycles\/s/);
  assert.equal((await settings()).coordinates, true);
  await page.selectOption('#preset', find('Safaei et al. 2007 (Duato-Nbc)'));
  assert.equal((await settings()).coordinates, false);
  assert.deepEqual(errors, []);
});
