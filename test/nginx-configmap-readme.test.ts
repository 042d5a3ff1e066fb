// The guide "The ingress-nginx ConfigMap" (docs/guides/ingress-nginx-configmap.md) lists every ConfigMap key the
// controller honours (and no other), so the guide cannot drift from controller/translate/ingress/nginx/nginx-configmap-keys.ts, which migrate-check reports from.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { nginxConfigMapKeys } from '../controller/translate/ingress/nginx/nginx-configmap-keys.js';
import { findRepoRoot } from './harness/repo-root.js';

const guide = readFileSync(path.join(findRepoRoot(), 'docs/guides/ingress-nginx-configmap.md'), 'utf8');
const start = guide.indexOf('# The ingress-nginx ConfigMap');
const section = guide.slice(start);

test('the guide\'s table names exactly the honoured ConfigMap keys', (t) => {
  t.true(start >= 0, 'the guide has its title');
  const named = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    // The first column: keys, each with ingress-nginx's default in parentheses.
    .flatMap((line) => [...(line.split('|')[1] ?? '').replace(/\([^)]*\)/g, '').matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1] ?? ''));
  const honoured = Object.entries(nginxConfigMapKeys).filter(([, e]) => e.status === 'honoured').map(([key]) => key);
  t.deepEqual([...new Set(named)].sort(), honoured.sort());
});
