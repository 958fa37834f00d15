// The URL hash always holds the canonical scenario: every control changes it, a reload restores
// it, and a bad or hostile link shows a readable error, keeps a good scenario and injects nothing.
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

const valueOf = (h, key) => new URLSearchParams(h).get(key);
// As the hash spells it: a form decoder would read the `+` of a router organisation as a space.
const rawValueOf = (h, key) => (new RegExp(`(?:^|[#&])${key}=([^&]*)`).exec(h) || [])[1];

// key → [how to set the control, the value the hash must then carry]
const EDITS = [
  ['k', '6'], ['traffic', 'tornado'], ['rate', '0.0125'], ['len', '8'], ['buf', '2'],
  ['seed', '98765432109876543'], ['warmup', 'auto'], ['cycles', '4000'], ['vcs', '3'],
  ['routing', 'minad'], ['unsafe', '1'], ['switching', 'scouting'], ['scout', '2'], ['beta', '0.02'],
  ['qcap', '50'], ['ci', '0.05'], ['rng', '2'], ['inject', 'onoff:20-80'],
];

test('every control changes the hash, and a reload restores every control', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  // The load entered as the rate key itself (messages/node/cycle).
  await page.locator('#rate-unit').selectOption('messages');
  const before = await hash(page);
  for (const key of ['k', 'n', 'routing', 'switching', 'scout', 'traffic', 'rate', 'len', 'vcs', 'buf', 'beta', 'seed', 'warmup', 'cycles', 'unsafe', 'qcap', 'ci', 'router', 'lengths', 'rng', 'rdelay', 'ldelay', 'cdelay', 'hot', 'hotfrac', 'pseed', 'matrix', 'inject']) {
    assert.ok(valueOf(before, key) !== null, `the hash carries ${key}`);
    assert.equal(await page.locator(`#key-${key}`).count(), 1, `a control for ${key}`);
  }
  for (const [key, value] of EDITS) {
    const input = page.locator(`#key-${key}`);
    const tag = await input.evaluate((e) => (e.type === 'checkbox' ? 'checkbox' : e.tagName));
    if (tag === 'SELECT') await input.selectOption(value);
    else if (tag === 'checkbox') await input.check();
    else {
      await input.fill(value);
      await input.dispatchEvent('change');
    }
    const h = await hash(page);
    assert.equal(valueOf(h, key), value, `${key} reached the hash: ${h}`);
    assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true, `no error after setting ${key}`);
  }
  const edited = await hash(page);
  assert.equal(await page.evaluate(() => window.torusExplorer.scenario()), edited);
  await page.reload();
  await ready(page);
  assert.equal(await hash(page), edited, 'reload keeps the scenario');
  for (const [key, value] of EDITS) {
    const shown = await page.locator(`#key-${key}`).evaluate((e) => (e.type === 'checkbox' ? (e.checked ? '1' : '0') : e.value));
    assert.equal(shown, key === 'routing' || key === 'vcs' ? valueOf(edited, key) : value, `control ${key} restored`);
  }
  assert.deepEqual(errors, []);
});

