// Writes dist/torus-explorer.html: the page as one self-contained file that works when opened
// from file:// (no module fetches, no wasm fetch). The page's modules and the wasm-bindgen glue
// are bundled with esbuild into one inline module script; the worker's bundle and the wasm (as
// base64) ride along in globalThis.__torusDist, which www/js/wasm-loader.js reads. The
// Content-Security-Policy allows exactly these inline scripts and style by hash.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const www = join(root, 'www');
const out = join(root, 'dist', 'torus-explorer.html');

async function bundle(entry) {
  const result = await build({
    entryPoints: [join(www, 'js', entry)],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    target: 'es2022',
    logLevel: 'error',
  });
  return result.outputFiles[0].text;
}

// Inline script text must not close its <script> element early.
const scriptSafe = (js) => js.replace(/<\/(script)/gi, '<\\/$1');
const hash = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const page = scriptSafe(await bundle('main.js'));
const worker = await bundle('worker.js');
const wasm = readFileSync(join(www, 'pkg', 'torus_explorer_bg.wasm')).toString('base64');
const data = `globalThis.__torusDist=${JSON.stringify({ wasm, worker }).replace(/</g, '\\u003c')};`;
const css = [join(www, 'vendor', 'uPlot.min.css'), join(www, 'css', 'explorer.css')]
  .map((f) => readFileSync(f, 'utf8')).join('\n');

const csp = [
  "default-src 'none'",
  `script-src ${hash(data)} ${hash(page)} 'wasm-unsafe-eval'`,
  `style-src ${hash(css)}`,
  'img-src data: blob:',
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let html = readFileSync(join(www, 'index.html'), 'utf8');
const replace = (pattern, text) => {
  if (!pattern.test(html)) throw new Error(`index.html no longer matches ${pattern}`);
  html = html.replace(pattern, () => text);
};
replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, `<meta http-equiv="Content-Security-Policy" content="${csp}">`);
replace(/<link rel="stylesheet" href="vendor\/uPlot\.min\.css">\n<link rel="stylesheet" href="css\/explorer\.css">/, `<style>${css}</style>`);
replace(/<script type="module" src="js\/main\.js"><\/script>/, `<script>${data}</script>\n<script type="module">${page}</script>`);

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`    ${out}: ${(html.length / 1024).toFixed(0)} KiB (wasm ${(wasm.length * 0.75 / 1024).toFixed(0)} KiB)`);
