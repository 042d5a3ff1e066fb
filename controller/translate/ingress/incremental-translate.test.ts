// Incremental translation against full translation: random clusters of Ingresses sharing hosts (with TLS entries
// naming Secrets), random edits of Ingresses, Services and Secrets, and after each edit the spliced result must
// equal translate() of the whole state, and the builds must give the same Envoy resources as a full build.
import test from 'ava';
import fc from 'fast-check';
import { benchCertificate } from '../../../bench/bench-certs.js';
import { createTestCA } from '../../../test/harness/test-certs.js';
import { benchReconcileOptions } from '../../../bench/translation-scale.js';
import { buildConfig, fullUpdate } from '../../pipeline/build-config.js';
import { ConfigBuilder, type IncrementalBuild } from '../../pipeline/config-builder.js';
import type { SnapshotUpdate } from '../../../xds/snapshot-cache.js';
import { HostIndex } from './host-index.js';
import { translateIncrementally } from './incremental-translate.js';
import { isServedByUs } from './ingress-class.js';
import type { ClusterState, Ingress, Secret, Service } from '../shared/kube-objects.js';
import { buildTakes, type KindName, kindNames, type KindsWithBuild } from '../shared/kinds.js';
import { annotationPrefix, defaultTranslateOptions } from '../shared/options.js';
import { translate, type TranslationResult } from '../translate.js';
import { ingressTlsServersOf } from './ingress-listeners.js';

const namespace = 'shop';
const hostPool = ['a.test', 'b.test', 'c.test', 'd.test', '*.w.test', 'x.w.test', 'e.test', 'f.test'];
const servicePool = ['web', 'api', 'missing'];
const pathPool = ['/', '/api', '/api/v1', '/static', '/x'];
/** TLS hosts: the rules' hosts, another spelling of one, one no rule names and an invalid one. */
const tlsHostPool = [...hostPool, 'A.TEST', 'tls-only.test', 'bad_host.test'];
/** Secrets of the Ingresses' namespace, a missing one, one of another namespace (refused unread), none. */
const secretNamePool = ['tls-a', 'tls-b', 'tls-c', 'missing', 'other/tls-a', ''];

interface TlsEntryModel {
  /** Empty: an entry without hosts (the default certificate). */
  hosts: string[];
  secretName: string;
}

interface IngressSpecModel {
  rules: { host: string | undefined; paths: { path: string; exact: boolean; service: string }[] }[];
  tls: TlsEntryModel[];
  defaultBackend: boolean;
  /** Our https-only annotation: plain HTTP answers 403, so only the https table forwards to its Services. */
  httpsOnly: boolean;
  nginx: boolean;
  otherClass: boolean;
}

const ruleArb = fc.record({
  host: fc.option(fc.constantFrom(...hostPool), { nil: undefined, freq: 12 }),
  paths: fc.array(fc.record({ path: fc.constantFrom(...pathPool), exact: fc.boolean(), service: fc.constantFrom(...servicePool) }), {
    minLength: 0,
    maxLength: 3,
  }),
});

const tlsEntryArb: fc.Arbitrary<TlsEntryModel> = fc.record({
  hosts: fc.oneof(
    { arbitrary: fc.uniqueArray(fc.constantFrom(...tlsHostPool), { minLength: 1, maxLength: 2 }), weight: 12 },
    { arbitrary: fc.constant<string[]>([]), weight: 1 },
  ),
  secretName: fc.oneof({ arbitrary: fc.constantFrom('tls-a', 'tls-b', 'tls-c'), weight: 8 }, { arbitrary: fc.constantFrom(...secretNamePool), weight: 2 }),
});

const specArb: fc.Arbitrary<IngressSpecModel> = fc.record({
  rules: fc.array(ruleArb, { minLength: 1, maxLength: 3 }),
  tls: fc.oneof({ arbitrary: fc.constant<TlsEntryModel[]>([]), weight: 2 }, { arbitrary: fc.array(tlsEntryArb, { minLength: 1, maxLength: 2 }), weight: 1 }),
  defaultBackend: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
  httpsOnly: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
  nginx: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
  otherClass: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
});

