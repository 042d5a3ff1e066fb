/**
 * Ingress status and Events against a real API server: the StatusWriter publishes addresses through the status
 * subresource with a ServiceAccount that may only `update` ingresses/status, and kubectl shows them; it writes
 * nothing when nothing changed, clears Ingresses it stopped serving, does nothing unless leader, survives
 * conflicts and retries failures. The EventRecorder's Events show in `kubectl describe ingress`, once per
 * problem while it persists.
 */
import { KubeConfig, NetworkingV1Api } from '@kubernetes/client-node';
import test from 'ava';
import { EventRecorder } from '../controller/status/event-recorder.js';
import { StatusWriter, type StatusLog } from '../controller/status/status-writer.js';
import { normalizeObject } from '../controller/sources/normalize.js';
import { ObjectStore } from '../controller/store.js';
import type { Diagnostic } from '../controller/translate/shared/diagnostics.js';
import type { ObjectRef } from '../controller/translate/shared/kube-objects.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { waitFor } from './harness/wait.js';
import { createTempDir } from './harness/temp-dir.js';
import { installControllerIdentity } from './fixtures/controller-identity.js';
import { readFile } from 'node:fs/promises';

let cluster: KubeCluster | undefined;
/** Kubeconfig (as a string) of deploy/'s ServiceAccount with deploy/'s RBAC. */
let controllerKubeconfig = '';

/** deploy/'s identity (namespace, ServiceAccount, RBAC) as shipped, so the writes here count in test/rbac-proof.test.ts. */
const controllerNamespace = 'envoy-ingress';
/** An account with no permissions at all. */
const unboundAccount = `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: unbound
  namespace: ${controllerNamespace}
`;

test.before(async (t) => {
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries, then starting the cluster');
  await findKubeBinaries();
  t.timeout(180_000);
  cluster = await startKubeCluster();
  const dir = await createTempDir();
  try {
    await installControllerIdentity(cluster, dir.file('kubeconfig'));
    controllerKubeconfig = await readFile(dir.file('kubeconfig'), 'utf8');
  } finally {
    await dir.remove();
  }
  await cluster.kubectlOk(['apply', '-f', '-'], { input: unboundAccount });
});

test.after.always(async () => {
  await cluster?.stop();
});

function kube(): KubeCluster {
  if (!cluster) throw new Error('the cluster did not start');
  return cluster;
}

function kubeConfigFrom(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

/** A logger that keeps what it was told, for assertions. */
function memoryLog(): StatusLog & { lines: { level: string; obj: object; msg: string }[] } {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), debug: at('debug') };
}

const address = { ip: '192.0.2.10' };

/** A namespace of its own per test, so stores and writers of different tests never see each other's objects. */
async function createIngresses(namespace: string, ...names: string[]): Promise<void> {
  const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`];
  for (const name of names) {
    docs.push(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  rules:
    - host: ${name}.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: web
                port:
                  number: 80
`);
  }
  await kube().kubectlOk(['apply', '-f', '-'], { input: docs.join('---\n') });
}

/** Loads the namespace's Ingresses into the store, as the cluster source's informer would. */
async function refreshStore(store: ObjectStore, namespace: string): Promise<void> {
  const api = kubeConfigFrom(kube().kubeconfig({ token: kube().adminToken })).makeApiClient(NetworkingV1Api);
  const list = await api.listNamespacedIngress({ namespace });
  for (const item of list.items) {
    const n = normalizeObject({ ...item, kind: 'Ingress', apiVersion: 'networking.k8s.io/v1' });
    if (n.ok) store.upsert(n.object);
  }
}

async function ingressJson(namespace: string, name: string): Promise<{ metadata: Record<string, any>; status?: any }> {
  return JSON.parse(await kube().kubectlOk(['get', 'ingress', name, '--namespace', namespace, '-o', 'json']));
}

async function statusOf(namespace: string, name: string): Promise<unknown[]> {
  return (await ingressJson(namespace, name)).status?.loadBalancer?.ingress ?? [];
}

