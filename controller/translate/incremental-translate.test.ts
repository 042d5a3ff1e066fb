// Incremental translation of both APIs against full translation: Gateways of our class (a listener on the Ingress
// HTTP port, which joins the Ingress listener: coexistence.ts; named and catch-all listeners on a port of their own:
// listener isolation; two HTTPS listeners on one port: 421 tables), random HTTPRoutes and Ingresses on a shared pool
// of hosts, and random edits of both (paths, backends, hostnames, parentRefs and sectionNames, routes and Ingresses
// created and deleted). After each edit the incremental result must equal translate() of the whole state (IR,
// diagnostics, Gateway API status), and the config builder's build the resources of a full build.
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { createTestCA } from '../../test/harness/test-certs.js';
import { benchReconcileOptions } from '../../bench/translation-scale.js';
import { buildConfig, fullUpdate } from '../pipeline/build-config.js';
import { ConfigBuilder } from '../pipeline/config-builder.js';
import type { SnapshotUpdate } from '../../xds/snapshot-cache.js';
import type { VirtualHostIR } from '../../ir/index.js';
import { HostIndex } from './ingress/host-index.js';
import { isServedByUs } from './ingress/ingress-class.js';
import { translateIncrementally } from './incremental-translate.js';
import type { ClusterState, Gateway, GatewayListener, HTTPRoute, Ingress, ParentReference, Secret, Service } from './shared/kube-objects.js';
import { defaultGatewayControllerName, defaultTranslateOptions, type TranslateOptions } from './shared/options.js';
import { gatewayServiceAnnotation, gatewayServiceName } from './gateway-api/gateway-service.js';
import { Reason } from './shared/reasons.js';
import { translate, type TranslationResult } from './translate.js';

const namespace = 'shop';
const hostPool = ['a.test', 'b.test', 'c.test', '*.w.test', 'x.w.test', 'e.test'];
const servicePool = ['web', 'api', 'missing'];
const pathPool = ['/', '/api', '/api/v1', '/static'];
/** Our Gateways' listeners (by sectionName), another controller's Gateway, a listener no Gateway has. */
const parentPool: ParentReference[] = [
  { name: 'shared' },
  { name: 'shared', sectionName: 'http' },
  { name: 'own', sectionName: 'named' },
  { name: 'own', sectionName: 'any' },
  { name: 'own' },
  { name: 'tls', sectionName: 'https-a' },
  { name: 'tls' },
  { name: 'theirs' },
  { name: 'shared', sectionName: 'nope' },
];

interface RouteModel {
  parents: number[];
  hostnames: string[];
  rules: { paths: { path: string; exact: boolean }[]; backends: { service: string; weight: number }[] }[];
  /** In the second namespace: the `own` Gateway admits only its own namespace's routes. */
  tenant: boolean;
}