function ingressOf(index: number, model: IngressSpecModel, revision: number): Ingress {
  const ingress: Ingress = {
    kind: 'Ingress',
    metadata: {
      name: `ing-${index}`,
      // Every third Ingress in a second namespace: hosts they share are owned by one namespace (host-ownership.ts),
      // so edits move ownership and refuse or admit the other namespace's rules and TLS entries.
      namespace: index % 3 === 2 ? 'tenant' : namespace,
      // Ages decide conflicts: distinct, in index order.
      creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
      generation: revision,
      ...(model.nginx || model.httpsOnly
        ? { annotations: { ...(model.nginx ? { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' } : {}), ...(model.httpsOnly ? { [`${annotationPrefix}https-only`]: 'true' } : {}) } }
        : {}),
    },
    spec: {
      ingressClassName: model.otherClass ? 'other' : 'envoy-ingress',
      rules: model.rules.map((rule) => ({
        ...(rule.host === undefined ? {} : { host: rule.host }),
        http: {
          paths: rule.paths.map((p) => ({
            path: p.path,
            pathType: p.exact ? 'Exact' : 'Prefix',
            backend: { service: { name: p.service, port: { number: 80 } } },
          })),
        },
      })),
    },
  };
  if (model.tls.length > 0) {
    ingress.spec!.tls = model.tls.map((entry) => ({ ...(entry.hosts.length === 0 ? {} : { hosts: entry.hosts }), ...(entry.secretName === '' ? {} : { secretName: entry.secretName }) }));
  }
  if (model.defaultBackend) ingress.spec!.defaultBackend = { service: { name: 'web', port: { number: 80 } } };
  return ingress;
}

/** What a Secret holds: a certificate for every pool host, the same names in other bytes, other names, garbage. */
type SecretVariant = 'valid' | 'rotated' | 'other-names' | 'invalid' | 'deleted';
const secretEditArb = fc.record({
  name: fc.constantFrom('tls-a', 'tls-b', 'tls-c', 'other/tls-a'),
  variant: fc.constantFrom<SecretVariant>('valid', 'rotated', 'other-names', 'invalid', 'deleted'),
});

const editArb = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('set' as const), target: fc.nat(), spec: specArb }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('service' as const), variant: fc.constantFrom(80, 81, 0) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('add' as const), spec: specArb }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('secret' as const), secret: secretEditArb }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('set+secret' as const), target: fc.nat(), spec: specArb, secret: secretEditArb }), weight: 1 },
  // An Ingress and an object of any kind of the kind table, or of a kind no entry names, changed in one batch.
  { arbitrary: fc.record({ kind: fc.constant('set+other' as const), target: fc.nat(), spec: specArb, other: fc.constantFrom<OtherKind>(...kindNames, 'Unknown') }), weight: 2 },
);

/** A kind of the table, or one the table does not have (a kind added to the store before its entry). */
type OtherKind = KindName | 'Unknown';

/** A state field no kind of the table names. */
const unknownField = 'widgets';

/**
 * A change of one object of each kind that leaves the translation as it was (it must still be spliced right, or
 * declined when a routes build cannot take a change of that kind): a new version of an object, or an object that
 * comes or goes.
 */