/** The ADDRESS column of `kubectl get ingress NAME` (empty string when blank). */
async function addressColumn(namespace: string, name: string): Promise<string> {
  const out = await kube().kubectlOk(['get', 'ingress', name, '--namespace', namespace]);
  const [header = '', row = ''] = out.split('\n');
  const start = header.indexOf('ADDRESS');
  if (start < 0) throw new Error(`no ADDRESS column in:\n${out}`);
  return (row.slice(start).split(/\s+/)[0] ?? '').trim();
}

function ref(namespace: string, name: string): ObjectRef {
  return { kind: 'Ingress', namespace, name };
}

function writer(store: ObjectStore, options: { isLeader?: () => boolean; kubeconfig?: string; log?: StatusLog } = {}): StatusWriter {
  return new StatusWriter({
    kubeConfig: kubeConfigFrom(options.kubeconfig ?? controllerKubeconfig),
    store,
    isLeader: options.isLeader ?? (() => true),
    log: options.log ?? memoryLog(),
    minBackoffMs: 50,
    maxBackoffMs: 200,
  });
}

test.serial('the address is published on a served Ingress and kubectl shows it; publishing again writes nothing', async (t) => {
  const ns = 'status-publish';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const status = writer(store);
  t.teardown(() => status.stop());

  status.publish([ref(ns, 'shop')], [address]);
  await status.idle();
  t.is(status.stats.writes, 1);
  t.deepEqual(await statusOf(ns, 'shop'), [{ ip: '192.0.2.10' }]);
  t.is(await addressColumn(ns, 'shop'), '192.0.2.10');
  const written = (await ingressJson(ns, 'shop')).metadata['resourceVersion'];

  // The store has not seen our write yet (no watch event): its stale copy must not cause a second write.
  status.publish([ref(ns, 'shop')], [address]);
  await status.idle();
  // And once it has, the same status is not written again either.
  await refreshStore(store, ns);
  status.publish([ref(ns, 'shop')], [address]);
  await status.idle();
  t.is(status.stats.writes, 1);
  t.is((await ingressJson(ns, 'shop')).metadata['resourceVersion'], written, 'the object was not written again');
});

test.serial('an Ingress no longer served loses our address; an address set by someone else is left alone', async (t) => {
  const ns = 'status-clear';
  await createIngresses(ns, 'served', 'foreign');
  await kube().kubectlOk([
    'patch', 'ingress', 'foreign', '--namespace', ns, '--subresource=status', '--type=merge',
    '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.1"}]}}}',
  ]);
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const status = writer(store);
  t.teardown(() => status.stop());

  status.publish([ref(ns, 'served')], [address]);
  await status.idle();
  t.deepEqual(await statusOf(ns, 'served'), [{ ip: '192.0.2.10' }]);
  await refreshStore(store, ns);

  status.publish([], [address]);
  await status.idle();
  t.deepEqual(await statusOf(ns, 'served'), []);
  t.is(await addressColumn(ns, 'served'), '');
  t.deepEqual(await statusOf(ns, 'foreign'), [{ ip: '198.51.100.1' }]);
  t.is(status.stats.writes, 2);
});

test.serial('a status overwritten by someone else on a served Ingress is restored when the store sees the change', async (t) => {
  const ns = 'status-drift';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const status = writer(store);
  t.teardown(() => status.stop());
  status.publish([ref(ns, 'shop')], [address]);
  await status.idle();

  await kube().kubectlOk([
    'patch', 'ingress', 'shop', '--namespace', ns, '--subresource=status', '--type=merge',
    '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.9"}]}}}',
  ]);
  await refreshStore(store, ns); // what the informer's watch event does
  await status.idle();
  t.is(status.stats.writes, 2);
  t.deepEqual(await statusOf(ns, 'shop'), [{ ip: '192.0.2.10' }]);
});

test.serial('a controller that is not the leader writes nothing; once leader, resync writes the status', async (t) => {
  const ns = 'status-leader';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  let leader = false;
  const status = writer(store, { isLeader: () => leader });
  t.teardown(() => status.stop());

  status.publish([ref(ns, 'shop')], [address]);
  await status.idle();
  t.is(status.stats.writes, 0);
  t.deepEqual(await statusOf(ns, 'shop'), []);

  leader = true;
  status.resync();
  await status.idle();
  t.is(status.stats.writes, 1);
  t.deepEqual(await statusOf(ns, 'shop'), [{ ip: '192.0.2.10' }]);
});