const routeArb: fc.Arbitrary<RouteModel> = fc.record({
  parents: fc.uniqueArray(fc.nat({ max: parentPool.length - 1 }), { minLength: 1, maxLength: 2 }),
  hostnames: fc.uniqueArray(fc.constantFrom(...hostPool), { minLength: 0, maxLength: 2 }),
  rules: fc.array(
    fc.record({
      paths: fc.array(fc.record({ path: fc.constantFrom(...pathPool), exact: fc.boolean() }), { minLength: 0, maxLength: 2 }),
      backends: fc.array(fc.record({ service: fc.constantFrom(...servicePool), weight: fc.constantFrom(1, 1, 0, 3) }), { minLength: 1, maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  tenant: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
});

interface IngressModel {
  host: string;
  paths: { path: string; service: string }[];
}

const ingressArb: fc.Arbitrary<IngressModel> = fc.record({
  // Ingress hosts: the routes' pool but the wildcard ones (an Ingress may have them too, but one is enough).
  host: fc.constantFrom('a.test', 'b.test', 'c.test', 'e.test', 'i.test', 'j.test'),
  paths: fc.array(fc.record({ path: fc.constantFrom(...pathPool), service: fc.constantFrom(...servicePool) }), { minLength: 1, maxLength: 2 }),
});

/** Ages: distinct, in creation order (routes and Ingresses interleaved by their index). */
function createdAt(index: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
}

function routeOf(index: number, model: RouteModel, generation: number): HTTPRoute {
  return {
    kind: 'HTTPRoute',
    metadata: { name: `route-${index}`, namespace: model.tenant ? 'tenant' : namespace, creationTimestamp: createdAt(index), generation },
    spec: {
      parentRefs: model.parents.map((p) => ({ ...parentPool[p]!, namespace })),
      ...(model.hostnames.length === 0 ? {} : { hostnames: model.hostnames }),
      rules: model.rules.map((rule) => ({
        ...(rule.paths.length === 0 ? {} : { matches: rule.paths.map((p) => ({ path: { type: p.exact ? ('Exact' as const) : ('PathPrefix' as const), value: p.path } })) }),
        backendRefs: rule.backends.map((b) => ({ name: b.service, namespace, port: 80, weight: b.weight })),
      })),
    },
  };
}

function ingressOf(index: number, model: IngressModel, generation: number): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name: `ing-${index}`, namespace, creationTimestamp: createdAt(index), generation },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: [
        {
          host: model.host,
          http: { paths: model.paths.map((p) => ({ path: p.path, pathType: 'Prefix', backend: { service: { name: p.service, port: { number: 80 } } } })) },
        },
      ],
    },
  };
}

function gateways(): Gateway[] {
  const all = { namespaces: { from: 'All' as const } };
  const cert = { mode: 'Terminate' as const, certificateRefs: [{ name: 'gw-cert' }] };
  const gateway = (name: string, className: string, listeners: GatewayListener[], seconds: number): Gateway => ({
    kind: 'Gateway',
    metadata: { name, namespace, creationTimestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, seconds)).toISOString() },
    spec: { gatewayClassName: className, listeners },
  });
  return [
    // On the Ingress HTTP port: joins the Ingress listener, hosts both claim go to the older claimant.
    gateway('shared', 'ours', [{ name: 'http', port: 8080, protocol: 'HTTP', allowedRoutes: all }], 1),
    // A named and a catch-all listener on one port (listener isolation), Same-namespace routes only on `named`.
    gateway('own', 'ours', [
      { name: 'named', port: 9080, protocol: 'HTTP', hostname: 'b.test' },
      { name: 'any', port: 9080, protocol: 'HTTP', allowedRoutes: all },
    ], 2),
    // Two HTTPS listeners on one port: a route table each, 421 for the other's names.
    gateway('tls', 'ours', [
      { name: 'https-a', port: 9443, protocol: 'HTTPS', hostname: 'a.test', tls: cert, allowedRoutes: all },
      { name: 'https-w', port: 9443, protocol: 'HTTPS', hostname: '*.w.test', tls: cert, allowedRoutes: all },
    ], 3),
    gateway('theirs', 'other', [{ name: 'http', port: 8080, protocol: 'HTTP' }], 4),
  ];
}

function services(apiPort = 80): Service[] {
  return ['web', 'api'].map((name) => ({
    kind: 'Service',
    metadata: { name, namespace },
    spec: { ports: [{ name: 'http', port: name === 'api' ? apiPort : 80, targetPort: 8080, protocol: 'TCP' }] },
  }));
}

/** A backend Service's spec in a Service edit: deleted, its port 80, another port too, or an appProtocol. */
type ServiceSpecModel = 'deleted' | 'port-80' | 'ports-80-81' | 'h2c';
const serviceSpecs: readonly ServiceSpecModel[] = ['deleted', 'port-80', 'ports-80-81', 'h2c'];

