// migrate-check through the real CLI on realistic ingress-nginx Ingresses (testdata/nginx/*.yaml): the table and
// the JSON are golden files (testdata/nginx-report/; UPDATE_GOLDEN=1 rewrites them, review the diff), plus
// checks of the facts that matter, so a golden rewrite cannot silently lose them.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { nginxAnnotationCatalog } from '../controller/translate/ingress/nginx/catalog.js';
import type { MigrationReport } from '../controller/translate/ingress/nginx/migration-report.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { ingress, toYaml } from '../test/fixtures/manifests.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = path.join(root, 'dist/cli/main.js');
const manifests = path.join(root, 'testdata/nginx');
/** testdata/nginx/ingress-nginx-configmap.yaml */
const configMapFlag = ['--nginx-configmap', 'ingress-nginx/ingress-nginx-controller'];
const goldenDir = path.join(root, 'testdata/nginx-report');

async function migrateCheck(args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'migrate-check', ...args], { cwd: root });
    return { stdout, code: 0 };
  } catch (err: unknown) {
    const e = err as { stdout?: string; code?: number };
    return { stdout: e.stdout ?? '', code: e.code ?? -1 };
  }
}

function golden(t: import('ava').ExecutionContext, file: string, actual: string): void {
  const full = path.join(goldenDir, file);
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(full, actual);
  t.is(actual, readFileSync(full, 'utf8'), `${file} differs (UPDATE_GOLDEN=1 to rewrite, then review)`);
}

/** The annotations issue 7 lists, all of which the test data uses. */
const issueList = [
  'rewrite-target', 'use-regex', 'app-root', 'ssl-redirect', 'force-ssl-redirect', 'permanent-redirect', 'temporal-redirect',
  'backend-protocol', 'proxy-body-size', 'proxy-connect-timeout', 'proxy-read-timeout', 'proxy-send-timeout',
  'whitelist-source-range', 'allowlist-source-range', 'denylist-source-range', 'enable-cors', 'cors-allow-origin',
  'cors-allow-methods', 'cors-allow-headers', 'cors-allow-credentials', 'cors-max-age', 'affinity', 'session-cookie-name',
  'upstream-hash-by', 'canary', 'canary-weight', 'canary-by-header', 'canary-by-header-value', 'canary-by-cookie',
  'limit-rps', 'limit-connections', 'auth-type', 'auth-secret', 'auth-url', 'ssl-passthrough', 'default-backend',
  'custom-http-errors', 'x-forwarded-prefix', 'upstream-vhost', 'configuration-snippet', 'server-snippet', 'stream-snippet', 'auth-snippet',
];

const summaryShape =
  /^(\d+) Ingress(?:es)?, (\d+) nginx annotations?: (\d+) supported, (\d+) supported with a difference, (\d+) unsupported, (\d+) refused; (\d+) paths? would match differently -> (behaviour would change|nothing would change)$/;

/** What the table's own rows count: Ingress headings, annotation rows by their STATUS column, ROUTE lines. */
function countTableRows(stdout: string): Record<string, number> {
  const counts: Record<string, number> = { ingresses: 0, supported: 0, 'supported-with-difference': 0, unsupported: 0, refused: 0, routes: 0 };
  for (const line of stdout.split('\n')) {
    if (line.startsWith('Ingress ')) counts['ingresses']! += 1;
    else if (line.startsWith('  ROUTE ')) counts['routes']! += 1;
    else {
      const status = /^  \S+\s+(supported-with-difference|supported|unsupported|refused)(\s|$)/.exec(line)?.[1];
      if (status !== undefined) counts[status]! += 1;
    }
  }
  return counts;
}

test('table output on the test Ingresses: golden, exit code 1, a summary line that adds up the rows above it', async (t) => {
  const { stdout, code } = await migrateCheck(['--manifests', manifests, ...configMapFlag]);
  t.is(code, 1, 'something would change');
  golden(t, 'migrate-check.txt', stdout);
  // The last line is the summary; its numbers are those of the rows (the exact text is in the golden).
  const lines = stdout.trimEnd().split('\n');
  const match = summaryShape.exec(lines.at(-1) ?? '');
  if (match === null) return t.fail(`summary line has an unexpected shape: ${lines.at(-1)}`);
  const [ingresses, annotations, supported, withDifference, unsupported, refused, routes] = match.slice(1, 8).map(Number) as number[];
  const rows = countTableRows(stdout);
  t.deepEqual(
    { ingresses, supported, withDifference, unsupported, refused, routes },
    { ingresses: rows['ingresses'], supported: rows['supported'], withDifference: rows['supported-with-difference'], unsupported: rows['unsupported'], refused: rows['refused'], routes: rows['routes'] },
  );
  t.is(annotations, supported! + withDifference! + unsupported! + refused!, 'every annotation has exactly one status');
  t.true(ingresses! >= 10 && annotations! >= issueList.length, 'the test data is the realistic set, not an empty directory');
  // Not everything plainly supported (and route changes) -> "would change", matching the exit code.
  t.is(match[8], annotations !== supported || routes! > 0 ? 'behaviour would change' : 'nothing would change');
  t.is(match[8] === 'behaviour would change', code === 1);
  // The JSON summary says the same.
  const json = JSON.parse((await migrateCheck(['--manifests', manifests, ...configMapFlag, '--output', 'json'])).stdout) as MigrationReport;
  t.deepEqual(json.summary, { ingresses, annotations, supported, supportedWithDifference: withDifference, unsupported, refused, routeChanges: routes, changes: true });
});