test('the router organisation and the message lengths reach the hash, and chaos drops them', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  assert.equal(valueOf(await hash(page), 'router'), 'iq');
  assert.equal(valueOf(await hash(page), 'lengths'), 'fixed');
  const offered = await page.locator('#key-router option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(offered, ['iq', 'maxmatch', 'damq', 'speedup2', 'wide', 'damq+speedup2+wide']);
  await page.locator('#key-router').selectOption('damq+speedup2+wide');
  assert.equal(rawValueOf(await hash(page), 'router'), 'damq+speedup2+wide');
  // A uniform range sets the mean length itself.
  await page.locator('#key-lengths').fill('uniform:4-20');
  await page.locator('#key-lengths').dispatchEvent('change');
  let h = await hash(page);
  assert.equal(valueOf(h, 'lengths'), 'uniform:4-20');
  assert.equal(valueOf(h, 'len'), '12');
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true, `no error: ${h}`);
  await page.reload();
  await ready(page);
  assert.equal(await page.locator('#key-router').inputValue(), 'damq+speedup2+wide');
  assert.equal(await page.locator('#key-lengths').inputValue(), 'uniform:4-20');
  // A combination the menu does not list still shows, from a link.
  await page.goto(`${server.url}#k=8&routing=dor&router=wide%2Bmaxmatch`);
  await ready(page);
  assert.equal(await page.locator('#key-router').inputValue(), 'maxmatch+wide');
  // Chaos runs its own router with fixed lengths: choosing it resets both, without an error.
  await page.locator('#key-lengths').fill('geometric');
  await page.locator('#key-lengths').dispatchEvent('change');
  await page.locator('#key-routing').selectOption('chaos');
  h = await hash(page);
  assert.equal(valueOf(h, 'routing'), 'chaos');
  assert.equal(valueOf(h, 'router'), 'iq');
  assert.equal(valueOf(h, 'lengths'), 'fixed');
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true, `no error: ${h}`);
  assert.equal(await page.locator('#key-router').isVisible(), false, 'the control is hidden under chaos');
  assert.deepEqual(errors, []);
});

test('the router, link and credit delays reach the hash, and chaos drops them', async () => {
  const { page, errors } = await openPage(browser.context, server.url);
  for (const key of ['rdelay', 'ldelay', 'cdelay']) assert.equal(valueOf(await hash(page), key), '0');
  for (const [key, value] of [['rdelay', '2'], ['ldelay', '1'], ['cdelay', '3']]) {
    await page.locator(`#key-${key}`).fill(value);
    await page.locator(`#key-${key}`).dispatchEvent('change');
    assert.equal(valueOf(await hash(page), key), value);
  }
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true);
  await page.reload();
  await ready(page);
  assert.deepEqual(await Promise.all(['rdelay', 'ldelay', 'cdelay'].map((k) => page.locator(`#key-${k}`).inputValue())), ['2', '1', '3']);
  // Out of range: the parser's one-line error.
  await page.locator('#key-rdelay').fill('40');
  await page.locator('#key-rdelay').dispatchEvent('change');
  assert.match(await errorText(page), /rdelay: must be an integer from 0 to 32/);
  await page.locator('#key-rdelay').fill('2');
  await page.locator('#key-rdelay').dispatchEvent('change');
  // Chaos has a router of its own: choosing it drops the delays, without an error.
  await page.locator('#key-routing').selectOption('chaos');
  const h = await hash(page);
  for (const key of ['rdelay', 'ldelay', 'cdelay']) assert.equal(valueOf(h, key), '0', h);
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true, `no error: ${h}`);
  assert.equal(await page.locator('#key-rdelay').isVisible(), false, 'the control is hidden under chaos');
  assert.deepEqual(errors, []);
});

test('the hot-spot and permutation options reach the hash; a traffic matrix says the page cannot read it', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}#k=8&traffic=hotspot&hot=9,40&hotfrac=0.3`);
  let h = await hash(page);
  assert.equal(valueOf(h, 'hot'), '9,40');
  assert.equal(valueOf(h, 'hotfrac'), '0.3');
  assert.equal(await page.locator('#key-hot').inputValue(), '9,40');
  // Another pattern drops them (they belong to the hot spot), without an error.
  await page.locator('#key-traffic').selectOption('permutation');
  h = await hash(page);
  assert.equal(valueOf(h, 'hot'), '');
  assert.equal(valueOf(h, 'hotfrac'), 'auto');
  await page.locator('#key-pseed').fill('77');
  await page.locator('#key-pseed').dispatchEvent('change');
  assert.equal(valueOf(await hash(page), 'pseed'), '77');
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true);
  // A traffic matrix lives in a file, which the page cannot read: it says so in one line.
  await page.goto(`${server.url}#k=4&traffic=matrix&matrix=weights.csv`);
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await errorText(page), /the page cannot read files/);
  assert.ok(!(await errorText(page)).includes('\n'));
  assert.deepEqual(errors, []);
});