/** `services` with the Service `name` as `spec` says (created when missing, a new object when it exists). */
function withService(list: readonly Service[], name: string, spec: ServiceSpecModel): Service[] {
  const others = list.filter((s) => s.metadata.name !== name);
  if (spec === 'deleted') return others;
  const ports = [
    { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', ...(spec === 'h2c' ? { appProtocol: 'kubernetes.io/h2c' } : {}) },
    ...(spec === 'ports-80-81' ? [{ name: 'alt', port: 81, targetPort: 8081, protocol: 'TCP' }] : []),
  ];
  return [...others, { kind: 'Service', metadata: { name, namespace }, spec: { ports } }];
}

async function gatewayCertificate(): Promise<Secret> {
  const ca = await createTestCA({ commonName: 'gateway incremental test CA' });
  const pem = await ca.issue({ dnsNames: ['a.test', '*.w.test'] });
  return {
    kind: 'Secret',
    metadata: { name: 'gw-cert', namespace },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(pem.certPem).toString('base64'), 'tls.key': Buffer.from(pem.keyPem).toString('base64') },
  };
}

function baseOf(secret: Secret): Omit<ClusterState, 'ingresses' | 'httpRoutes'> {
  return {
    ingressClasses: [{ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: 'envoy-ingress.io/ingress-controller' } }],
    gatewayClasses: [
      { kind: 'GatewayClass', metadata: { name: 'ours' }, spec: { controllerName: defaultGatewayControllerName } },
      { kind: 'GatewayClass', metadata: { name: 'other' }, spec: { controllerName: 'example.com/other' } },
    ],
    gateways: gateways(),
    services: services(),
    endpointSlices: [],
    endpoints: [],
    secrets: [secret],
  };
}

type Edit =
  | { kind: 'route-set'; target: number; route: RouteModel }
  | { kind: 'route-paths'; target: number; paths: { path: string; exact: boolean }[] }
  | { kind: 'route-backend'; target: number; service: string }
  | { kind: 'route-hostnames'; target: number; hostnames: string[] }
  | { kind: 'route-parents'; target: number; parents: number[] }
  | { kind: 'route-delete'; target: number }
  | { kind: 'route-add'; route: RouteModel }
  | { kind: 'ingress-set'; target: number; ingress: IngressModel }
  | { kind: 'ingress-delete'; target: number }
  | { kind: 'ingress-add'; ingress: IngressModel }
  | { kind: 'route+ingress'; target: number; route: RouteModel; ingress: IngressModel }
  | { kind: 'service'; name: string; spec: ServiceSpecModel }
  | { kind: 'gateway' };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('route-set' as const), target: fc.nat(), route: routeArb }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('route-paths' as const), target: fc.nat(), paths: fc.array(fc.record({ path: fc.constantFrom(...pathPool), exact: fc.boolean() }), { maxLength: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('route-backend' as const), target: fc.nat(), service: fc.constantFrom(...servicePool) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('route-hostnames' as const), target: fc.nat(), hostnames: fc.uniqueArray(fc.constantFrom(...hostPool), { maxLength: 2 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('route-parents' as const), target: fc.nat(), parents: fc.uniqueArray(fc.nat({ max: parentPool.length - 1 }), { minLength: 1, maxLength: 2 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('route-delete' as const), target: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('route-add' as const), route: routeArb }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('ingress-set' as const), target: fc.nat(), ingress: ingressArb }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('ingress-delete' as const), target: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('ingress-add' as const), ingress: ingressArb }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('route+ingress' as const), target: fc.nat(), route: routeArb, ingress: ingressArb }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('service' as const), name: fc.constantFrom(...servicePool), spec: fc.constantFrom(...serviceSpecs) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('gateway' as const) }), weight: 1 },
);

interface Objects {
  routes: { index: number; model: RouteModel; object: HTTPRoute }[];
  ingresses: { index: number; model: IngressModel; object: Ingress }[];
  next: number;
}