test.serial('a write that conflicts with another change re-reads the Ingress and keeps that change', async (t) => {
  const ns = 'status-conflict';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  // Someone changes the Ingress after the store's copy was taken: our resourceVersion is stale.
  await kube().kubectlOk(['label', 'ingress', 'shop', '--namespace', ns, 'team=blue']);
  const status = writer(store);
  t.teardown(() => status.stop());

  status.publish([ref(ns, 'shop')], [address]);
  await status.idle();
  t.is(status.stats.conflicts, 1);
  t.is(status.stats.writes, 1);
  const ingress = await ingressJson(ns, 'shop');
  t.deepEqual(ingress.status?.loadBalancer?.ingress, [{ ip: '192.0.2.10' }]);
  t.is(ingress.metadata['labels']?.team, 'blue');
});

test.serial('writes for one Ingress never overlap: a publish during a write follows it, based on what it returned', async (t) => {
  const ns = 'status-serial';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const status = writer(store);
  t.teardown(() => status.stop());

  status.publish([ref(ns, 'shop')], [{ ip: '192.0.2.1' }]);
  status.publish([ref(ns, 'shop')], [{ ip: '192.0.2.2' }, { hostname: 'lb.example.com' }]);
  await status.idle();
  // Two overlapping writes from the same resourceVersion would have earned a 409; the store still holds the
  // pre-write copy, so the second write must have been based on the first write's answer.
  t.is(status.stats.conflicts, 0);
  t.is(status.stats.writes, 2);
  t.deepEqual(await statusOf(ns, 'shop'), [{ ip: '192.0.2.2' }, { hostname: 'lb.example.com' }]);
});

test.serial('a failing write is logged and retried with backoff, never thrown, until it succeeds', async (t) => {
  const ns = 'status-retry';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const token = await kube().serviceAccountToken(controllerNamespace, 'unbound', 3600);
  const log = memoryLog();
  const status = writer(store, { kubeconfig: kube().kubeconfig({ token }), log });
  t.teardown(() => status.stop());

  t.notThrows(() => status.publish([ref(ns, 'shop')], [address]));
  await waitFor(() => status.stats.failures >= 2, { description: 'two failed attempts', timeoutMs: 30_000 });
  t.deepEqual(await statusOf(ns, 'shop'), []);
  t.true(log.lines.some((l) => l.level === 'warn' && /HTTP 403/.test(JSON.stringify(l.obj))), 'the Forbidden answer is logged');

  // Granting the permission lets a later retry through.
  await kube().kubectlOk([
    'create', 'clusterrolebinding', 'unbound-status', '--clusterrole=envoy-ingress',
    `--serviceaccount=${controllerNamespace}:unbound`,
  ]);
  await waitFor(async () => (await statusOf(ns, 'shop')).length > 0, { description: 'the retried write', timeoutMs: 30_000, intervalMs: 200 });
  t.deepEqual(await statusOf(ns, 'shop'), [{ ip: '192.0.2.10' }]);
  t.is(status.stats.writes, 1);
});

interface EventJson {
  reason: string;
  message: string;
  type: string;
  involvedObject: Record<string, string>;
  source?: { component?: string };
  reportingComponent?: string;
  reportingInstance?: string;
}

async function eventsFor(namespace: string, name: string): Promise<EventJson[]> {
  const out = await kube().kubectlOk(['get', 'events', '--namespace', namespace, '--field-selector', `involvedObject.name=${name}`, '-o', 'json']);
  return (JSON.parse(out) as { items: EventJson[] }).items;
}

function recorder(store: ObjectStore, isLeader: () => boolean = () => true, log: StatusLog = memoryLog()): EventRecorder {
  return new EventRecorder({
    kubeConfig: kubeConfigFrom(controllerKubeconfig),
    store,
    isLeader,
    identity: 'envoy-ingress-7d9f-abcde',
    log,
    retryDelayMs: 50,
  });
}

