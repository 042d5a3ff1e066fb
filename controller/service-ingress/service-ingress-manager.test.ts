// The Service-annotation Ingress manager: the pure plan, the keyed work queue, and the manager's retry, give-up,
// leadership and conflict handling against an in-memory Ingress API that checks resourceVersions and preconditions
// like the API server. (Against a real API server: test/kube-service-ingress-manager.test.ts.)
import test from 'ava';
import { ApiException } from '@kubernetes/client-node';
import { waitFor } from '../../test/harness/wait.js';
import { ObjectStore } from '../store.js';
import type { Diagnostic } from '../translate/shared/diagnostics.js';
import type { Ingress, OwnerReference, Service, ServicePort } from '../translate/shared/kube-objects.js';
import type { IngressApi } from './ingress-api.js';
import { KeyedWorkQueue } from '../work-queue/keyed-work-queue.js';
import { planServiceIngress, ServiceIngressReason, validateHostTemplate } from './plan.js';
import { ServiceIngressManager, type ReconcileOutcome, type ServiceIngressManagerOptions } from './service-ingress-manager.js';

const settings = { ingressClassName: 'envoy-ingress', hostTemplate: '{name}.{namespace}.example.com' };

function service(name: string, opts: { annotation?: string; ports?: ServicePort[]; uid?: string; namespace?: string } = {}): Service {
  const svc: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: opts.namespace ?? 'shop', uid: opts.uid ?? `uid-${name}`, resourceVersion: '1' },
    spec: { ports: opts.ports ?? [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
  if (opts.annotation !== undefined) svc.metadata.annotations = { 'ingress/http': opts.annotation };
  return svc;
}

function ownedBy(svc: Service, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: 'v1', kind: 'Service', name: svc.metadata.name, uid: svc.metadata.uid!, controller: true, ...extra };
}

function ingress(name: string, owners: OwnerReference[] | undefined, spec: Ingress['spec'] = {}, namespace = 'shop'): Ingress {
  const ing: Ingress = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace, uid: `ing-${name}`, resourceVersion: '7' },
    spec,
  };
  if (owners) ing.metadata.ownerReferences = owners;
  return ing;
}

test('plan: an annotated Service without an Ingress gets an owned one on the templated host', (t) => {
  const svc = service('web', { annotation: 'true' });
  t.deepEqual(planServiceIngress(svc, undefined, settings), {
    action: 'create',
    ingress: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: 'web',
        namespace: 'shop',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        ingressClassName: 'envoy-ingress',
        rules: [
          {
            host: 'web.shop.example.com',
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] },
          },
        ],
      },
    },
  });
});

test('plan: an unnamed first port is referenced by number; later ports are ignored', (t) => {
  const svc = service('web', { annotation: 'true', ports: [{ port: 8080 }, { name: 'admin', port: 9000 }] });
  const plan = planServiceIngress(svc, undefined, settings);
  if (plan.action !== 'create') return t.fail(plan.action);
  t.deepEqual(plan.ingress.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port, { number: 8080 });
});

test('plan: only the exact value "true" asks for an Ingress', (t) => {
  for (const value of ['True', 'yes', '1', 'false', '']) {
    t.deepEqual(planServiceIngress(service('web', { annotation: value }), undefined, settings), { action: 'none', why: 'not-requested' }, value);
  }
  t.deepEqual(planServiceIngress(service('web'), undefined, settings), { action: 'none', why: 'not-requested' });
});

test('plan: without the annotation an owned Ingress is deleted, guarded by its uid and resourceVersion', (t) => {
  const svc = service('web', { annotation: 'false' });
  t.deepEqual(planServiceIngress(svc, ingress('web', [ownedBy(svc)]), settings), {
    action: 'delete',
    namespace: 'shop',
    name: 'web',
    uid: 'ing-web',
    resourceVersion: '7',
  });
});