/** `objects` after `edit` (new objects for the edited ones, the others as they were). */
function edited(objects: Objects, edit: Edit): Objects {
  const { routes, ingresses } = objects;
  let next = objects.next;
  const setRoute = (target: number, change: (model: RouteModel) => RouteModel): Objects['routes'] => {
    if (routes.length === 0) return routes;
    const at = target % routes.length;
    return routes.map((r, i) => {
      if (i !== at) return r;
      const model = change(r.model);
      return { index: r.index, model, object: routeOf(r.index, model, (r.object.metadata.generation ?? 1) + 1) };
    });
  };
  const setIngress = (target: number, model: IngressModel): Objects['ingresses'] => {
    if (ingresses.length === 0) return ingresses;
    const at = target % ingresses.length;
    return ingresses.map((x, i) => (i === at ? { index: x.index, model, object: ingressOf(x.index, model, (x.object.metadata.generation ?? 1) + 1) } : x));
  };
  switch (edit.kind) {
    case 'route-set':
      return { ...objects, routes: setRoute(edit.target, () => edit.route) };
    case 'route-paths':
      return { ...objects, routes: setRoute(edit.target, (m) => ({ ...m, rules: m.rules.map((r, i) => (i === 0 ? { ...r, paths: edit.paths } : r)) })) };
    case 'route-backend':
      return { ...objects, routes: setRoute(edit.target, (m) => ({ ...m, rules: m.rules.map((r) => ({ ...r, backends: [{ service: edit.service, weight: 1 }] })) })) };
    case 'route-hostnames':
      return { ...objects, routes: setRoute(edit.target, (m) => ({ ...m, hostnames: edit.hostnames })) };
    case 'route-parents':
      return { ...objects, routes: setRoute(edit.target, (m) => ({ ...m, parents: edit.parents })) };
    case 'route-delete':
      return routes.length === 0 ? objects : { ...objects, routes: routes.filter((_, i) => i !== edit.target % routes.length) };
    case 'route-add': {
      const index = next++;
      return { ...objects, next, routes: [...routes, { index, model: edit.route, object: routeOf(index, edit.route, 1) }] };
    }
    case 'ingress-set':
      return { ...objects, ingresses: setIngress(edit.target, edit.ingress) };
    case 'ingress-delete':
      return ingresses.length === 0 ? objects : { ...objects, ingresses: ingresses.filter((_, i) => i !== edit.target % ingresses.length) };
    case 'ingress-add': {
      const index = next++;
      return { ...objects, next, ingresses: [...ingresses, { index, model: edit.ingress, object: ingressOf(index, edit.ingress, 1) }] };
    }
    case 'route+ingress':
      return { ...objects, routes: setRoute(edit.target, () => edit.route), ingresses: setIngress(edit.target, edit.ingress) };
    default:
      return objects;
  }
}

function comparable(result: TranslationResult): string {
  // `references` may be a superset after a splice (ingress/incremental-translate.ts).
  const { references: _superset, ...rest } = result;
  return JSON.stringify(rest);
}

