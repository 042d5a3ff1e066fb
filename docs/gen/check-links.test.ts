// The built site's link check finds links to pages that do not exist and to anchors a page does not have, and
// accepts the forms VitePress writes (relative, absolute, directory index, clean URL, own-page anchor).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { checkSiteLinks } from './check-links.js';

function site(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docs-links-'));
  for (const [file, html] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), html);
  }
  return dir;
}

test('good links of every form pass', (t) => {
  const dir = site({
    'index.html': '<a href="/guides/tls.html#redirects">x</a><a href="./guides/">y</a><a href="guides/tls">z</a><a href="#top">t</a><h1 id="top"></h1>',
    'guides/index.html': '<a href="../index.html">up</a><a href="tls.html#what-is-checked">w</a><a href="https://example.com/#nothing">ext</a>',
    'guides/tls.html': '<h2 id="redirects"></h2><h2 id="what-is-checked"></h2>',
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const result = checkSiteLinks(dir);
  t.deepEqual(result.problems, []);
  t.is(result.pages, 3);
  t.is(result.links, 6);
});

test('a missing page and a missing anchor are reported with the page they are on', (t) => {
  const dir = site({
    'index.html': '<a href="/guides/gone.html">gone</a><a href="/guides/tls.html#renamed-section">old anchor</a><a class="x" href="#nowhere">self</a>',
    'guides/tls.html': '<h2 id="redirects"></h2>',
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.deepEqual(checkSiteLinks(dir).problems, [
    { page: 'index.html', href: '/guides/gone.html', problem: 'no such page' },
    { page: 'index.html', href: '/guides/tls.html#renamed-section', problem: 'no such anchor' },
    { page: 'index.html', href: '#nowhere', problem: 'no such anchor' },
  ]);
});