const otherChanges: Record<OtherKind, (state: ClusterState) => ClusterState> = {
  Ingress: (state) => ({ ...state, ingresses: state.ingresses.map((x, i) => (i === 0 ? structuredClone(x) : x)) }),
  IngressClass: (state) => {
    const spare = state.ingressClasses.some((c) => c.metadata.name === 'spare');
    return {
      ...state,
      ingressClasses: spare
        ? state.ingressClasses.filter((c) => c.metadata.name !== 'spare')
        : [...state.ingressClasses, { kind: 'IngressClass', metadata: { name: 'spare' }, spec: { controller: 'example.com/other' } }],
    };
  },
  Service: (state) => ({ ...state, services: state.services.map((x, i) => (i === 0 ? structuredClone(x) : x)) }),
  EndpointSlice: (state) => ({
    ...state,
    endpointSlices: [
      { kind: 'EndpointSlice', metadata: { name: `web-${state.endpointSlices.length}`, namespace, labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ name: 'http', port: 8080 }] },
    ],
  }),
  Endpoints: (state) => ({ ...state, endpoints: [{ kind: 'Endpoints', metadata: { name: 'web', namespace }, subsets: [{ addresses: [{ ip: `10.0.1.${state.endpoints.length + 1}` }], ports: [{ port: 8080 }] }] }] }),
  Secret: (state) => ({ ...state, secrets: state.secrets.map((x, i) => (i === 0 ? structuredClone(x) : x)) }),
  ConfigMap: (state) => ({
    ...state,
    configMaps: (state.configMaps ?? []).length > 0 ? [] : [{ kind: 'ConfigMap', metadata: { name: 'unrelated', namespace }, data: { a: 'b' } }],
  }),
  // A Namespace: only Gateway listeners' allowedRoutes read its labels (a full kind, a routes build declines).
  Namespace: (state) => ({
    ...state,
    namespaces: (state.namespaces ?? []).length > 0 ? [] : [{ kind: 'Namespace', metadata: { name: namespace, labels: { team: 'a' } } }],
  }),
  // Gateway API objects no Gateway of ours uses: the translation is unchanged, a routes build declines (full kinds).
  GatewayClass: (state) => ({
    ...state,
    gatewayClasses: (state.gatewayClasses ?? []).length > 0 ? [] : [{ kind: 'GatewayClass', metadata: { name: 'other' }, spec: { controllerName: 'example.com/other' } }],
  }),
  Gateway: (state) => ({
    ...state,
    gateways: (state.gateways ?? []).length > 0 ? [] : [{ kind: 'Gateway', metadata: { name: 'other', namespace }, spec: { gatewayClassName: 'other', listeners: [] } }],
  }),
  HTTPRoute: (state) => ({
    ...state,
    httpRoutes: (state.httpRoutes ?? []).length > 0 ? [] : [{ kind: 'HTTPRoute', metadata: { name: 'unattached', namespace }, spec: {} }],
  }),
  TLSRoute: (state) => ({
    ...state,
    tlsRoutes: (state.tlsRoutes ?? []).length > 0 ? [] : [{ kind: 'TLSRoute', metadata: { name: 'unattached', namespace }, spec: {} }],
  }),
  TCPRoute: (state) => ({
    ...state,
    tcpRoutes: (state.tcpRoutes ?? []).length > 0 ? [] : [{ kind: 'TCPRoute', metadata: { name: 'unattached', namespace }, spec: {} }],
  }),
  GRPCRoute: (state) => ({
    ...state,
    grpcRoutes: (state.grpcRoutes ?? []).length > 0 ? [] : [{ kind: 'GRPCRoute', metadata: { name: 'unattached', namespace }, spec: {} }],
  }),
  ReferenceGrant: (state) => ({
    ...state,
    referenceGrants: (state.referenceGrants ?? []).length > 0 ? [] : [{ kind: 'ReferenceGrant', metadata: { name: 'unused', namespace }, spec: { from: [], to: [] } }],
  }),
  ListenerSet: (state) => ({
    ...state,
    listenerSets: (state.listenerSets ?? []).length > 0 ? [] : [{ kind: 'ListenerSet', metadata: { name: 'unattached', namespace }, spec: { parentRef: { name: 'other' }, listeners: [] } }],
  }),
  BackendTLSPolicy: (state) => ({
    ...state,
    backendTlsPolicies: (state.backendTlsPolicies ?? []).length > 0 ? [] : [{ kind: 'BackendTLSPolicy', metadata: { name: 'unused', namespace }, spec: { targetRefs: [{ group: '', kind: 'Service', name: 'nothing' }], validation: { hostname: 'a.example' } } }],
  }),
  RoutePolicy: (state) => ({
    ...state,
    routePolicies: (state.routePolicies ?? []).length > 0 ? [] : [{ kind: 'RoutePolicy', metadata: { name: 'unused', namespace }, spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'nothing' }], sourceRanges: { allow: ['10.0.0.0/8'] } } }],
  }),
  Unknown: (state) => ({ ...state, [unknownField]: [{ kind: 'Widget', metadata: { name: 'w', namespace } }] }) as ClusterState,
};

// The kinds whose changes the kind table lets a routes build take, besides endpoint objects (the config builder
// recomputes those), are exactly those the splices look at: this one's (changesBetween) and HTTPRoutes, which the
// Gateway API translation takes (../incremental-translate.ts; the Ingress translation does not read them). A kind
// given `routes` or `secrets` in the table without being taught to a splice does not compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const spliceTakes: Same<KindsWithBuild<'routes' | 'secrets'>, 'Ingress' | 'Service' | 'Secret' | 'HTTPRoute'> = true;
void spliceTakes;

/** Whether a routes build can take a change of `kind` (kinds.ts); a kind the table does not have never. */
function spliceable(kind: OtherKind): boolean {
  return kind !== 'Unknown' && buildTakes('routes', kind);
}

