// Shared set-up for the browser tests: a static server for www/ on a free port (checked to be
// up before use), headless Debian Chromium through playwright-core, and console-error capture.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST_URL = pathToFileURL(join(ROOT, 'dist', 'torus-explorer.html')).href;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// python3 -m http.server on port 0 picks a free port and prints it.
export async function startServer() {
  const proc = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', join(ROOT, 'www')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 10000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url);
      if (r.ok) break;
    } catch (err) {
      if (i > 50) throw new Error(`server at ${url} never answered: ${err.message}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => proc.kill() };
}

export async function launch(extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'torus-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 720 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Opens a page and records every console error and uncaught exception.
export async function openPage(context, url, { reducedMotion } = {}) {
  const page = await context.newPage();
  if (reducedMotion) await page.emulateMedia({ reducedMotion });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await ready(page);
  return { page, errors };
}

export async function ready(page) {
  await page.waitForFunction(() => window.torusExplorer !== undefined || !document.getElementById('error').hidden, null, { timeout: 30000 });
}

export async function canvasPixels(page) {
  return page.evaluate(() => document.getElementById('torus').toDataURL());
}

// A point on a worm of the canvas `id`, in the canvas's CSS pixels (for a click), or null: the
// middle one of the pixels in the first message colour (Okabe–Ito orange), which no other
// drawing uses (the heat is grey).
export async function wormPoint(page, id = 'torus') {
  return page.evaluate((canvasId) => {
    const c = document.getElementById(canvasId);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const hits = [];
    for (let i = 0; i < d.length; i += 4) if (d[i] === 0xe6 && d[i + 1] === 0x9f && d[i + 2] === 0x00) hits.push(i / 4);
    if (hits.length === 0) return null;
    const p = hits[hits.length >> 1];
    const r = c.getBoundingClientRect();
    return { x: (p % c.width) * (r.width / c.width), y: Math.floor(p / c.width) * (r.height / c.height) };
  }, id);
}

export async function hash(page) {
  return page.evaluate(() => decodeURIComponent(location.hash.slice(1)));
}
