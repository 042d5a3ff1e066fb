// Least privilege, proven: the Kubernetes end-to-end tests that run the controller as deploy/'s ServiceAccount
// (test/fixtures/controller-identity.ts; kube-status.test.ts's status writer and Events; the edge-nodes overlay's additions) run again here with the API
// server's audit log on; every (verb, group, resource) that account used must be granted by the shipped RBAC, and
// everything the shipped RBAC grants must have been used. Secrets are only ever listed and watched with a
// `type` field selector (TLS; Opaque only for ingress-nginx basic auth).
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { findKubeBinaries } from './harness/kube-available.js';
import { CONTROLLER_USER, KUBE_AUDIT_LOG_DIR } from './harness/kube-cluster.js';
import { compareGrant, permissionOf, permissionsGranted, resourceEventsOf, type AuditEvent, type RbacDoc } from './harness/rbac-audit.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';

const root = findRepoRoot();
/** The test files whose controller acts as system:serviceaccount:envoy-ingress:envoy-ingress with deploy/'s RBAC. */
const controllerE2eFiles = ['kube-e2e', 'kube-shutdown-e2e', 'kube-status', 'nginx-auth-kube-e2e', 'publish-nodes-e2e', 'gateway-api-kube-e2e'].map((f) => `dist/test/${f}.test.js`);

/** Runs the files in a child ava with the audit log on; resolves with every audit event of the controller. */
async function auditedRun(files: readonly string[]): Promise<{ events: AuditEvent[]; output: string; code: number | null }> {
  const dir = await createTempDir('envoy-ingress-audit-');
  try {
    const child = spawn(process.execPath, [path.join(root, 'node_modules/ava/entrypoints/cli.mjs'), ...files], {
      cwd: root,
      env: { ...process.env, [KUBE_AUDIT_LOG_DIR]: dir.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const logs = (await readdir(dir.path)).filter((f) => f.endsWith('.log'));
    const events = (await Promise.all(logs.map((f) => readFile(dir.file(f), 'utf8')))).flatMap((text) => resourceEventsOf(text, CONTROLLER_USER));
    return { events, output, code };
  } finally {
    await dir.remove();
  }
}

/** The RBAC objects the edge-nodes overlay ships (deploy/'s, which every variant has, plus --publish-nodes'). */
async function shippedRbac(): Promise<RbacDoc[]> {
  const { kubectl } = await findKubeBinaries();
  const { stdout } = await promisify(execFile)(kubectl, ['kustomize', path.join(root, 'deploy-variants/edge-nodes')], { maxBuffer: 16 << 20 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as RbacDoc)
    .filter((d) => d.kind === 'Role' || d.kind === 'ClusterRole');
}

test('the controller\'s ServiceAccount uses exactly what the shipped RBAC grants (audit log of the Kubernetes e2e tests)', async (t) => {
  t.timeout(20 * 60_000);
  const run = await auditedRun(controllerE2eFiles);
  t.is(run.code, 0, `the audited e2e tests failed:\n${run.output.slice(-4000)}`);
  const used = new Set(run.events.map(permissionOf));
  const granted = permissionsGranted(await shippedRbac());
  t.log(`used by the controller (${run.events.length} requests): ${[...used].sort().join(', ')}`);
  t.deepEqual(compareGrant(granted, used), { unused: [], ungranted: [] });

  // One rule more, and the proof says which.
  t.deepEqual(compareGrant(new Set([...granted, 'delete core/secrets']), used), { unused: ['delete core/secrets'], ungranted: [] });

  // Secrets are never listed or watched without a type selector: the controller holds TLS Secrets (and Opaque
  // ones only for basic auth), not every Secret of the cluster.
  const secretSelectors = new Set(
    run.events
      .filter((e) => e.objectRef?.resource === 'secrets')
      .map((e) => new URL(e.requestURI!, 'https://api').searchParams.get('fieldSelector') ?? '(none)'),
  );
  t.true(secretSelectors.has('type=kubernetes.io/tls'), [...secretSelectors].join(' '));
  t.deepEqual([...secretSelectors].filter((s) => s !== 'type=kubernetes.io/tls' && s !== 'type=Opaque'), []);
});