test('JSON output: golden; every issue-listed annotation classified; route change rules found', async (t) => {
  const { stdout, code } = await migrateCheck(['--manifests', manifests, ...configMapFlag, '--output', 'json']);
  t.is(code, 1);
  golden(t, 'migrate-check.json', stdout);
  const report = JSON.parse(stdout) as MigrationReport;
  // The ConfigMap: every key it sets, honoured, invalid (default kept) or ignored with the reason.
  const keys = new Map(report.configMap?.keys.map((k) => [k.key, k]));
  t.is(keys.size, 16);
  t.is(keys.get('proxy-body-size')?.status, 'honoured');
  t.is(keys.get('proxy-connect-timeout')?.status, 'invalid', '"10s" is not a whole number of seconds');
  t.regex(keys.get('proxy-connect-timeout')?.note ?? '', /default "5" is used/);
  t.is(keys.get('worker-processes')?.status, 'ignored');
  t.regex(keys.get('ssl-protocols')?.note ?? '', /Envoy's defaults/);
  t.true(report.configMap?.changes);
  const findings = report.ingresses.flatMap((i) => i.annotations.map((a) => ({ ...a, ingress: `${i.namespace}/${i.name}` })));
  for (const name of issueList) t.true(findings.some((f) => f.annotation === name), `${name} is in the test data and the report`);
  const status = (ingressName: string, annotation: string) => findings.find((f) => f.ingress === ingressName && f.annotation === annotation)?.status;
  t.is(status('shop/storefront', 'proxy-body-size'), 'supported');
  t.is(status('shop/storefront', 'proxy-read-timeout'), 'supported-with-difference');
  t.is(status('legacy/legacy', 'configuration-snippet'), 'refused');
  t.is(status('legacy/legacy', 'rewrite-target'), 'supported-with-difference', 'plain target');
  t.is(status('default/api', 'rewrite-target'), 'supported-with-difference', 'capture groups');
  t.is(status('default/api', 'use-regex'), 'supported-with-difference');
  t.is(status('legacy/legacy', 'app-root'), 'supported');
  t.is(status('legacy/maintenance', 'backend-protocol'), 'unsupported', 'FCGI');
  t.is(status('legacy/maintenance', 'grpc-backend'), 'unsupported', 'unknown annotation');
  const changes = report.ingresses.flatMap((i) => i.routeChanges.map((c) => `${c.rule} ${c.host} ${c.pathType} ${c.path}`));
  // The paths of api.example.com and legacy.example.com (use-regex / rewrite-target) are regexes here too, and
  // old.example.com's ImplementationSpecific /docs/ a character prefix: every path matches as in ingress-nginx.
  // What changes is where auth-url may point: an outside host and another namespace's Service are refused here.
  t.deepEqual(changes, ['UrlTargetOutsideNamespace old.example.com ImplementationSpecific /docs/', 'UrlTargetOutsideNamespace grafana.example.com Prefix /']);
  t.true(report.summary.changes);
});

test('only supported annotations and spec path types: exit code 0, "nothing would change"', async (t) => {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const supported = Object.entries(nginxAnnotationCatalog).filter(([, e]) => e.status === 'supported').map(([name]) => name);
  t.true(supported.includes('proxy-body-size'));
  await writeFile(
    path.join(dir.path, 'ok.yaml'),
    toYaml([
      ingress('ok', {
        annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '8m', 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' },
        rules: [{ host: 'ok.test', paths: [{ path: '/app', service: 'web' }] }],
      }),
    ]),
  );
  const { stdout, code } = await migrateCheck(['--manifests', dir.path]);
  t.is(code, 0, stdout);
  t.regex(stdout, /^1 Ingress, 2 nginx annotations: 2 supported, 0 supported with a difference, 0 unsupported, 0 refused; 0 paths would match differently -> nothing would change$/m);
});