test('plan: an Ingress the Service does not control is never deleted or changed', (t) => {
  const svc = service('web');
  const annotated = service('web', { annotation: 'true' });
  const foreign: [string, OwnerReference[] | undefined][] = [
    ['no owner', undefined],
    ['an earlier Service of the same name', [ownedBy(svc, { uid: 'uid-of-a-deleted-service' })]],
    ['owner but not controller', [ownedBy(svc, { controller: false })]],
    ['controlled by something else', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }]],
  ];
  for (const [label, owners] of foreign) {
    t.deepEqual(planServiceIngress(svc, ingress('web', owners), settings), { action: 'none', why: 'not-requested' }, label);
    const plan = planServiceIngress(annotated, ingress('web', owners), settings);
    t.is(plan.action, 'conflict', label);
    if (plan.action === 'conflict') {
      t.like(plan.diagnostic, { object: { kind: 'Service', namespace: 'shop', name: 'web' }, severity: 'Warning', reason: 'IngressNameTaken' });
    }
  }
});

test('plan: an owned Ingress follows the Service port; its other fields are kept', (t) => {
  const svc = service('web', { annotation: 'true', ports: [{ name: 'grpc', port: 9090 }] });
  const existing = ingress('web', [ownedBy(svc)], {
    ingressClassName: 'envoy-ingress',
    tls: [{ hosts: ['web.shop.example.com'], secretName: 'web-tls' }],
    rules: [
      {
        host: 'web.shop.example.com',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] },
      },
    ],
  });
  existing.metadata.labels = { team: 'a' };
  const plan = planServiceIngress(svc, existing, settings);
  if (plan.action !== 'update') return t.fail(plan.action);
  t.is(plan.ingress.metadata.resourceVersion, '7', 'the update is based on what was read');
  t.deepEqual(plan.ingress.metadata.labels, { team: 'a' });
  t.deepEqual(plan.ingress.spec?.tls, existing.spec?.tls);
  t.deepEqual(plan.ingress.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port, { name: 'grpc' });
});

test('plan: an owned Ingress that matches (keys in the API server order) is left as is', (t) => {
  const svc = service('web', { annotation: 'true' });
  const fromApi = ingress('web', [ownedBy(svc)], {
    rules: [
      {
        http: { paths: [{ backend: { service: { port: { name: 'http' }, name: 'web' } }, pathType: 'Prefix', path: '/' }] },
        host: 'web.shop.example.com',
      },
    ],
    ingressClassName: 'envoy-ingress',
  });
  t.deepEqual(planServiceIngress(svc, fromApi, settings), { action: 'none', why: 'up-to-date' });
  const otherClass = structuredClone(fromApi);
  otherClass.spec!.ingressClassName = 'nginx';
  t.is(planServiceIngress(svc, otherClass, settings).action, 'update');
});

test('plan: a deleted Service leaves its Ingress to the garbage collector', (t) => {
  const svc = service('web', { annotation: 'true' });
  t.deepEqual(planServiceIngress(undefined, ingress('web', [ownedBy(svc)]), settings), { action: 'none', why: 'service-absent' });
});

test('plan: a Service without ports or with a name too long for a host gets a warning, no Ingress', (t) => {
  const noPorts = planServiceIngress(service('web', { annotation: 'true', ports: [] }), undefined, settings);
  t.like(noPorts, { action: 'invalid', diagnostic: { reason: ServiceIngressReason.ServiceHasNoPorts } });
  const long = planServiceIngress(service('x'.repeat(63), { annotation: 'true' }), undefined, { ...settings, hostTemplate: '{name}{name}.example.com' });
  t.like(long, { action: 'invalid', diagnostic: { reason: ServiceIngressReason.InvalidGeneratedHost } });
});

test('host templates must produce DNS names and name the Service', (t) => {
  t.notThrows(() => validateHostTemplate('{name}.{namespace}.example.com'));
  t.notThrows(() => validateHostTemplate('{name}-{namespace}.apps.internal'));
  for (const bad of ['*.{name}.example.com', 'static.example.com', '{name}_{namespace}.example.com', '{name}.Example..com']) {
    t.throws(() => validateHostTemplate(bad), { message: /host template/ }, bad);
  }
});