function sortedUpdate(update: SnapshotUpdate): string {
  const out: Record<string, unknown> = {};
  for (const [kind, list] of Object.entries(update)) out[kind] = [...(list ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  return JSON.stringify(out);
}

function stateOf(base: Omit<ClusterState, 'ingresses' | 'httpRoutes'>, objects: Objects): ClusterState {
  return { ...base, ingresses: objects.ingresses.map((x) => x.object), httpRoutes: objects.routes.map((r) => r.object) };
}


interface Counts {
  edits: number;
  routeEdits: number;
  routeIncremental: number;
  ingressIncremental: number;
  declinedExpected: number;
  serviceEdits: number;
  serviceIncremental: number;
  /** Incremental translations whose full translation refused a route for its namespace's route budget. */
  overBudget: number;
}

/** Runs the random edits with `options`; false (and a log) at the first incremental translation unlike a full one. */
function checkEdits(t: ExecutionContext, base0: Omit<ClusterState, 'ingresses' | 'httpRoutes'>, options: TranslateOptions, seed: number): Counts {
  const counts: Counts = { edits: 0, routeEdits: 0, routeIncremental: 0, ingressIncremental: 0, declinedExpected: 0, serviceEdits: 0, serviceIncremental: 0, overBudget: 0 };
  const servedOf = (state: ClusterState): Ingress[] => state.ingresses.filter((i) => isServedByUs(i, state.ingressClasses, options));
  fc.assert(
    fc.property(fc.array(routeArb, { minLength: 1, maxLength: 8 }), fc.array(ingressArb, { maxLength: 5 }), fc.array(editArb, { minLength: 1, maxLength: 10 }), (initialRoutes, initialIngresses, script) => {
      let base = base0;
      let objects: Objects = {
        routes: initialRoutes.map((model, index) => ({ index, model, object: routeOf(index, model, 1) })),
        ingresses: initialIngresses.map((model, i) => ({ index: initialRoutes.length + i, model, object: ingressOf(initialRoutes.length + i, model, 1) })),
        next: initialRoutes.length + initialIngresses.length,
      };
      let state = stateOf(base, objects);
      let result = translate(state, options);
      let index = HostIndex.of(servedOf(state));
      for (const edit of script) {
        counts.edits += 1;
        objects = edited(objects, edit);
        if (edit.kind === 'service') base = { ...base, services: withService(base.services, edit.name, edit.spec) };
        if (edit.kind === 'gateway') base = { ...base, gateways: base.gateways!.map((g, i) => (i === 1 ? structuredClone(g) : g)) };
        const after = stateOf(base, objects);
        const full = translate(after, options);
        const incremental = translateIncrementally({ state, result, index }, after, options);
        // A Gateway change: never incremental. A backend Service's (created, deleted, its ports or appProtocol
        // changed) may be: the routes naming it are made again.
        if (edit.kind === 'gateway' && incremental !== undefined) return false;
        if (edit.kind === 'gateway') counts.declinedExpected += 1;
        if (edit.kind === 'service') counts.serviceEdits += 1;
        if (edit.kind === 'service' && incremental !== undefined) counts.serviceIncremental += 1;
        const routeEdit = edit.kind.startsWith('route');
        if (routeEdit) counts.routeEdits += 1;
        if (incremental !== undefined) {
          if (comparable(incremental) !== comparable(full)) {
            t.log(edit, comparable(incremental), comparable(full));
            return false;
          }
          if (full.diagnostics.some((d) => d.reason === Reason.NamespaceRouteBudgetExceeded && d.object.kind === 'HTTPRoute')) counts.overBudget += 1;
          if (routeEdit) counts.routeIncremental += 1;
          else counts.ingressIncremental += 1;
          result = incremental;
        } else {
          result = full;
          index = HostIndex.of(servedOf(after));
        }
        state = after;
      }
      return true;
    }),
    { numRuns: 200, seed },
  );
  return counts;
}

test('incremental translation of HTTPRoutes and Ingresses beside our Gateways equals full translation after every edit', async (t) => {
  const counts = checkEdits(t, baseOf(await gatewayCertificate()), defaultTranslateOptions, 20261127);
  t.log(counts);
  // Every edit of routes alone is incremental; most route edits in all (a batch with an Ingress edit the splice
  // declines is not); Ingress edits beside our Gateways too.
  t.true(counts.routeIncremental > counts.routeEdits * 0.8, `route edits made incrementally: ${counts.routeIncremental} of ${counts.routeEdits}`);
  t.true(counts.ingressIncremental > 50, `Ingress edits made incrementally: ${counts.ingressIncremental}`);
  t.true(counts.serviceIncremental > counts.serviceEdits * 0.5, `Service edits made incrementally: ${counts.serviceIncremental} of ${counts.serviceEdits}`);
});

test('with a small namespace route budget (a route\'s admission depends on the older routes of its namespace), incremental translation equals full translation after every edit', async (t) => {
  const counts = checkEdits(t, baseOf(await gatewayCertificate()), { ...defaultTranslateOptions, namespaceRouteBudget: 8 }, 20261128);
  t.log(counts);
  t.true(counts.overBudget > 50, `incremental translations with a route over its budget: ${counts.overBudget}`);
  t.true(counts.routeIncremental > counts.routeEdits * 0.8, `route edits made incrementally: ${counts.routeIncremental} of ${counts.routeEdits}`);
});

test('a Service change the Gateway API context reads (a Gateway\'s Service, a BackendTLSPolicy target, a RoutePolicy\'s externalAuth backend) is a full translation; a backend Service\'s is incremental and equal', async (t) => {
  const options: TranslateOptions = { ...defaultTranslateOptions, gatewayAddressing: { mode: 'service', namespace: 'envoy-ingress', portRange: { first: 20000, last: 20099 } } };
  const model: RouteModel = { parents: [0], hostnames: ['a.test'], rules: [{ paths: [{ path: '/', exact: false }], backends: [{ service: 'web', weight: 1 }, { service: 'missing', weight: 1 }] }], tenant: false };
  const base: ClusterState = {
    ...baseOf(await gatewayCertificate()),
    ingresses: [],
    httpRoutes: [routeOf(0, model, 1)],
    backendTlsPolicies: [{ kind: 'BackendTLSPolicy', metadata: { name: 'tls', namespace }, spec: { targetRefs: [{ group: '', kind: 'Service', name: 'api' }], validation: { wellKnownCACertificates: 'System', hostname: 'api.test' } } }],
    routePolicies: [{ kind: 'RoutePolicy', metadata: { name: 'auth', namespace }, spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'route-0' }], externalAuth: { backendRef: { name: 'auth', port: 80 } } } }],
  };
  const before = translate(base, options);
  const shared = base.gateways!.find((g) => g.metadata.name === 'shared')!;
  const service = (name: string, ns = namespace, annotations?: Record<string, string>): Service => ({
    kind: 'Service',
    metadata: { name, namespace: ns, ...(annotations === undefined ? {} : { annotations }) },
    spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  });
  const cases: [string, ClusterState, boolean][] = [
    ['a backend Service gains a port', { ...base, services: withService(base.services, 'web', 'ports-80-81') }, true],
    ['a missing backend Service is created', { ...base, services: withService(base.services, 'missing', 'port-80') }, true],
    ['a backend Service is deleted', { ...base, services: withService(base.services, 'web', 'deleted') }, true],
    ['a Service under a Gateway\'s Service name', { ...base, services: [...base.services, service(gatewayServiceName(shared))] }, false],
    ['a managed Gateway Service in the controller namespace', { ...base, services: [...base.services, service('gw-old', 'envoy-ingress', { [gatewayServiceAnnotation]: `${namespace}/shared` })] }, false],
    ['a BackendTLSPolicy\'s target', { ...base, services: withService(base.services, 'api', 'h2c') }, false],
    ['a RoutePolicy\'s externalAuth backend', { ...base, services: [...base.services, service('auth')] }, false],
  ];
  for (const [what, after, incremental] of cases) {
    const made = translateIncrementally({ state: base, result: before, index: HostIndex.of([]) }, after, options);
    t.is(made !== undefined, incremental, what);
    if (made !== undefined) t.is(comparable(made), comparable(translate(after, options)), what);
  }
});