test.serial('a diagnostic becomes an Event in kubectl describe; while it persists it is not repeated; when it returns it is', async (t) => {
  const ns = 'events-dedupe';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const log = memoryLog();
  const events = recorder(store, () => true, log);
  t.teardown(() => events.stop());
  const problem: Diagnostic = {
    object: ref(ns, 'shop'),
    severity: 'Warning',
    reason: 'BackendServiceNotFound',
    message: `Service ${ns}/web does not exist; requests for shop.example.com/ get 503`,
  };

  events.record([problem]);
  await events.idle();
  t.is(events.stats.created, 1);
  const described = await kube().kubectlOk(['describe', 'ingress', 'shop', '--namespace', ns]);
  t.regex(described, /BackendServiceNotFound/);
  t.true(described.includes(problem.message), described);
  t.regex(described, /Warning/);

  const [event] = await eventsFor(ns, 'shop');
  const uid = (await ingressJson(ns, 'shop')).metadata['uid'];
  t.like(event, {
    reason: 'BackendServiceNotFound',
    type: 'Warning',
    involvedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: ns, name: 'shop', uid },
    source: { component: 'envoy-ingress' },
    reportingComponent: 'envoy-ingress.io/ingress-controller',
    reportingInstance: 'envoy-ingress-7d9f-abcde',
  });

  // The next builds still have the problem: nothing new.
  events.record([problem]);
  events.record([problem, problem]);
  await events.idle();
  t.is((await eventsFor(ns, 'shop')).length, 1);

  // Fixed, then broken again: reported again.
  events.record([]);
  events.record([problem]);
  await events.idle();
  t.is(events.stats.created, 2, JSON.stringify({ stats: events.stats, log: log.lines }));
  t.is((await eventsFor(ns, 'shop')).length, 2);
});

test.serial('no Events unless leader; diagnostics about other kinds are only logged', async (t) => {
  const ns = 'events-leader';
  await createIngresses(ns, 'shop');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  let leader = false;
  const log = memoryLog();
  const events = recorder(store, () => leader, log);
  t.teardown(() => events.stop());
  const ingressProblem: Diagnostic = { object: ref(ns, 'shop'), severity: 'Warning', reason: 'TLSSecretNotFound', message: 'Secret shop/tls does not exist' };
  const serviceProblem: Diagnostic = {
    object: { kind: 'Service', namespace: ns, name: 'web' },
    severity: 'Warning',
    reason: 'ServicePortNotFound',
    message: 'Service web has no port 80',
  };

  events.record([ingressProblem]);
  await events.idle();
  t.is(events.stats.created, 0);
  t.deepEqual(await eventsFor(ns, 'shop'), []);

  leader = true;
  events.record([ingressProblem, serviceProblem]);
  await events.idle();
  t.is(events.stats.created, 1, 'the problem that existed before leadership is reported by the new leader');
  t.is((await eventsFor(ns, 'shop')).length, 1);
  t.deepEqual(await eventsFor(ns, 'web'), []);
  t.true(log.lines.some((l) => l.msg.includes('Service web has no port 80')));
});

test.serial('Event memory is bounded: beyond the limit, problems are counted as dropped, not reported', async (t) => {
  const ns = 'events-bounded';
  await createIngresses(ns, 'a', 'b', 'c');
  const store = new ObjectStore();
  await refreshStore(store, ns);
  const log = memoryLog();
  const events = new EventRecorder({
    kubeConfig: kubeConfigFrom(controllerKubeconfig),
    store,
    isLeader: () => true,
    identity: 'envoy-ingress-0',
    log,
    maxRemembered: 2,
  });
  t.teardown(() => events.stop());
  const problem = (name: string): Diagnostic => ({ object: ref(ns, name), severity: 'Normal', reason: 'DefaultBackendUsed', message: `${name} uses the default backend` });

  events.record([problem('a'), problem('b'), problem('c')]);
  await events.idle();
  t.is(events.stats.created, 2);
  t.is(events.stats.dropped, 1);
  t.is((await eventsFor(ns, 'c')).length, 0);
  t.like((await eventsFor(ns, 'a'))[0], { type: 'Normal', reason: 'DefaultBackendUsed' });
  t.true(log.lines.some((l) => l.level === 'warn' && /too many/.test(l.msg)));
});