test('work queue: a key is never processed twice at once, and changes during processing run once more', async (t) => {
  const running = new Set<string>();
  const done: string[] = [];
  let overlaps = 0;
  const gates = new Map<string, () => void>();
  const queue = new KeyedWorkQueue(async (key) => {
    if (running.has(key)) overlaps += 1;
    running.add(key);
    await new Promise<void>((resolve) => gates.set(key, resolve));
    running.delete(key);
    done.push(key);
  }, 4);
  queue.add('a');
  queue.add('b');
  queue.add('a'); // while 'a' runs: one more run afterwards
  queue.add('a'); // coalesced with the previous one
  t.deepEqual([...running].sort(), ['a', 'b']);
  gates.get('a')!();
  await waitFor(() => done.includes('a') && running.has('a'), { description: 'the second run of a' });
  gates.get('a')!();
  gates.get('b')!();
  await queue.idle();
  t.is(overlaps, 0);
  t.deepEqual(done.sort(), ['a', 'a', 'b']);
});

test('work queue: at most `concurrency` keys at once', async (t) => {
  let active = 0;
  let peak = 0;
  const queue = new KeyedWorkQueue(async () => {
    active += 1;
    peak = Math.max(peak, active);
    await new Promise((resolve) => setImmediate(resolve));
    active -= 1;
  }, 2);
  for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
  await queue.idle();
  t.is(peak, 2);
});

/**
 * Ingresses in memory with the API server's write rules (resourceVersion on update, preconditions on delete,
 * AlreadyExists on create). Writes show up in the store like an informer would deliver them.
 */
class MemoryIngressApi implements IngressApi {
  readonly objects = new Map<string, Ingress>();
  readonly calls: string[] = [];
  /** Calls that fail with HTTP 500 before any succeeds. */
  failNext = 0;
  /** When false, writes are not mirrored into the store (a lagging watch). */
  mirror = true;
  #version = 100;
  #uid = 0;

  constructor(private readonly store: ObjectStore) {}