test('ConfigBuilder: HTTPRoute and Ingress edits beside our Gateways are routes builds giving a full build\'s resources, reusing the virtual hosts they do not touch', async (t) => {
  const base = baseOf(await gatewayCertificate());
  const route = (index: number, hostnames: string[], paths: string[], service = 'web', parents = [0, 2, 5]): Objects['routes'][number] => {
    const model: RouteModel = { parents, hostnames, rules: [{ paths: paths.map((path) => ({ path, exact: false })), backends: [{ service, weight: 1 }] }], tenant: false };
    return { index, model, object: routeOf(index, model, 1) };
  };
  let objects: Objects = {
    routes: [route(0, ['a.test'], ['/']), route(1, ['c.test', 'x.w.test'], ['/api']), route(2, ['e.test'], ['/static'], 'api')],
    ingresses: [{ index: 3, model: { host: 'i.test', paths: [{ path: '/', service: 'web' }] }, object: ingressOf(3, { host: 'i.test', paths: [{ path: '/', service: 'web' }] }, 1) }],
    next: 4,
  };
  const b = new ConfigBuilder(benchReconcileOptions);
  const updates: SnapshotUpdate[] = [];
  let state = stateOf(base, objects);
  const first = b.build(state, (u) => updates.push(u)).built;
  const hostsOf = (result: TranslationResult): Map<string, VirtualHostIR> =>
    new Map(result.ir.listeners.flatMap((l) => (l.routeTable?.virtualHosts ?? []).map((v) => [`${l.name} ${v.name}`, v] as const)));
  const steps: [string, (o: Objects) => Objects, string[]][] = [
    ['a path added to route-1', (o) => ({ ...o, routes: o.routes.map((r) => (r.index === 1 ? route(1, ['c.test', 'x.w.test'], ['/api', '/more']) : r)) }), ['c.test', 'x.w.test']],
    ['route-2 sends to another Service', (o) => ({ ...o, routes: o.routes.map((r) => (r.index === 2 ? route(2, ['e.test'], ['/static'], 'web') : r)) }), ['e.test']],
    ['route-0 moves from a.test to b.test', (o) => ({ ...o, routes: o.routes.map((r) => (r.index === 0 ? route(0, ['b.test'], ['/']) : r)) }), ['a.test', 'b.test']],
    ['route-2 leaves the own Gateway', (o) => ({ ...o, routes: o.routes.map((r) => (r.index === 2 ? route(2, ['e.test'], ['/static'], 'web', [0]) : r)) }), ['e.test']],
    ['route-1 deleted', (o) => ({ ...o, routes: o.routes.filter((r) => r.index !== 1) }), ['c.test', 'x.w.test']],
    ['an Ingress path added', (o) => ({ ...o, ingresses: o.ingresses.map((x) => ({ ...x, object: ingressOf(3, { host: 'i.test', paths: [{ path: '/', service: 'web' }, { path: '/x', service: 'api' }] }, 2) })) }), ['i.test']],
  ];
  let lastHosts = hostsOf(first.translation);
  for (const [label, change, touched] of steps) {
    objects = change(objects);
    state = stateOf(base, objects);
    const { built } = b.build(state, (u) => updates.push(u));
    t.is(built.kind, 'routes', label);
    const full = buildConfig(state, benchReconcileOptions);
    t.deepEqual(built.translation.ir, full.translation.ir, label);
    t.deepEqual(built.translation.gatewayApiStatus, full.translation.gatewayApiStatus, label);
    t.deepEqual(built.translation.diagnostics, full.translation.diagnostics, label);
    t.is(sortedUpdate(withoutSecrets(published(updates))), sortedUpdate(withoutSecrets(fullUpdate(full.resources))), label);
    // Every virtual host of a host no edit touched is the last build's object (its JSON is not made again).
    const after = hostsOf(built.translation);
    let reused = 0;
    for (const [key, vhost] of after) {
      const host = key.slice(key.indexOf(' ') + 1);
      if (touched.includes(host) || host.startsWith('misdirected:')) continue;
      if (lastHosts.get(key) === vhost) reused += 1;
      else t.fail(`${label}: ${key} was made again`);
    }
    t.true(reused > 0, label);
    lastHosts = after;
  }
});

function withoutSecrets(update: SnapshotUpdate): SnapshotUpdate {
  const { secret: _secret, ...rest } = update;
  return rest;
}

/** The resources the cache holds after `updates`, as a full build's update. */
function published(updates: readonly SnapshotUpdate[]): SnapshotUpdate {
  const out: Record<string, SnapshotUpdate[keyof SnapshotUpdate]> = {};
  for (const update of updates) for (const [kind, list] of Object.entries(update)) out[kind] = list;
  return out as SnapshotUpdate;
}