/** The certificates of the Secret variants (issued once: the test CA is slow). */
async function secretCertificates(): Promise<Record<'valid' | 'rotated' | 'other-names', { certPem: string; keyPem: string }>> {
  const ca = await createTestCA({ commonName: 'incremental-translate test CA' });
  const names = ['*.test', '*.w.test'];
  return { valid: await ca.issue({ dnsNames: names }), rotated: await ca.issue({ dnsNames: names }), 'other-names': await ca.issue({ dnsNames: ['elsewhere.example'] }) };
}

/** `secrets` with the Secret `name` (`namespace/name` for another namespace) in the variant, or without it. */
function withSecret(secrets: readonly Secret[], name: string, variant: SecretVariant, certificates: Awaited<ReturnType<typeof secretCertificates>>): Secret[] {
  const [ns, short] = name.includes('/') ? name.split('/') as [string, string] : [namespace, name];
  const kept = secrets.filter((s) => s.metadata.namespace !== ns || s.metadata.name !== short);
  if (variant === 'deleted') return kept;
  const pem = variant === 'invalid' ? { certPem: 'not a certificate', keyPem: 'not a key' } : certificates[variant];
  // Appended, as the store appends a changed object (the lists' order is irrelevant to the translation).
  return [...kept, { kind: 'Secret', metadata: { name: short, namespace: ns }, type: 'kubernetes.io/tls', data: { 'tls.crt': Buffer.from(pem.certPem).toString('base64'), 'tls.key': Buffer.from(pem.keyPem).toString('base64') } }];
}

/** `web` on port 80, and `api` on `apiPort` (0: no `api` Service). */
function services(apiPort = 80): Service[] {
  return (apiPort === 0 ? ['web'] : ['web', 'api']).map((name) => ({
    kind: 'Service',
    metadata: { name, namespace },
    spec: { ports: [{ name: 'http', port: name === 'api' ? apiPort : 80, targetPort: 8080, protocol: 'TCP' }] },
  }));
}

/** Our IngressClass, the `web` and `api` Services and `ingresses`. */
function stateOf(ingresses: Ingress[]): ClusterState {
  return {
    ingressClasses: [{ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: 'envoy-ingress.io/ingress-controller' } }],
    services: services(),
    endpointSlices: [],
    endpoints: [],
    secrets: [],
    ingresses,
  };
}

function comparable(result: TranslationResult): string {
  const { references: _superset, ...rest } = result;
  return JSON.stringify(rest);
}

