// The documentation site builds (VitePress fails on a dead link to a page), every internal link and anchor of
// the built HTML resolves, and headless Chromium renders the home page, a reference page and the chart page
// without a console error, and finds an annotation by name with the site's offline search.
import { spawn } from 'node:child_process';
import { access, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test from 'ava';
import { chromium, type Page } from 'playwright-core';
import { findRepoRoot } from '../../test/harness/repo-root.js';
import { checkSiteLinks } from './check-links.js';

const root = findRepoRoot();
const outDir = path.join(root, '.cache', `docs-site-test-${process.pid}`);

/** `vitepress build docs` into outDir, on the Node running the tests; its output on failure. */
function buildSite(): Promise<{ code: number | null; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules/vitepress/bin/vitepress.js'), 'build', 'docs', '--outDir', outDir], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output, seconds: (Date.now() - started) / 1000 }));
  });
}

const built = buildSite();
test.after.always(() => rm(outDir, { recursive: true, force: true }));

test.serial('the site builds, with no dead link', async (t) => {
  const { code, output, seconds } = await built;
  t.is(code, 0, output);
  t.log(`vitepress build: ${seconds.toFixed(1)} s`);
});

test.serial('every internal link of the built site reaches a page, and every anchor an id on it', async (t) => {
  t.is((await built).code, 0);
  const result = checkSiteLinks(outDir);
  t.deepEqual(result.problems, []);
  t.true(result.pages >= 35, `${result.pages} pages`);
  t.true(result.links > 1000, `${result.links} links`);
});

/** Serves outDir on loopback, as a static host would (directory -> index.html). */
async function serveSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.json': 'application/json' };
  const server = createServer((req, res) => {
    void (async () => {
      let file = path.join(outDir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      if (!file.startsWith(outDir)) file = outDir;
      if (file.endsWith('/')) file += 'index.html';
      try {
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end('not found');
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test.serial('Chromium renders the home, a reference and the chart page without console errors, and search finds an annotation', async (t) => {
  t.is((await built).code, 0);
  const executablePath = process.env['CHROMIUM_BIN'] ?? '/usr/bin/chromium';
  try {
    await access(executablePath);
  } catch {
    t.fail(`no Chromium at ${executablePath}: run scripts/ensure-chromium.sh (npm test does)`);
    return;
  }
  const site = await serveSite();
  t.teardown(site.close);
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  // Any request outside the local site would be a dependency on the network: the site must work offline.
  const outside: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(site.url) && !r.url().startsWith('data:')) outside.push(r.url());
  });
  const open = async (p: Page, at: string): Promise<void> => {
    const response = await p.goto(`${site.url}${at}`, { waitUntil: 'networkidle' });
    t.is(response?.status(), 200, at);
  };

  await open(page, '/');
  t.regex(await page.locator('.VPHero .name').innerText(), /envoy-ingress/);
  t.true(await page.locator('.VPFeature').first().isVisible());

  await open(page, '/reference/annotations.html');
  t.regex(await page.locator('h1').first().innerText(), /^Annotations/);
  t.true(await page.locator('table tr', { hasText: 'envoy-ingress.io/rewrite-prefix' }).first().isVisible());

  await open(page, '/performance/');
  for (const id of ['apply-vs-contour', 'apply-vs-routes', 'memory-by-size', 'memory-vs-contour']) {
    const chart = page.locator(`#chart-${id} svg`);
    t.true(await chart.isVisible(), id);
    t.true((await chart.locator('rect').count()) >= 4, `${id} has bars`);
    const box = await chart.boundingBox();
    t.true(box !== null && box.width > 300 && box.height > 100, `${id} is drawn at a readable size`);
  }

  // The search box (MiniSearch over an index built into the site): an annotation by its name.
  await page.locator('.VPNavBarSearch button').first().click();
  await page.locator('.VPLocalSearchBox input').fill('rewrite-prefix');
  const hit = page.locator('.VPLocalSearchBox .results a[href*="reference/annotations"]').first();
  await hit.waitFor({ timeout: 10_000 });
  // The detailed view shows each hit's text: the annotation itself, not only its page's title.
  await page.locator('.VPLocalSearchBox .toggle-layout-button').click();
  await page.locator('.VPLocalSearchBox .results .excerpt').first().waitFor({ timeout: 10_000 });
  t.regex(await hit.innerText(), /rewrite-prefix/);
  await hit.click();
  await page.waitForURL(/reference\/annotations/);

  t.deepEqual(errors, []);
  t.deepEqual(outside, []);
});
