// ingress-nginx parity, end to end: every test/nginx-parity/*.yaml table is one test that runs the real controller
// (standalone mode, --nginx-annotations, an IngressClass `nginx` of ours) and a real Envoy, sends every row's
// request (method, headers, Host, path) and checks the status or answering Service, response headers, what the
// echo backend received and the body. Each row is one HTTP expectation of an ingress-nginx e2e Go test; a row that
// records a `difference` expects OUR answer and cites the catalog entry that documents it. Further tests hold the
// tables, the catalog (controller/translate/ingress/nginx/catalog.ts) and migrate-check together. Format:
// test/nginx-parity/README.md.
import test from 'ava';
import { defaultEdgeHardening } from '../envoy/edge-hardening.js';
import { runMigrateCheck } from '../cli/migrate-check-command.js';
import { nginxAnnotationCatalog, nginxAnnotationPrefix } from '../controller/translate/ingress/nginx/catalog.js';
import { createTempDir } from './harness/temp-dir.js';
import { ingressNginxSourcesAvailable, readIngressNginxFile } from './fixtures/ingress-nginx-sources.js';
import { createTestCA, type IssuedCertificate } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingressClass } from './fixtures/manifests.js';
import {
  describeRow,
  differenceProblems,
  differencesWithoutRows,
  parityTableFiles,
  parityTablesDir,
  readParityTable,
  rowMismatch,
  nginxConfigMapRef,
  rowsByConfigMap,
  rowSource,
  tableIngresses,
  type ParityRow,
  type ParityTable,
} from './fixtures/nginx-parity-tables.js';
import { secretOf } from './fixtures/semantics-cases.js';
import { startStack } from './fixtures/standalone-stack.js';
import { rejectedUpdates, startBackends, writeManifest, type Outcome } from './fixtures/table-requests.js';
import { sendRows, withListenerPorts } from './fixtures/parity-rows.js';

const tables = parityTableFiles.map((file) => ({ file, table: readParityTable(file) }));

for (const { file, table } of tables) {
  test(`${file}: ${table.title}`, async (t) => {
    t.timeout(180_000);
    const tmp = await createTempDir('nginx-parity-');
    t.teardown(() => tmp.remove());
    const ca = await createTestCA();
    // Client certificates that do not verify come from a CA nothing trusts.
    const untrusted = await createTestCA({ commonName: 'untrusted test CA' });
    const issued = new Map<string, IssuedCertificate>();
    for (const certificate of table.certificates ?? []) {
      const issuer = certificate.untrusted === true ? untrusted : ca;
      const extra = { ...(certificate.clientAuth === true ? { clientAuth: true } : {}), ...(certificate.commonName === undefined ? {} : { commonName: certificate.commonName }) };
      issued.set(certificate.name, await issuer.issue({ dnsNames: certificate.hosts, ...extra }));
    }
    const backends = await startBackends(t, table.services, { issued, ca });
    const secrets = (table.certificates ?? []).map((c) => secretOf(c, issued, ca.certPem));
    await writeManifest(tmp.path, 'backends.yaml', [ingressClass('nginx', true), ...backends.objects]);
    await writeManifest(tmp.path, 'objects.yaml', [...secrets, ...table.objects]);
    // Redirects to https name no port, as ingress-nginx's on 443 do; https rows still reach the test listener.
    const groups = rowsByConfigMap(table);
    const usesConfigMap = groups[0]?.data !== undefined;
    const writeConfigMap = (data: Record<string, string>): Promise<void> =>
      writeManifest(tmp.path, 'nginx-configmap.yaml', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...nginxConfigMapRef }, data }]);
    if (usesConfigMap) await writeConfigMap(groups[0]!.data!);
    const translate = { nginxAnnotations: true, ...table.options, ...(usesConfigMap ? { nginxConfigMap: { ...nginxConfigMapRef } } : {}) };
    const edge = table.edge === undefined ? {} : { edge: { ...defaultEdgeHardening, ...table.edge } };
    const stack = await startStack(t, { manifestsDir: tmp.path, httpsRedirectPort: 443, translate, ...edge });
    await stack.envoy.waitForListener('ingress_http');

    const check = async (rows: readonly ParityRow[]): Promise<string[]> => {
      const outcomes = await sendRows(stack, ca, rows, issued);
      return rows.flatMap((row, i) => {
        const problem = rowMismatch(withListenerPorts(row, stack), outcomes[i] as Outcome[]);
        return problem === undefined ? [] : [`${describeRow(row)}: ${problem}`];
      });
    };
    // The controller applies the files and Envoy the config in a moment: wait for the rows to agree, then check
    // them once more for the record. Rows under another ConfigMap follow once it is written (no restart).
    for (const [i, group] of groups.entries()) {
      if (i > 0 && group.data !== undefined) await writeConfigMap(group.data);
      let failures: string[] = [];
      await waitFor(
        async () => {
          failures = await check(group.rows);
          return failures.length === 0;
        },
        { timeoutMs: 20_000, intervalMs: 200, description: file },
      ).catch(() => undefined);
      failures = await check(group.rows);
      t.deepEqual(failures, [], `${file}: rows that do not hold${usesConfigMap ? ` (ConfigMap ${JSON.stringify(group.data)})` : ''}`);
    }
    t.deepEqual(await rejectedUpdates(stack), [], `${file}: Envoy rejected config`);
    const differences = table.requests.filter((r) => r.difference !== undefined).length;
    t.log(`${table.requests.length} rows as expected, ${differences} recording a difference`);
  });
}

