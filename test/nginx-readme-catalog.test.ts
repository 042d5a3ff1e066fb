// README "Coming from ingress-nginx" lists every annotation of the catalog (controller/translate/ingress/nginx/catalog.ts)
// with the catalog's status, so the guide an ingress-nginx user reads cannot drift from what migrate-check says:
// its table of every annotation is generated from the catalog (UPDATE_GOLDEN=1 rewrites it), and the catalog covers
// every annotation of ingress-nginx's annotations page.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { nginxAnnotationCatalog } from '../controller/translate/ingress/nginx/catalog.js';
import { nginxCatalogMarkdownTable, readmeStatusWords as words } from '../controller/translate/ingress/nginx/catalog-markdown.js';
import { findRepoRoot } from './harness/repo-root.js';
import { ingressNginxAnnotationsPage } from './fixtures/ingress-nginx-annotations-page.js';
import { ingressNginxSourcesAvailable, readIngressNginxFile } from './fixtures/ingress-nginx-sources.js';

const readmePath = path.join(findRepoRoot(), 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const section = readme.slice(readme.indexOf('## Coming from ingress-nginx'), readme.indexOf('\n## ', readme.indexOf('## Coming from ingress-nginx') + 3));

const annotationNames = (text: string): string[] => [...text.matchAll(/`([a-z0-9-]+)[`:]/g)].map((m) => m[1] ?? '');

/**
 * The guide's table rows: the annotation names of the first column (those in "(+ ...)" are companions of the
 * row's annotation, e.g. permanent-redirect-code: listed there, their own status may differ), the status column.
 */
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .map((line) => {
    const [, first = '', status = ''] = line.split('|');
    const companions = annotationNames([...first.matchAll(/\(\+[^)]*\)/g)].map((m) => m[0]).join(' '));
    const names = annotationNames(first.replace(/\(\+[^)]*\)/g, ''));
    return { names, companions, status: status.trim() };
  });

test('the guide is found and has its annotation table', (t) => {
  t.true(section.startsWith('## Coming from ingress-nginx'));
  t.true(rows.length >= 30, `${rows.length} rows`);
});

test('every catalog annotation has a row in the guide, with its status', (t) => {
  for (const [name, entry] of Object.entries(nginxAnnotationCatalog)) {
    const row = rows.find((r) => r.names.includes(name));
    if (row === undefined && rows.some((r) => r.companions.includes(name))) continue;
    if (row === undefined) {
      t.fail(`${name} (${entry.status}) has no row in README "Coming from ingress-nginx"`);
      continue;
    }
    // A row may group statuses ("with difference / supported"); the catalog's must be among them.
    const statuses = row.status.split('/').map((s) => s.trim());
    t.true(statuses.includes(words[entry.status]), `${name}: README says "${row.status}", the catalog ${entry.status}`);
  }
});

test('the guide names no annotation the catalog does not know', (t) => {
  const known = new Set(Object.keys(nginxAnnotationCatalog));
  t.deepEqual(rows.flatMap((r) => [...r.names, ...r.companions]).filter((n) => !known.has(n)), []);
});

const tableStart = '<!-- nginx-annotation-table: generated from the catalog by test/nginx-readme-catalog.test.ts (UPDATE_GOLDEN=1) -->\n';
const tableEnd = '\n<!-- /nginx-annotation-table -->';

test('the README table of every annotation is the catalog', (t) => {
  const start = readme.indexOf(tableStart);
  const end = readme.indexOf(tableEnd, start);
  t.true(start >= 0 && end > start, 'the table markers are in README "Coming from ingress-nginx"');
  const expected = nginxCatalogMarkdownTable();
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(readmePath, `${readme.slice(0, start + tableStart.length)}${expected}${readme.slice(end)}`);
  t.is(readme.slice(start + tableStart.length, end), expected, 'README table differs from the catalog (UPDATE_GOLDEN=1 to rewrite, then review)');
});

test('every annotation of ingress-nginx\'s annotations page is in the catalog', (t) => {
  t.true(ingressNginxAnnotationsPage.length > 100);
  t.deepEqual(ingressNginxAnnotationsPage.filter((name) => !Object.hasOwn(nginxAnnotationCatalog, name)), []);
});

(ingressNginxSourcesAvailable ? test : test.skip)('the list of the annotations page is the page\'s', (t) => {
  const page = readIngressNginxFile('docs/user-guide/nginx-configuration/annotations.md');
  const named = [...new Set([...page.matchAll(/nginx\.ingress\.kubernetes\.io\/([a-z0-9-]+)/g)].map((m) => m[1] ?? ''))].sort();
  t.deepEqual([...ingressNginxAnnotationsPage].sort(), named);
});
