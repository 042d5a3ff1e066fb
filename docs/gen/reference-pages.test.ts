// The generated reference pages are committed; these tests fail when one differs from what the code gives now
// (`npm run docs:gen` rewrites them), and count each page's entries against the code, independently of the
// generator, so that no flag, annotation, ConfigMap key, metric, Helm value or reason can be missing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { metricNames } from '../../cli/metrics.js';
import { ServiceIngressReason } from '../../controller/service-ingress/plan.js';
import { Annotation } from '../../controller/translate/ingress/annotations.js';
import { nginxAnnotationCatalog } from '../../controller/translate/ingress/nginx/catalog.js';
import { nginxConfigMapKeys } from '../../controller/translate/ingress/nginx/nginx-configmap-keys.js';
import { GatewayReason, Reason } from '../../controller/translate/shared/reasons.js';
import { findRepoRoot } from '../../test/harness/repo-root.js';
import { loadProgram } from './cli-reference.js';
import { registeredMetrics } from './metrics-reference.js';
import { generateReferencePages, referencePages } from './reference-pages.js';

const root = findRepoRoot();
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

/** The first cell of every table row of a Markdown text, without its backticks. */
function firstCells(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('|---'))
    .map((l) => (l.split(' | ')[0] ?? '').slice(2).trim())
    .filter((c) => c.startsWith('`'))
    .map((c) => c.replace(/^`+|`+$/g, ''));
}

/** Markdown sections by `## ` heading. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of markdown.split(/\n(?=## )/).slice(1)) out.set((part.split('\n')[0] ?? '').slice(3).trim(), part);
  return out;
}

test('every committed reference page is what the code generates now (npm run docs:gen rewrites them)', async (t) => {
  const generated = await generateReferencePages(root);
  t.is(generated.size, Object.keys(referencePages).length);
  for (const [file, content] of generated) {
    t.is(read(file), content, `${file} is out of date: run npm run docs:gen and commit it`);
  }
});

test('the CLI reference has one row per flag of each command', async (t) => {
  const program = await loadProgram();
  const bySection = sections(read('docs/reference/cli.md'));
  t.is(bySection.size, program.commands.length, 'one section per command');
  let total = 0;
  for (const cmd of program.commands) {
    const rows = firstCells(bySection.get(cmd.name()) ?? '');
    t.deepEqual(rows, cmd.options.map((o) => o.flags), `flags of ${cmd.name()}`);
    total += rows.length;
  }
  // run, render, validate, explain, migrate-check, bootstrap, drain-envoy: well over a hundred flags together.
  t.true(total > 100, `${total} flags`);
  t.log(`${program.commands.length} commands, ${total} flags`);
});

test('the annotations reference has one row per annotation the controller reads', (t) => {
  const rows = firstCells(read('docs/reference/annotations.md'));
  t.deepEqual(rows, Object.values(Annotation));
  t.log(`${rows.length} annotations`);
});

test('the ingress-nginx annotations reference has one row per catalog entry', (t) => {
  const rows = firstCells(read('docs/reference/nginx-annotations.md'));
  t.deepEqual([...rows].sort(), Object.keys(nginxAnnotationCatalog).sort());
  t.log(`${rows.length} ingress-nginx annotations`);
});

test('the ConfigMap reference has one row per key, under its status', (t) => {
  const bySection = sections(read('docs/reference/nginx-configmap.md'));
  const keys = Object.entries(nginxConfigMapKeys);
  t.deepEqual(firstCells(bySection.get('Honoured') ?? '').sort(), keys.filter(([, k]) => k.status === 'honoured').map(([n]) => n).sort());
  t.deepEqual(firstCells(bySection.get('Ignored') ?? '').sort(), keys.filter(([, k]) => k.status === 'ignored').map(([n]) => n).sort());
  t.log(`${keys.length} ConfigMap keys`);
});

test('the metrics reference has one row per registered metric, with its type and labels', (t) => {
  const page = read('docs/reference/metrics.md');
  const registered = registeredMetrics();
  t.deepEqual(firstCells(page).sort(), registered.map((m) => m.name).sort());
  for (const name of Object.values(metricNames)) t.true(registered.some((m) => m.name === name), `${name} is registered`);
  for (const m of registered) {
    const row = page.split('\n').find((l) => l.startsWith(`| \`${m.name}\` |`)) ?? '';
    const [, type = '', labels = ''] = row.split(' | ');
    t.is(type, m.type, m.name);
    t.deepEqual([...labels.matchAll(/`([^`]+)`/g)].map((x) => x[1]), m.labels, m.name);
  }
  t.log(`${registered.length} metrics, ${Object.values(metricNames).length} of them ours`);
});

test('the Helm values reference has one row per value of values.yaml', (t) => {
  // Leaves read with the plain parser, not the generator's document walk: scalars, lists and empty maps.
  const leaves = (value: unknown, prefix: string): string[] =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0
      ? Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k))
      : [prefix];
  const expected = leaves(parse(read('deploy/helm/envoy-ingress/values.yaml')), '');
  t.deepEqual(firstCells(read('docs/reference/helm-values.md')), expected);
  t.log(`${expected.length} Helm values`);
});

test('the reasons reference has one row per reason', (t) => {
  const rows = firstCells(read('docs/reference/reasons.md'));
  t.deepEqual(rows, [...Object.values(Reason), ...Object.values(GatewayReason), ...Object.values(ServiceIngressReason)]);
  t.log(`${rows.length} reasons`);
});