test('there are parity tables, each row citing its Go test', (t) => {
  t.true(tables.length >= 1, `no table files in ${parityTablesDir}`);
  for (const { file, table } of tables) {
    t.true(typeof table.source === 'string' && table.source.endsWith('.go'), `${file}: source names no Go test file`);
    t.true(table.requests.length > 0, `${file}: no rows`);
    for (const row of table.requests) t.true(typeof row.source === 'string' && row.source !== '', `${file}: ${describeRow(row)} cites no Go test`);
  }
});

// Where the ingress-nginx sources are at hand, each cited It(...) text must be in the cited file (a cited
// internal/ file: the cited func), so a row cannot cite a test that does not exist.
(ingressNginxSourcesAvailable ? test : test.skip)('every cited Go test exists in ingress-nginx', (t) => {
  const missing = tables.flatMap(({ file, table }) =>
    table.requests
      .map((row) => rowSource(table, row))
      .filter(({ file: go, text }) => !readIngressNginxFile(go).includes(go.startsWith('internal/') ? `func ${text}(` : `"${text}"`))
      .map(({ file: go, text }) => `${file}: ${go}: "${text}"`),
  );
  t.deepEqual([...new Set(missing)], []);
});

test('every difference a row records is documented in the catalog, and none of a supported annotation', (t) => {
  const problems = tables.flatMap(({ file, table }) => table.requests.flatMap((row) => differenceProblems(row).map((p) => `${file}: ${describeRow(row)}: ${p}`)));
  t.deepEqual(problems, []);
});

test('every difference of the catalog is shown by a row, and no supported entry lists one', (t) => {
  t.deepEqual(differencesWithoutRows(tables.map((x) => x.table)), []);
  const supportedWithDifferences = Object.entries(nginxAnnotationCatalog).filter(([, e]) => e.status === 'supported' && Object.keys(e.differences ?? {}).length > 0);
  t.deepEqual(supportedWithDifferences.map(([name]) => name), []);
});

/** The text migrate-check prints for each Ingress, by namespace/name. */
function reportBlocks(output: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const block of output.split('\n\n')) {
    const name = /^Ingress (\S+)/.exec(block)?.[1];
    if (name !== undefined) blocks.set(name, block);
  }
  return blocks;
}

/** Ingresses of the table with a rule for the row's host (namespace/name). */
function ingressesOfHost(table: ParityTable, host: string): { key: string; annotations: Record<string, string> }[] {
  const bare = host.replace(/:\d+$/, '').toLowerCase();
  return tableIngresses(table)
    .filter((i) => (i.spec?.rules ?? []).some((r) => (r.host ?? '').toLowerCase() === bare))
    .map((i) => ({ key: `${i.metadata.namespace ?? 'default'}/${i.metadata.name}`, annotations: i.metadata.annotations ?? {} }));
}

test('migrate-check names every difference the tables record, on the Ingress that has it', async (t) => {
  const missing: string[] = [];
  for (const { file, table } of tables) {
    const rows = table.requests.filter((r) => r.difference !== undefined);
    if (rows.length === 0) continue;
    const tmp = await createTempDir('nginx-parity-migrate-');
    try {
      await writeManifest(tmp.path, 'objects.yaml', table.objects);
      const blocks = reportBlocks((await runMigrateCheck({ manifests: tmp.path }, 'text')).output);
      for (const row of rows) {
        const text = row.annotation === undefined ? undefined : nginxAnnotationCatalog[row.annotation]?.differences?.[row.difference ?? ''];
        const named = ingressesOfHost(table, row.host).some(({ key, annotations }) => {
          const block = blocks.get(key) ?? '';
          if (row.annotation === undefined) return block.includes(`[${row.difference}]`);
          return Object.hasOwn(annotations, `${nginxAnnotationPrefix}${row.annotation}`) && text !== undefined && block.includes(`DIFFERENCE ${row.annotation}: ${text}`);
        });
        if (!named) missing.push(`${file}: ${describeRow(row)}: migrate-check does not name ${row.annotation ?? 'route change'} ${row.difference} for an Ingress of ${row.host}`);
      }
    } finally {
      await tmp.remove();
    }
  }
  t.deepEqual(missing, []);
});