  async read(namespace: string, name: string): Promise<Ingress | undefined> {
    this.#call(`read ${namespace}/${name}`);
    return structuredClone(this.objects.get(`${namespace}/${name}`));
  }
  async create(ingress: Ingress): Promise<Ingress> {
    const key = `${ingress.metadata.namespace}/${ingress.metadata.name}`;
    this.#call(`create ${key}`);
    if (this.objects.has(key)) throw new ApiException(409, 'AlreadyExists', {}, {});
    return this.#store({ ...ingress, metadata: { ...ingress.metadata, uid: `ing-uid-${++this.#uid}` } });
  }
  async replace(ingress: Ingress): Promise<Ingress> {
    const key = `${ingress.metadata.namespace}/${ingress.metadata.name}`;
    this.#call(`replace ${key}`);
    const current = this.objects.get(key);
    if (!current) throw new ApiException(404, 'NotFound', {}, {});
    if (current.metadata.resourceVersion !== ingress.metadata.resourceVersion) throw new ApiException(409, 'Conflict', {}, {});
    return this.#store(ingress);
  }
  async delete(namespace: string, name: string, preconditions: { uid: string; resourceVersion: string }): Promise<void> {
    const key = `${namespace}/${name}`;
    this.#call(`delete ${key}`);
    const current = this.objects.get(key);
    if (!current) return;
    if (current.metadata.uid !== preconditions.uid || current.metadata.resourceVersion !== preconditions.resourceVersion) {
      throw new ApiException(409, 'Conflict: precondition failed', {}, {});
    }
    this.objects.delete(key);
    if (this.mirror) this.store.delete('Ingress', namespace, name);
  }
  /** Someone else (a user) writes an Ingress. */
  put(ingress: Ingress): Ingress {
    return this.#store(ingress);
  }
  #store(ingress: Ingress): Ingress {
    const stored = structuredClone({ ...ingress, metadata: { ...ingress.metadata, resourceVersion: String(++this.#version) } });
    this.objects.set(`${stored.metadata.namespace}/${stored.metadata.name}`, stored);
    if (this.mirror) this.store.upsert(structuredClone(stored));
    return structuredClone(stored);
  }
  #call(call: string): void {
    this.calls.push(call);
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new ApiException(500, 'etcdserver: request timed out', { message: 'etcdserver: request timed out' }, {});
    }
  }
}

interface Harness {
  store: ObjectStore;
  api: MemoryIngressApi;
  manager: ServiceIngressManager;
  outcomes: { key: string; outcome: ReconcileOutcome }[];
  failures: { attempt: number; retryInMs?: number }[];
  diagnostics: Diagnostic[];
  leader: { value: boolean };
}

function harness(t: import('ava').ExecutionContext, options: Partial<ServiceIngressManagerOptions> = {}): Harness {
  const store = new ObjectStore();
  const api = new MemoryIngressApi(store);
  const leader = { value: true };
  const manager = new ServiceIngressManager(store, api, {
    ...settings,
    isLeader: () => leader.value,
    baseBackoffMs: 1,
    maxBackoffMs: 8,
    resyncIntervalMs: 0,
    ...options,
  });
  const h: Harness = { store, api, manager, outcomes: [], failures: [], diagnostics: [], leader };
  manager.on('reconciled', (o) => h.outcomes.push(o));
  manager.on('failed', ({ attempt, retryInMs }) => h.failures.push(retryInMs === undefined ? { attempt } : { attempt, retryInMs }));
  manager.on('diagnostic', (d) => h.diagnostics.push(d));
  t.teardown(() => manager.stop());
  manager.start();
  return h;
}

const outcome = (h: Harness, key: string, wanted: ReconcileOutcome, from = 0): Promise<boolean> =>
  waitFor(() => h.outcomes.slice(from).some((o) => o.key === key && o.outcome === wanted), { description: `${key} ${wanted}` });

test('manager: creates, updates and deletes the owned Ingress as the Service changes', async (t) => {
  const h = harness(t);
  const svc = service('web', { annotation: 'true' });
  h.store.upsert(svc);
  await outcome(h, 'shop/web', 'created');
  await h.manager.idle();
  t.is(h.api.objects.get('shop/web')?.spec?.rules?.[0]?.host, 'web.shop.example.com');

  h.store.upsert({ ...svc, spec: { ports: [{ port: 8080 }] } });
  await outcome(h, 'shop/web', 'updated');
  t.deepEqual(h.api.objects.get('shop/web')?.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port, { number: 8080 });

  h.store.upsert({ ...svc, metadata: { ...svc.metadata, annotations: {} } });
  await outcome(h, 'shop/web', 'deleted');
  await h.manager.idle();
  t.false(h.api.objects.has('shop/web'));
  t.deepEqual(h.failures, []);
});

test('manager: a store that lags behind the API is corrected by reading the Ingress again on 409', async (t) => {
  const h = harness(t);
  h.api.mirror = false; // the watch has not delivered our own create yet
  const svc = service('web', { annotation: 'true' });
  h.store.upsert(svc);
  await outcome(h, 'shop/web', 'created');
  // Another change of the Service: the plan from the store says "create" again, the API says it exists.
  h.store.upsert({ ...svc, metadata: { ...svc.metadata, labels: { v: '2' } } });
  await outcome(h, 'shop/web', 'unchanged');
  t.deepEqual(h.api.calls, ['create shop/web', 'create shop/web', 'read shop/web']);
  t.deepEqual(h.failures, []);
});

test('manager: a delete whose precondition fails re-reads and leaves an Ingress that changed hands', async (t) => {
  const h = harness(t);
  const svc = service('web');
  h.store.upsert(ingress('web', [ownedBy(svc)]));
  h.api.mirror = false;
  // Meanwhile a user replaced it with their own Ingress (new uid, no owner); the store still shows the old one.
  const mine = ingress('web', undefined, { ingressClassName: 'mine' });
  mine.metadata.uid = 'uid-of-the-users-ingress';
  h.api.put(mine);
  const userVersion = h.api.objects.get('shop/web')!.metadata.resourceVersion;
  h.store.upsert(svc);
  await outcome(h, 'shop/web', 'not-requested');
  t.deepEqual(h.api.calls, ['delete shop/web', 'read shop/web']);
  t.is(h.api.objects.get('shop/web')?.metadata.resourceVersion, userVersion);
});

test('manager: failures retry with exponential backoff, then give up until the Service changes', async (t) => {
  const h = harness(t, { maxRetries: 3, baseBackoffMs: 2, maxBackoffMs: 5 });
  h.api.failNext = 100;
  const svc = service('web', { annotation: 'true' });
  h.store.upsert(svc);
  await waitFor(() => h.failures.length === 4, { description: 'four failures' });
  t.deepEqual(h.failures, [
    { attempt: 1, retryInMs: 2 },
    { attempt: 2, retryInMs: 4 },
    { attempt: 3, retryInMs: 5 },
    { attempt: 4 },
  ]);
  t.like(h.diagnostics, [{ reason: ServiceIngressReason.IngressManagementFailed, object: { name: 'web' } }]);
  t.is(h.api.calls.length, 4);

  // Given up: resyncs and Ingress events do not retry.
  h.manager.resync();
  h.store.upsert(ingress('web', [ownedBy(svc)]));
  h.store.delete('Ingress', 'shop', 'web');
  await h.manager.idle();
  t.is(h.api.calls.length, 4);

  // The Service changes: a fresh start.
  h.api.failNext = 0;
  h.store.upsert({ ...svc, spec: { ports: [{ port: 81 }] } });
  await outcome(h, 'shop/web', 'created');
  t.is(h.api.objects.get('shop/web')?.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port?.number, 81);
});

test('manager: a success resets the failure count', async (t) => {
  const h = harness(t, { maxRetries: 2 });
  h.api.failNext = 2;
  h.store.upsert(service('a', { annotation: 'true' }));
  await outcome(h, 'shop/a', 'created');
  await h.manager.idle();
  const from = h.outcomes.length;
  // The Ingress disappears (an Ingress event, not a Service change, so only the success reset the count).
  h.api.failNext = 2;
  h.api.objects.delete('shop/a');
  h.store.delete('Ingress', 'shop', 'a');
  await outcome(h, 'shop/a', 'created', from);
  t.deepEqual(h.failures.map((f) => f.attempt), [1, 2, 1, 2]);
});

test('manager: writes nothing while not the leader, and catches up on resync once it leads', async (t) => {
  const h = harness(t);
  h.leader.value = false;
  h.store.upsert(service('web', { annotation: 'true' }));
  await outcome(h, 'shop/web', 'not-leader');
  t.deepEqual(h.api.calls, []);
  h.leader.value = true;
  h.manager.resync();
  await outcome(h, 'shop/web', 'created');
});

test('manager: a foreign Ingress of the same name is untouched and reported once, not on every resync', async (t) => {
  const h = harness(t);
  const foreign = h.api.put(ingress('web', undefined, { ingressClassName: 'other' }));
  h.store.upsert(service('web', { annotation: 'true' }));
  await outcome(h, 'shop/web', 'conflict');
  const from = h.outcomes.length;
  h.manager.resync();
  await outcome(h, 'shop/web', 'conflict', from);
  t.deepEqual(h.api.calls, []);
  t.deepEqual(h.api.objects.get('shop/web'), foreign);
  t.is(h.diagnostics.length, 1);
  t.like(h.diagnostics[0], { reason: 'IngressNameTaken', object: { kind: 'Service', namespace: 'shop', name: 'web' } });
});

test('manager: Ingress events for a Service re-check it (a deleted owned Ingress is recreated)', async (t) => {
  const h = harness(t);
  h.store.upsert(service('web', { annotation: 'true' }));
  await outcome(h, 'shop/web', 'created');
  await h.manager.idle();
  const from = h.outcomes.length;
  // Someone deletes the Ingress by hand.
  h.api.objects.delete('shop/web');
  h.store.delete('Ingress', 'shop', 'web');
  await outcome(h, 'shop/web', 'created', from);
  t.true(h.api.objects.has('shop/web'));
});

test('manager: rejects a bad host template at construction', (t) => {
  const store = new ObjectStore();
  t.throws(() => new ServiceIngressManager(store, new MemoryIngressApi(store), { ...settings, hostTemplate: 'example.com', isLeader: () => true }), {
    message: /host template/,
  });
});
