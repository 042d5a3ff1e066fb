// Checks the internal links of the built site: every link to a page of the site must reach a page that exists,
// and every #anchor one of its ids. VitePress's own build check covers pages only (it fails on a dead page link,
// not on a missing heading), so a section renamed or moved would leave links that land at the top of a page.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface LinkProblem {
  /** The page the link is on, relative to the site root (e.g. guides/debugging.html). */
  page: string;
  href: string;
  problem: 'no such page' | 'no such anchor';
}

const decodeEntities = (text: string): string =>
  text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>');

function htmlFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'assets' ? [] : htmlFiles(full, base);
    return e.name.endsWith('.html') ? [path.relative(base, full).split(path.sep).join('/')] : [];
  });
}

/** The page a site path names: /a/b.html, /a/b (clean URL), /a/ (its index.html). */
function pageOf(sitePath: string, pages: ReadonlySet<string>): string | undefined {
  const p = sitePath.replace(/^\//, '');
  const candidates = p === '' || p.endsWith('/') ? [`${p}index.html`] : [p, `${p}.html`, `${p}/index.html`];
  return candidates.find((c) => pages.has(c));
}

export function checkSiteLinks(siteDir: string): { pages: number; links: number; problems: LinkProblem[] } {
  const pages = htmlFiles(siteDir);
  const pageSet = new Set(pages);
  const ids = new Map<string, Set<string>>();
  const html = new Map<string, string>();
  for (const page of pages) {
    const text = readFileSync(path.join(siteDir, page), 'utf8');
    html.set(page, text);
    ids.set(page, new Set([...text.matchAll(/\s(?:id|name)="([^"]+)"/g)].map((m) => decodeEntities(m[1] ?? ''))));
  }
  const problems: LinkProblem[] = [];
  let links = 0;
  for (const page of pages) {
    for (const m of (html.get(page) ?? '').matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const href = decodeEntities(m[1] ?? '');
      // Other sites, mail, and the repository's own files (the site is served from docs/ alone) are not checked.
      if (href === '' || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue;
      links += 1;
      const [target = '', fragment] = href.split('#', 2);
      const resolved = target === '' ? `/${page}` : new URL(target, `http://site/${page}`).pathname;
      const targetPage = pageOf(decodeURIComponent(resolved), pageSet);
      if (targetPage === undefined) {
        problems.push({ page, href, problem: 'no such page' });
        continue;
      }
      if (fragment !== undefined && fragment !== '' && !ids.get(targetPage)?.has(decodeURIComponent(fragment))) {
        problems.push({ page, href, problem: 'no such anchor' });
      }
    }
  }
  return { pages: pages.length, links, problems };
}
