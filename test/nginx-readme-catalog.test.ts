// The guide "Coming from ingress-nginx" (docs/guides/coming-from-ingress-nginx.md) and the reference page of every
// ingress-nginx annotation (docs/reference/nginx-annotations.md) list every annotation of the catalog
// (controller/translate/ingress/nginx/catalog.ts) with the catalog's status, so what an ingress-nginx user reads cannot drift
// from what migrate-check says: the reference table is generated from the catalog (`npm run docs:gen`; the
// docs/gen/ reference test fails when it is out of date), and the catalog covers every annotation of ingress-nginx's
// annotations page.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { nginxAnnotationCatalog } from '../controller/translate/ingress/nginx/catalog.js';
import { nginxCatalogMarkdownTable, readmeStatusWords as words } from '../controller/translate/ingress/nginx/catalog-markdown.js';
import { findRepoRoot } from './harness/repo-root.js';
import { ingressNginxAnnotationsPage } from './fixtures/ingress-nginx-annotations-page.js';
import { ingressNginxSourcesAvailable, readIngressNginxFile } from './fixtures/ingress-nginx-sources.js';

const guide = readFileSync(path.join(findRepoRoot(), 'docs/guides/coming-from-ingress-nginx.md'), 'utf8');
const reference = readFileSync(path.join(findRepoRoot(), 'docs/reference/nginx-annotations.md'), 'utf8');
/** What the user reads: the guide's table of the mapped annotations and the reference table of every one. */
const section = `${guide}\n${reference}`;

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

test('the guide and the reference are found and have their annotation tables', (t) => {
  t.true(guide.startsWith('# Coming from ingress-nginx'));
  t.true(reference.includes('# ingress-nginx annotations'));
  t.true(rows.length >= 30, `${rows.length} rows`);
});

test('every catalog annotation has a row in the guide, with its status', (t) => {
  for (const [name, entry] of Object.entries(nginxAnnotationCatalog)) {
    const row = rows.find((r) => r.names.includes(name));
    if (row === undefined && rows.some((r) => r.companions.includes(name))) continue;
    if (row === undefined) {
      t.fail(`${name} (${entry.status}) has no row in the guide or the reference`);
      continue;
    }
    // A row may group statuses ("with difference / supported"); the catalog's must be among them.
    const statuses = row.status.split('/').map((s) => s.trim());
    t.true(statuses.includes(words[entry.status]), `${name}: the docs say "${row.status}", the catalog ${entry.status}`);
  }
});

test('the guide names no annotation the catalog does not know', (t) => {
  const known = new Set(Object.keys(nginxAnnotationCatalog));
  t.deepEqual(rows.flatMap((r) => [...r.names, ...r.companions]).filter((n) => !known.has(n)), []);
});

const tableStart = '<!-- nginx-annotation-table: generated from the catalog (controller/translate/ingress/nginx/catalog.ts) -->\n';
const tableEnd = '\n<!-- /nginx-annotation-table -->';

test('the reference table of every annotation is the catalog, one row per annotation in name order', (t) => {
  const start = reference.indexOf(tableStart);
  const end = reference.indexOf(tableEnd, start);
  t.true(start >= 0 && end > start, 'the table markers are in docs/reference/nginx-annotations.md');
  const table = reference.slice(start + tableStart.length, end).split('\n');
  const expected = nginxCatalogMarkdownTable().split('\n');
  t.is(table.length, expected.length, 'one row per catalog annotation (npm run docs:gen rewrites the page)');
  // Row for row the catalog's, with the HTML the site would misread escaped (the exact page: docs/gen's test).
  const unescape = (line: string): string => line.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&#123;', '{');
  t.deepEqual(table.map(unescape), expected);
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