function sortedUpdate(update: SnapshotUpdate): string {
  const out: Record<string, unknown> = {};
  for (const [kind, list] of Object.entries(update)) {
    if (kind === 'secret') continue; // a routes build leaves SDS as it was (compared separately)
    out[kind] = [...(list ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  return JSON.stringify(out);
}

test('incremental translation equals full translation after every edit, and is used for many of them', async (t) => {
  const certificates = await secretCertificates();
  let initialSecrets: Secret[] = withSecret([], 'tls-a', 'valid', certificates);
  initialSecrets = withSecret(initialSecrets, 'tls-b', 'other-names', certificates);
  initialSecrets = withSecret(initialSecrets, 'other/tls-a', 'valid', certificates);
  const initialBase: Omit<ClusterState, 'ingresses'> = {
    ingressClasses: [{ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: 'envoy-ingress.io/ingress-controller' } }],
    services: services(),
    endpointSlices: [],
    endpoints: [],
    secrets: initialSecrets,
  };
  let base = initialBase;
  let spliced = 0;
  let edits = 0;
  /** Splices of edits that changed a Secret, or the TLS chains. */
  let splicedSecrets = 0;
  let splicedTls = 0;
  fc.assert(
    fc.property(fc.array(specArb, { minLength: 1, maxLength: 10 }), fc.array(editArb, { minLength: 1, maxLength: 12 }), (initial, script) => {
      base = initialBase;
      let next = initial.length;
      let ingresses: readonly Ingress[] = initial.map((spec, i) => ingressOf(i, spec, 1));
      let state: ClusterState = { ...base, ingresses };
      let result = translate(state, defaultTranslateOptions);
      const servedOf = (list: readonly Ingress[]): Ingress[] => list.filter((i) => isServedByUs(i, base.ingressClasses, defaultTranslateOptions));
      let index = HostIndex.of(servedOf(ingresses));
      for (const edit of script) {
        edits += 1;
        if ((edit.kind === 'set' || edit.kind === 'set+secret' || edit.kind === 'set+other') && ingresses.length > 0) {
          const at = edit.target % ingresses.length;
          const index = Number(ingresses[at]!.metadata.name.slice(4));
          ingresses = ingresses.map((ing, i) => (i === at ? ingressOf(index, edit.spec, (ing.metadata.generation ?? 1) + 1) : ing));
        } else if (edit.kind === 'delete' && ingresses.length > 0) {
          const at = edit.target % ingresses.length;
          ingresses = ingresses.filter((_, i) => i !== at);
        } else if (edit.kind === 'add') {
          ingresses = [...ingresses, ingressOf(next++, edit.spec, 1)];
        } else if (edit.kind === 'service') {
          const web = base.services[0]!;
          base = { ...base, services: [web, ...services(edit.variant).slice(1)] };
        }
        if (edit.kind === 'secret' || edit.kind === 'set+secret') base = { ...base, secrets: withSecret(base.secrets, edit.secret.name, edit.secret.variant, certificates) };
        let after: ClusterState = { ...base, ingresses };
        if (edit.kind === 'set+other') {
          ({ ingresses, ...base } = otherChanges[edit.other](after));
          after = { ...base, ingresses };
        }
        const full = translate(after, defaultTranslateOptions);
        const incremental = translateIncrementally({ state, result, index }, after, defaultTranslateOptions);
        // A change of a kind a routes build cannot take (a global input, a kind the splice does not know) is never spliced.
        if (incremental !== undefined && edit.kind === 'set+other' && !spliceable(edit.other)) return false;
        if (incremental !== undefined) {
          spliced += 1;
          if (base.secrets !== state.secrets) splicedSecrets += 1;
          if (JSON.stringify(chainsOf(result)) !== JSON.stringify(chainsOf(full))) splicedTls += 1;
          if (comparable(incremental) !== comparable(full)) return false;
          for (const kind of ['services', 'secrets'] as const) {
            if (!full.references[kind].every((name) => incremental.references[kind].includes(name))) return false;
          }
          result = incremental;
          // The index was carried forward in place: it must describe the new state.
          if (!sameIndex(index, HostIndex.of(servedOf(after.ingresses)))) return false;
        } else {
          // Declined: the index is restored, then the caller translates fully and starts over (as ConfigBuilder does).
          if (!sameIndex(index, HostIndex.of(servedOf(state.ingresses)))) return false;
          result = full;
          index = HostIndex.of(servedOf(after.ingresses));
        }
        state = after;
      }
      return true;
    }),
    { numRuns: 300, seed: 20261122 },
  );
  t.log(`${spliced} of ${edits} edits spliced, ${splicedSecrets} of them changing Secrets, ${splicedTls} changing TLS chains or certificates`);
  // Many generated edits touch what is not spliced (host-less rules, default backends, nginx annotations, entries
  // without hosts): what matters is that hundreds of splices were compared with full translations.
  t.true(spliced > edits / 6, `only ${spliced} of ${edits} edits were translated incrementally`);
  t.true(splicedSecrets > 50 && splicedTls > 50, `Secret edits spliced: ${splicedSecrets}, TLS changes spliced: ${splicedTls}`);
});

/** The TLS chains and certificates of a result (what a splice of a TLS change must get right beside the tables). */
function chainsOf(result: TranslationResult): unknown {
  return [ingressTlsServersOf(result.ir).map((s) => [s.name, s.serverNames, s.secret]), result.ir.secrets];
}

function sameIndex(a: HostIndex, b: HostIndex): boolean {
  const hosts = (i: HostIndex): string =>
    JSON.stringify([...i.hosts()].map(([host, set]) => [host, [...set].map((x) => x.metadata.name).sort()]).sort());
  return hosts(a) === hosts(b);
}

test('ConfigBuilder: a new Ingress with its own new Service and EndpointSlice is a routes build equal to a full build', async (t) => {
  const { syntheticCluster, syntheticIngress, syntheticService, syntheticSlice } = await import('../../../bench/synthetic-cluster.js');
  const tls = await benchCertificate();
  let state = syntheticCluster({ ingresses: 40, tls });
  const builder = new ConfigBuilder(benchReconcileOptions);
  builder.build(state, () => undefined);
  for (const i of [40, 41]) {
    state = {
      ...state,
      ingresses: [...state.ingresses, syntheticIngress(i, () => 0.5, false)],
      services: [...state.services, syntheticService(i)],
      endpointSlices: [...state.endpointSlices, syntheticSlice(i, 3)],
    };
    const { built } = builder.build(state, () => undefined);
    t.is(built.kind, 'routes');
    t.is(JSON.stringify(built.update.clusterLoadAssignment?.find((c) => c.name.includes(`svc-${i}/`))?.resource ?? null).includes('10.0.'), true);
    t.is(sortedUpdate(built.update), sortedUpdate(fullUpdate(buildConfig(state, benchReconcileOptions).resources)));
  }
  // A changed EndpointSlice of an existing Service together with an Ingress change: its endpoints are recomputed.
  const slice = syntheticSlice(3, 5, (s, e) => ({ address: `10.9.${s}.${e + 1}`, port: 8080 }), 1);
  const ingress = structuredClone(state.ingresses[5]!);
  ingress.spec!.rules![0]!.http!.paths[0]!.path = '/moved';
  state = {
    ...state,
    ingresses: state.ingresses.map((x, i) => (i === 5 ? ingress : x)),
    endpointSlices: state.endpointSlices.map((x) => (x.metadata.name === slice.metadata.name ? slice : x)),
  };
  const { built } = builder.build(state, () => undefined);
  t.is(built.kind, 'routes');
  t.is(sortedUpdate(built.update), sortedUpdate(fullUpdate(buildConfig(state, benchReconcileOptions).resources)));
});

test('ConfigBuilder: after a refused routes build (its host index already moved on) the next build starts over and equals a full build', async (t) => {
  const { syntheticCluster } = await import('../../../bench/synthetic-cluster.js');
  const tls = await benchCertificate();
  const state = syntheticCluster({ ingresses: 30, tls });
  const builder = new ConfigBuilder(benchReconcileOptions);
  builder.build(state, () => undefined);
  const moved = structuredClone(state.ingresses[4]!);
  moved.spec!.rules![0]!.host = 'moved.bench.test';
  const refused = { ...state, ingresses: state.ingresses.map((x, i) => (i === 4 ? moved : x)) };
  t.throws(() =>
    builder.build(refused, () => {
      throw new Error('refused');
    }),
  );
  const other = structuredClone(state.ingresses[9]!);
  other.spec!.rules![0]!.http!.paths[0]!.path = '/other';
  const next = { ...state, ingresses: state.ingresses.map((x, i) => (i === 9 ? other : x)) };
  const { built } = builder.build(next, () => undefined);
  t.is(built.kind, 'full');
  t.is(sortedUpdate(built.update), sortedUpdate(fullUpdate(buildConfig(next, benchReconcileOptions).resources)));
  // And incremental again from there.
  const again = { ...next, ingresses: next.ingresses.map((x, i) => (i === 4 ? moved : x)) };
  const second = builder.build(again, () => undefined).built;
  t.is(second.kind, 'routes');
  t.is(sortedUpdate(second.update), sortedUpdate(fullUpdate(buildConfig(again, benchReconcileOptions).resources)));
});

test('a declined splice leaves the host index as it was', (t) => {
  const state = stateOf([ingressOf(0, { rules: [{ host: 'a.test', paths: [{ path: '/', exact: false, service: 'web' }] }], tls: [], defaultBackend: false, httpsOnly: false, nginx: false, otherClass: false }, 1)]);
  const index = HostIndex.of(state.ingresses);
  const result = translate(state, defaultTranslateOptions);
  // A host-less rule reaches the catch-all: declined.
  const hostless = ingressOf(0, { rules: [{ host: undefined, paths: [{ path: '/', exact: false, service: 'web' }] }], tls: [], defaultBackend: false, httpsOnly: false, nginx: false, otherClass: false }, 2);
  t.is(translateIncrementally({ state, result, index }, { ...state, ingresses: [hostless] }, defaultTranslateOptions), undefined);
  t.deepEqual([...index.contributors('a.test')], state.ingresses);
  t.deepEqual([...index.contributors('*')], []);
});

test('ConfigBuilder: a one-Ingress change is a routes build that gives what a full build gives, encoding only the changed hosts', async (t) => {
  const { syntheticCluster } = await import('../../../bench/synthetic-cluster.js');
  const tls = await benchCertificate();
  let state = syntheticCluster({ ingresses: 60, tls });
  const builder = new ConfigBuilder(benchReconcileOptions);
  const { SnapshotCache } = await import('../../../xds/snapshot-cache.js');
  const cache = new SnapshotCache();
  let previousBuild: IncrementalBuild | undefined = builder.build(state, (u) => cache.update(u)).built;
  for (const k of [3, 17, 42]) {
    const ingress = structuredClone(state.ingresses[k]!);
    ingress.spec!.rules![0]!.http!.paths[0]!.path = `/changed-${k}`;
    state = { ...state, ingresses: state.ingresses.map((x, i) => (i === k ? ingress : x)) };
    const before = cache.snapshot.resources.virtualHost;
    const last = builder.build(state, (u) => cache.update(u));
    const { built } = last;
    t.is(built.kind, 'routes');
    // Same Services, same clusters: the same list and endpoints, so nothing keyed by them is walked again; from the
    // second routes build on (the first makes the list of the reused endpoints), the same CDS and EDS lists too.
    if (previousBuild !== undefined) {
      t.is(built.translation.ir.clusters, previousBuild.translation.ir.clusters);
      t.is(built.endpoints, previousBuild.endpoints);
      if (previousBuild.kind === 'routes') {
        t.is(built.update.cluster, previousBuild.update.cluster);
        t.is(built.update.clusterLoadAssignment, previousBuild.update.clusterLoadAssignment);
      }
    }
    previousBuild = built;
    const after = cache.snapshot.resources.virtualHost;
    const changedHosts = [...after].filter(([name, r]) => before.get(name) !== r).map(([name]) => name);
    // Both listeners share one table: the host's one virtual host changed, nothing else.
    const host = ingress.spec!.rules![0]!.host!;
    t.deepEqual(changedHosts.sort(), [`ingress/${host}`]);
    t.is(sortedUpdate(built.update), sortedUpdate(fullUpdate(buildConfig(state, benchReconcileOptions).resources)));
    t.is(cache.lastEncoded.cluster ?? 0, 0, 'no cluster encoded again');
    t.is(cache.lastEncoded.clusterLoadAssignment ?? 0, 0, 'no endpoints encoded again');
    // The changed Ingress's hosts are translated and encoded again (unchanged ones keep their bytes and versions).
    const hosts = ingress.spec!.rules!.length;
    t.true((cache.lastEncoded.virtualHost ?? 0) <= hosts, `only the changed Ingress's hosts: ${JSON.stringify(cache.lastEncoded)}`);
  }
});

test('ConfigBuilder with the ingress-nginx ConfigMap: an Ingress change splices what a full build gives; a ConfigMap change is a full build', async (t) => {
  const { syntheticCluster } = await import('../../../bench/synthetic-cluster.js');
  const tls = await benchCertificate();
  const ref = { namespace: 'ingress-nginx', name: 'ingress-nginx-controller' };
  const options = { ...benchReconcileOptions, translate: { ...benchReconcileOptions.translate, nginxAnnotations: true, nginxConfigMap: ref } };
  const configMap = (data: Record<string, string>) => ({ kind: 'ConfigMap' as const, metadata: { ...ref }, data });
  let state: ClusterState = {
    ...syntheticCluster({ ingresses: 30, tls }),
    configMaps: [configMap({ 'use-gzip': 'true', 'hsts-max-age': '100', 'use-forwarded-headers': 'true', 'proxy-body-size': '2m' })],
  };
  const builder = new ConfigBuilder(options);
  builder.build(state, () => undefined);
  const ingress = structuredClone(state.ingresses[5]!);
  ingress.spec!.rules![0]!.http!.paths[0]!.path = '/changed';
  state = { ...state, ingresses: state.ingresses.map((x, i) => (i === 5 ? ingress : x)) };
  const spliced = builder.build(state, () => undefined).built;
  t.is(spliced.kind, 'routes');
  t.is(sortedUpdate(spliced.update), sortedUpdate(fullUpdate(buildConfig(state, options).resources)));
  t.regex(sortedUpdate(spliced.update), /"max_request_bytes":2097152/);
  state = { ...state, configMaps: [configMap({ 'proxy-body-size': '3m' })] };
  const changed = builder.build(state, () => undefined).built;
  t.is(changed.kind, 'full');
  t.regex(sortedUpdate(changed.update), /"max_request_bytes":3145728/);
});

test('a host that is also a server-alias or www-redirect name of another Ingress: the splice is declined, or equals a full translation', (t) => {
  const options = { ...defaultTranslateOptions, nginxAnnotations: true };
  const plain = (host: string, revision: number): Ingress =>
    ingressOf(1, { rules: [{ host, paths: [{ path: '/', exact: false, service: 'api' }] }], tls: [], defaultBackend: false, httpsOnly: false, nginx: false, otherClass: false }, revision);
  for (const annotation of [{ 'nginx.ingress.kubernetes.io/server-alias': 'x.test' }, { 'nginx.ingress.kubernetes.io/from-to-www-redirect': 'true' }]) {
    const named = ingressOf(0, { rules: [{ host: 'y.test', paths: [{ path: '/', exact: false, service: 'web' }] }], tls: [], defaultBackend: false, httpsOnly: false, nginx: false, otherClass: false }, 1);
    named.metadata.annotations = annotation;
    const state = stateOf([named, plain('b.test', 1)]);
    const base = { state, result: translate(state, options), index: HostIndex.of(state.ingresses) };
    // The plain Ingress now names the alias (or the www name) as a host of its own.
    const next = { ...state, ingresses: [named, plain(annotation['nginx.ingress.kubernetes.io/server-alias'] ?? 'www.y.test', 2)] };
    const spliced = translateIncrementally(base, next, options);
    if (spliced !== undefined) t.is(comparable(spliced), comparable(translate(next, options)), JSON.stringify(annotation));
    else t.pass();
  }
});

test('a host whose Services only the https table forwards to (https-only), next to TLS elsewhere: declined or equal to a full translation', async (t) => {
  const certificates = await secretCertificates();
  const model = (host: string, service: string, tls: TlsEntryModel[], httpsOnly: boolean): IngressSpecModel => ({
    rules: [{ host, paths: [{ path: '/', exact: false, service }] }],
    tls,
    defaultBackend: false,
    httpsOnly,
    nginx: false,
    otherClass: false,
  });
  const state: ClusterState = { ...stateOf([ingressOf(0, model('a.test', 'web', [{ hosts: ['a.test'], secretName: 'tls-a' }], false), 1)]), secrets: withSecret([], 'tls-a', 'valid', certificates) };
  const base = { state, result: translate(state, defaultTranslateOptions), index: HostIndex.of(state.ingresses) };
  // The new Ingress's own translation serves no TLS chain, so it leaves out the cluster only its https routes use.
  const next = { ...state, ingresses: [...state.ingresses, ingressOf(1, model('b.test', 'api', [], true), 1)] };
  const full = translate(next, defaultTranslateOptions);
  t.true(full.ir.clusters.some((c) => c.service.name === 'api'));
  const spliced = translateIncrementally(base, next, defaultTranslateOptions);
  if (spliced === undefined) t.pass();
  else t.is(comparable(spliced), comparable(full));
});

test('a batch changing an Ingress and an object of a kind the splice does not know is not spliced: a full build takes both', async (t) => {
  const { syntheticCluster } = await import('../../../bench/synthetic-cluster.js');
  const tls = await benchCertificate();
  // A kind in the store that the kind table (and so the splice) does not have yet, e.g. a Gateway API one.
  const withWidget = (state: ClusterState, version: string): ClusterState =>
    ({ ...state, [unknownField]: [{ kind: 'Widget', metadata: { name: 'w', namespace, resourceVersion: version } }] }) as ClusterState;
  let state = withWidget(syntheticCluster({ ingresses: 20, tls }), '1');
  const builder = new ConfigBuilder(benchReconcileOptions);
  builder.build(state, () => undefined);
  const ingress = structuredClone(state.ingresses[3]!);
  ingress.spec!.rules![0]!.http!.paths[0]!.path = '/changed';
  const base = { state, result: translate(state, defaultTranslateOptions), index: HostIndex.of(state.ingresses) };
  state = withWidget({ ...state, ingresses: state.ingresses.map((x, i) => (i === 3 ? ingress : x)) }, '2');
  t.is(translateIncrementally(base, state, defaultTranslateOptions), undefined);
  t.is(builder.build(state, () => undefined).built.kind, 'full');
  // The same Ingress change alone is spliced.
  const alone = { ...state, ingresses: state.ingresses.map((x, i) => (i === 3 ? structuredClone(ingress) : x)) };
  t.is(builder.build(alone, () => undefined).built.kind, 'routes');
});
