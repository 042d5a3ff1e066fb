// README "Coming from ingress-nginx" lists every annotation of the catalog (controller/translate/nginx/catalog.ts)
// with the catalog's status, so the guide an ingress-nginx user reads cannot drift from what migrate-check says.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { nginxAnnotationCatalog, type NginxAnnotationStatus } from '../controller/translate/nginx/catalog.js';
import { findRepoRoot } from './harness/repo-root.js';

const readme = readFileSync(path.join(findRepoRoot(), 'README.md'), 'utf8');
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

const words: Record<NginxAnnotationStatus, string> = {
  supported: 'supported',
  'supported-with-difference': 'with difference',
  unsupported: 'unsupported',
  refused: 'refused',
};

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