test('a new seed changes only the seed', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=5&rate=0.01&seed=4`);
  const a = await hash(page);
  await page.click('#new-seed');
  const b = await hash(page);
  assert.notEqual(valueOf(b, 'seed'), valueOf(a, 'seed'));
  const strip = (h) => h.replace(/seed=\d+/, '');
  assert.equal(strip(b), strip(a));
  // The seed comes from the wasm build's getrandom (crypto.getRandomValues), as `seed=random`
  // in a link: the hash then spells the seed drawn, so the link repeats the run.
  assert.match(valueOf(b, 'seed'), /^\d+$/);
  const { page: drawn } = await openPage(browser.context, `${server.url}#k=5&rate=0.01&seed=random`);
  const c = await hash(drawn);
  assert.match(valueOf(c, 'seed'), /^\d+$/);
  assert.notEqual(valueOf(c, 'seed'), valueOf(b, 'seed'));
  assert.equal(strip(c), strip(a));
});

async function errorText(page) {
  return page.evaluate(() => {
    const e = document.getElementById('error');
    return e.hidden ? null : e.textContent;
  });
}

test('a bad link names the key, and the default scenario runs instead', async () => {
  const { page: fresh } = await openPage(browser.context, server.url);
  const defaults = await hash(fresh);
  for (const [link, key] of [['k=8&rate=banana', 'rate'], ['k=8&colour=red', 'colour'], ['k=99', 'k'], ['routing=dor&vcs=1', 'vcs']]) {
    const { page, errors } = await openPage(browser.context, `${server.url}#${link}`);
    const text = await errorText(page);
    assert.ok(text && text.includes(key), `error for ${link} names ${key}: ${text}`);
    assert.equal(await hash(page), defaults, 'the hash holds the default scenario');
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('editing the hash to something bad keeps the running scenario', async () => {
  const { page } = await openPage(browser.context, `${server.url}#k=4&rate=0.02&seed=11`);
  const good = await hash(page);
  await page.evaluate(() => { location.hash = 'k=4&len=0'; });
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await errorText(page), /len/);
  assert.equal(await hash(page), good);
  assert.equal(await page.evaluate(() => window.torusExplorer.scenario()), good);
});

const HOSTILE = [
  'routing=<img src=x onerror="window.__pwned=1">',
  'k=8&routing=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E',
  'javascript:window.__pwned=1',
  'k=8&traffic=<svg/onload=window.__pwned=1>',
  'seed=💥&routing=dór&k=８',
  `k=8&routing=${'A'.repeat(1 << 20)}`,
  '%E0%A4%A',
  'k=8&&&==&=&rate=0.01',
];

test('hostile links inject nothing and leave a readable error', async () => {
  for (const link of HOSTILE) {
    const { page, errors } = await openPage(browser.context, `${server.url}#${link}`);
    let dialog = false;
    page.on('dialog', (d) => { dialog = true; d.dismiss(); });
    const text = await errorText(page);
    assert.ok(text && text.length < 2000, `a short readable error for ${link.slice(0, 60)}`);
    const injected = await page.evaluate(() => ({
      pwned: window.__pwned,
      elements: document.querySelectorAll('#error *:not(strong), img, svg, iframe, object, embed').length,
      inlineScripts: [...document.scripts].filter((s) => !s.src).length,
    }));
    assert.deepEqual(injected, { pwned: undefined, elements: 0, inlineScripts: 0 });
    assert.equal(dialog, false);
    assert.equal(await page.evaluate(() => typeof window.torusExplorer.scenario()), 'string');
    assert.deepEqual(errors, []);
    await page.close();
  }
});
