// ListenerSet translation and status, on the scenarios of the upstream conformance tests (listenerset-*.go, v1.6.3):
// which sets a Gateway takes (allowedListeners), the listener precedence across the Gateway and its sets, routes
// reaching a set's listeners only through a parentRef to the set, ReferenceGrants of the set's own kind, and the
// tenant rule (a set of another namespace never takes a host another namespace's listener serves).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { stringify } from 'yaml';
import type { ListenerIR } from '../../../ir/index.js';
import { clusterStateFromYaml } from '../shared/cluster-state-yaml.js';
import type { Secret } from '../shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from '../shared/options.js';
import { translate } from '../translate.js';
import type { GatewayApiStatus, ListenerStatusData, StatusCondition } from './status-data.js';

const tlsFixture = fileURLToPath(new URL('../../../../testdata/translate/gateway-api-https-listeners.in.yaml', import.meta.url));
const certificate = clusterStateFromYaml(readFileSync(tlsFixture, 'utf8')).state.secrets.find((s) => s.metadata.name === 'wildcard-tls') as Secret;

const header = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ours}
spec: {controllerName: envoy-ingress.io/gateway-controller}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 8080}]}
`;

function run(yaml: string, options: TranslateOptions = defaultTranslateOptions): { status: GatewayApiStatus; listeners: ListenerIR[] } {
  const { state } = clusterStateFromYaml(header + yaml);
  const { gatewayApiStatus, ir } = translate(state, options);
  if (gatewayApiStatus === undefined) throw new Error('no Gateway API status');
  return { status: gatewayApiStatus, listeners: ir.listeners };
}

const gatewayYaml = (name: string, from: string | undefined, listeners: string, namespace = 'infra'): string => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ${name}, namespace: ${namespace}, creationTimestamp: '2026-01-01T00:00:00Z'}
spec:
  gatewayClassName: ours
  ${from === undefined ? '' : `allowedListeners: {namespaces: {from: ${from}}}`}
  listeners: ${listeners}
`;

const setYaml = (name: string, namespace: string, gateway: string, listeners: string, created = '2026-01-02T00:00:00Z'): string => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ${name}, namespace: ${namespace}, generation: 4, creationTimestamp: '${created}'}
spec:
  parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: ${gateway}, namespace: infra}
  listeners: ${listeners}
`;

const http = (name: string, hostname: string, from = 'All', port = 9080): string => `{name: ${name}, port: ${port}, protocol: HTTP, hostname: ${hostname}, allowedRoutes: {namespaces: {from: ${from}}}}`;

const routeYaml = (name: string, namespace: string, parentRefs: string, path: string): string => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: ${namespace}, creationTimestamp: '2026-01-03T00:00:00Z'}
spec:
  parentRefs: ${parentRefs}
  rules: [{matches: [{path: {type: PathPrefix, value: ${path}}}], backendRefs: [{name: web, namespace: infra, port: 8080}]}]
`;

const namespaceYaml = (name: string, labels = '{}'): string => `
---
apiVersion: v1
kind: Namespace
metadata: {name: ${name}, labels: ${labels}}
`;

function conditionOf(conditions: readonly StatusCondition[] | undefined, type: string): string {
  const c = conditions?.find((x) => x.type === type);
  return c === undefined ? 'absent' : `${c.status}/${c.reason}`;
}

function setOf(status: GatewayApiStatus, namespace: string, name: string) {
  const found = status.listenerSets?.find((s) => s.ref.namespace === namespace && s.ref.name === name);
  if (found === undefined) throw new Error(`no status for ListenerSet ${namespace}/${name}`);
  return found;
}

const summary = (l: ListenerStatusData | undefined): string[] =>
  ['Accepted', 'Programmed', 'ResolvedRefs', 'Conflicted'].map((type) => `${type}=${conditionOf(l?.conditions, type)}`);

/** Hosts of the HTTP route table on a port, with the HTTPRoutes (namespace/name) each one serves. */
function hostsOn(listeners: readonly ListenerIR[], name: string): Record<string, string[]> {
  const listener = listeners.find((l) => l.name === name);
  const out: Record<string, string[]> = {};
  for (const vh of listener?.routeTable?.virtualHosts ?? []) {
    out[vh.hostnames.join(',')] = [...new Set(vh.routes.flatMap((r) => (r.source === undefined ? [] : [`${r.source.namespace}/${r.source.name}`])))].sort();
  }
  return out;
}

test('allowedListeners: absent and None take no ListenerSet (NotAllowed), Same its namespace\'s, Selector the labelled namespaces\'', (t) => {
  const setListener = (n: string): string => `[${http(n, `${n}.example.com`)}]`;
  const { status, listeners } = run(
    namespaceYaml('infra') +
      namespaceYaml('picked', '{allowed: ns}') +
      namespaceYaml('other') +
      gatewayYaml('default-gw', undefined, `[${http('gw', 'gw.example.com')}]`) +
      gatewayYaml('none-gw', 'None', `[${http('gw', 'none.example.com', 'All', 9081)}]`) +
      gatewayYaml('same-gw', 'Same', `[${http('gw', 'same.example.com', 'All', 9082)}]`) +
      `
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: selector-gw, namespace: infra}
spec:
  gatewayClassName: ours
  allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {allowed: ns}}}}
  listeners: [${http('gw', 'selector.example.com', 'All', 9083)}]
` +
      setYaml('to-default', 'infra', 'default-gw', setListener('to-default')) +
      setYaml('to-none', 'infra', 'none-gw', setListener('to-none')) +
      setYaml('same-ns', 'infra', 'same-gw', setListener('same-ns')) +
      setYaml('other-ns', 'other', 'same-gw', setListener('other-ns')) +
      setYaml('picked-ns', 'picked', 'selector-gw', setListener('picked-ns')) +
      setYaml('unpicked-ns', 'other', 'selector-gw', setListener('unpicked-ns')),
  );
  const conditions = (ns: string, name: string): string[] => ['Accepted', 'Programmed'].map((type) => conditionOf(setOf(status, ns, name).conditions, type));
  t.deepEqual(conditions('infra', 'to-default'), ['False/NotAllowed', 'False/NotAllowed']);
  t.deepEqual(conditions('infra', 'to-none'), ['False/NotAllowed', 'False/NotAllowed']);
  t.deepEqual(conditions('other', 'other-ns'), ['False/NotAllowed', 'False/NotAllowed']);
  t.deepEqual(conditions('other', 'unpicked-ns'), ['False/NotAllowed', 'False/NotAllowed']);
  t.deepEqual(conditions('infra', 'same-ns'), ['True/Accepted', 'True/Programmed']);
  t.deepEqual(conditions('picked', 'picked-ns'), ['True/Accepted', 'True/Programmed']);
  t.deepEqual(summary(setOf(status, 'picked', 'picked-ns').listeners[0]), ['Accepted=True/Accepted', 'Programmed=True/Programmed', 'ResolvedRefs=True/ResolvedRefs', 'Conflicted=False/NoConflicts']);
  t.is(setOf(status, 'picked', 'picked-ns').conditions[0]?.observedGeneration, 4);
  const attached = Object.fromEntries(status.gateways.map((g) => [g.ref.name, g.attachedListenerSets ?? 0]));
  t.deepEqual(attached, { 'default-gw': 0, 'none-gw': 0, 'same-gw': 1, 'selector-gw': 1 });
  // Only the taken sets' hostnames are served (no route yet: their hosts answer 404 until one attaches).
  const served = listeners.flatMap((l) => (l.routeTable?.virtualHosts ?? []).flatMap((vh) => vh.hostnames)).filter((h) => h.endsWith('.example.com'));
  t.false(served.some((h) => h.startsWith('to-') || h.startsWith('other-ns') || h.startsWith('unpicked')));
});

test('listener precedence: the Gateway\'s listeners, then sets oldest first, keep their hostname and protocol; a set with no listener left is not Accepted', (t) => {
  const { status } = run(
    gatewayYaml('gw', 'Same', `[${http('gateway-listener', 'gateway.example.com')}, ${http('taken-by-gateway', 'conflict-gw.example.com')}]`) +
      setYaml('set-1', 'infra', 'gw', `[${http('set-1-listener', 'set-1.example.com')}, ${http('taken-by-gateway', 'conflict-gw.example.com')}, ${http('first-set-wins', 'conflict-set.example.com')}, {name: tcp-on-http-port, port: 9080, protocol: TCP}]`, '2026-01-02T00:00:00Z') +
      setYaml('set-2', 'infra', 'gw', `[${http('taken-by-gateway', 'conflict-gw.example.com')}]`, '2026-01-02T00:00:00Z') +
      setYaml('set-3', 'infra', 'gw', `[${http('set-3-listener', 'set-3.example.com')}, ${http('first-set-wins', 'conflict-set.example.com')}]`, '2026-01-03T00:00:00Z'),
  );
  const gateway = status.gateways.find((g) => g.ref.name === 'gw');
  t.deepEqual(gateway?.listeners.map((l) => `${l.name}:${conditionOf(l.conditions, 'Accepted')}`), ['gateway-listener:True/Accepted', 'taken-by-gateway:True/Accepted']);
  const listener = (set: string, name: string): string[] => summary(setOf(status, 'infra', set).listeners.find((l) => l.name === name));
  t.deepEqual(listener('set-1', 'set-1-listener'), ['Accepted=True/Accepted', 'Programmed=True/Programmed', 'ResolvedRefs=True/ResolvedRefs', 'Conflicted=False/NoConflicts']);
  t.deepEqual(listener('set-1', 'taken-by-gateway'), ['Accepted=False/HostnameConflict', 'Programmed=False/HostnameConflict', 'ResolvedRefs=True/ResolvedRefs', 'Conflicted=True/HostnameConflict']);
  t.deepEqual(listener('set-1', 'first-set-wins').slice(0, 1), ['Accepted=True/Accepted']);
  t.deepEqual(listener('set-1', 'tcp-on-http-port'), ['Accepted=False/ProtocolConflict', 'Programmed=False/ProtocolConflict', 'ResolvedRefs=True/ResolvedRefs', 'Conflicted=True/ProtocolConflict']);
  t.deepEqual(listener('set-2', 'taken-by-gateway').slice(0, 1), ['Accepted=False/HostnameConflict']);
  t.deepEqual(listener('set-3', 'first-set-wins'), ['Accepted=False/HostnameConflict', 'Programmed=False/HostnameConflict', 'ResolvedRefs=True/ResolvedRefs', 'Conflicted=True/HostnameConflict']);
  const conditions = (set: string): string[] => ['Accepted', 'Programmed'].map((type) => conditionOf(setOf(status, 'infra', set).conditions, type));
  t.deepEqual(conditions('set-1'), ['True/ListenersNotValid', 'True/Programmed']);
  t.deepEqual(conditions('set-2'), ['False/ListenersNotValid', 'False/ListenersNotValid']);
  t.deepEqual(conditions('set-3'), ['True/ListenersNotValid', 'True/Programmed']);
  t.is(gateway?.attachedListenerSets, 2);
});

test('routes reach a set\'s listeners only through a parentRef to the set (sectionName among its listeners), and a Gateway\'s only through the Gateway', (t) => {
  const { status, listeners } = run(
    gatewayYaml('gw', 'All', `[${http('gateway-listener-1', 'gw-1.example.com')}, ${http('gateway-listener-2', 'gw-2.example.com')}]`) +
      setYaml('set', 'infra', 'gw', `[${http('set-listener-1', 'set-1.example.com')}, ${http('set-listener-2', 'set-2.example.com')}]`) +
      routeYaml('everywhere', 'infra', '[{name: gw}, {kind: ListenerSet, group: gateway.networking.k8s.io, name: set}]', '/route') +
      routeYaml('gateway-only', 'infra', '[{name: gw}]', '/gateway-route') +
      routeYaml('set-only', 'infra', '[{kind: ListenerSet, group: gateway.networking.k8s.io, name: set}]', '/set-route') +
      routeYaml('set-section', 'infra', '[{kind: ListenerSet, group: gateway.networking.k8s.io, name: set, sectionName: set-listener-1}]', '/set-section') +
      routeYaml('set-section-via-gateway', 'infra', '[{name: gw, sectionName: set-listener-1}, {kind: ListenerSet, group: gateway.networking.k8s.io, name: set, sectionName: set-listener-1}]', '/dual'),
  );
  t.deepEqual(hostsOn(listeners, 'gateway/http/9080'), {
    'gw-1.example.com': ['infra/everywhere', 'infra/gateway-only'],
    'gw-2.example.com': ['infra/everywhere', 'infra/gateway-only'],
    'set-1.example.com': ['infra/everywhere', 'infra/set-only', 'infra/set-section', 'infra/set-section-via-gateway'],
    'set-2.example.com': ['infra/everywhere', 'infra/set-only'],
  });
  const parents = (name: string): string[] =>
    status.routes.find((r) => r.ref.name === name)?.parents.map((p) => `${p.parentRef.kind ?? 'Gateway'}/${p.parentRef.name}:${conditionOf(p.conditions, 'Accepted')}`) ?? [];
  t.deepEqual(parents('everywhere'), ['Gateway/gw:True/Accepted', 'ListenerSet/set:True/Accepted']);
  t.deepEqual(parents('set-section-via-gateway'), ['Gateway/gw:False/NoMatchingParent', 'ListenerSet/set:True/Accepted']);
  t.deepEqual(parents('gateway-only'), ['Gateway/gw:True/Accepted']);
  t.deepEqual(setOf(status, 'infra', 'set').listeners.map((l) => [l.name, l.attachedRoutes]), [['set-listener-1', 4], ['set-listener-2', 2]]);
  t.deepEqual(status.gateways[0]?.listeners.map((l) => [l.name, l.attachedRoutes]), [['gateway-listener-1', 2], ['gateway-listener-2', 2]]);
});

test('a set\'s allowedRoutes Same means the set\'s namespace; a route to a set that is not taken is refused (NoMatchingParent)', (t) => {
  const { status, listeners } = run(
    namespaceYaml('infra') +
      namespaceYaml('team') +
      gatewayYaml('gw', 'All', `[${http('gateway-listener', 'gw.example.com')}]`) +
      setYaml('team-set', 'team', 'gw', `[${http('team-listener', 'team.example.com', 'Same')}]`) +
      gatewayYaml('closed', undefined, `[${http('gw', 'closed.example.com', 'All', 9081)}]`) +
      setYaml('refused', 'team', 'closed', `[${http('x', 'refused.example.com', 'All', 9081)}]`) +
      routeYaml('team-route', 'team', '[{kind: ListenerSet, group: gateway.networking.k8s.io, name: team-set}]', '/team') +
      routeYaml('infra-route', 'infra', '[{kind: ListenerSet, group: gateway.networking.k8s.io, name: team-set, namespace: team}]', '/infra') +
      routeYaml('to-refused', 'team', '[{kind: ListenerSet, group: gateway.networking.k8s.io, name: refused}]', '/refused'),
  );
  const accepted = (name: string): string => conditionOf(status.routes.find((r) => r.ref.name === name)?.parents[0]?.conditions, 'Accepted');
  t.is(accepted('team-route'), 'True/Accepted');
  t.is(accepted('infra-route'), 'False/NotAllowedByListeners');
  t.is(accepted('to-refused'), 'False/NoMatchingParent');
  t.deepEqual(hostsOn(listeners, 'gateway/http/9080')['team.example.com'], ['team/team-route']);
  t.is(hostsOn(listeners, 'gateway/http/9081')['refused.example.com'], undefined);
});

test('a set\'s certificateRefs across namespaces need a ReferenceGrant from ListenerSets of its namespace (the Gateway\'s grant does not count)', (t) => {
  const secret = stringify({ ...certificate, metadata: { name: 'certificate', namespace: 'certs' } });
  const https = (name: string): string => `[{name: ${name}, port: 9443, protocol: HTTPS, hostname: ${name}.example.com, tls: {certificateRefs: [{name: certificate, namespace: certs}]}}]`;
  const grant = (name: string, kind: string, namespace: string): string => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: ${name}, namespace: certs}
spec: {from: [{group: gateway.networking.k8s.io, kind: ${kind}, namespace: ${namespace}}], to: [{group: '', kind: Secret}]}
`;
  const { status } = run(
    `---\n${secret}` +
      gatewayYaml('gw', 'All', https('gateway-listener')) +
      grant('for-gateways', 'Gateway', 'infra') +
      grant('for-sets', 'ListenerSet', 'infra') +
      setYaml('granted', 'infra', 'gw', https('granted')) +
      setYaml('not-granted', 'elsewhere', 'gw', https('not-granted')),
  );
  t.is(conditionOf(setOf(status, 'infra', 'granted').listeners[0]?.conditions, 'ResolvedRefs'), 'True/ResolvedRefs');
  t.is(conditionOf(setOf(status, 'infra', 'granted').conditions, 'Accepted'), 'True/Accepted');
  t.is(conditionOf(setOf(status, 'elsewhere', 'not-granted').listeners[0]?.conditions, 'ResolvedRefs'), 'False/RefNotPermitted');
  t.is(conditionOf(setOf(status, 'elsewhere', 'not-granted').conditions, 'Accepted'), 'False/ListenersNotValid');
  t.is(conditionOf(setOf(status, 'elsewhere', 'not-granted').conditions, 'Programmed'), 'False/ListenersNotValid');
});

test('a TLS set listener allowing only HTTPRoutes: ResolvedRefs=False InvalidRouteKinds', (t) => {
  const { status } = run(
    gatewayYaml('gw', 'All', `[${http('gateway-listener', 'gw.example.com')}]`) +
      setYaml('kinds', 'infra', 'gw', '[{name: tls-only, port: 9443, protocol: TLS, hostname: tls.example.com, tls: {mode: Passthrough}, allowedRoutes: {kinds: [{kind: HTTPRoute}]}}]'),
  );
  t.is(conditionOf(setOf(status, 'infra', 'kinds').listeners[0]?.conditions, 'ResolvedRefs'), 'False/InvalidRouteKinds');
});

test('tenant isolation: a set of another namespace never takes a host another Gateway\'s listener serves, and its Gateway\'s own ports come first', (t) => {
  const { status, listeners } = run(
    gatewayYaml('tenant-a', undefined, `[${http('a', 'shop.example.com', 'Same')}]`, 'a') +
      gatewayYaml('open', 'All', `[${http('open', 'open.example.com')}]`) +
      setYaml('grab', 'b', 'open', `[${http('grab', 'shop.example.com')}]`) +
      routeYaml('a-route', 'a', '[{name: tenant-a}]', '/') +
      routeYaml('b-route', 'b', '[{kind: ListenerSet, group: gateway.networking.k8s.io, name: grab}]', '/'),
  );
  t.deepEqual(summary(setOf(status, 'b', 'grab').listeners[0]).slice(0, 1), ['Accepted=False/HostnameConflict']);
  t.deepEqual(hostsOn(listeners, 'gateway/http/9080')['shop.example.com'], ['a/a-route']);
  t.is(conditionOf(status.routes.find((r) => r.ref.name === 'b-route')?.parents[0]?.conditions, 'Accepted'), 'False/NoMatchingParent');
});

test('own ports (--gateway-port-range): a set\'s port the Gateway lacks gets an Envoy port of the Gateway\'s', (t) => {
  const options: TranslateOptions = { ...defaultTranslateOptions, gatewayAddressing: { mode: 'service', namespace: 'envoy-ingress', portRange: { first: 20000, last: 20099 } } };
  const { status, listeners } = run(
    gatewayYaml('gw', 'Same', `[${http('web', 'web.example.com', 'All', 80)}]`) + setYaml('extra', 'infra', 'gw', `[${http('extra', 'extra.example.com', 'All', 81)}]`),
    options,
  );
  t.deepEqual(summary(setOf(status, 'infra', 'extra').listeners[0]).slice(0, 2), ['Accepted=True/Accepted', 'Programmed=True/Programmed']);
  t.true(listeners.some((l) => l.name === 'gateway/infra/gw/http/81' && l.port >= 20000 && l.port <= 20099));
});

test('a Gateway refused as a whole (UnsupportedAddress) leaves its sets ParentNotAccepted, serving nothing', (t) => {
  const options: TranslateOptions = { ...defaultTranslateOptions, gatewayAddressing: { mode: 'service', namespace: 'envoy-ingress', portRange: { first: 20000, last: 20099 } } };
  const { status, listeners } = run(
    `
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: ours
  addresses: [{type: Hostname, value: gw.example.com}]
  allowedListeners: {namespaces: {from: Same}}
  listeners: [${http('web', 'web.example.com', 'All', 80)}]
` + setYaml('extra', 'infra', 'gw', `[${http('extra', 'extra.example.com', 'All', 81)}]`),
    options,
  );
  t.deepEqual(['Accepted', 'Programmed'].map((type) => conditionOf(setOf(status, 'infra', 'extra').conditions, type)), ['False/ParentNotAccepted', 'False/ParentNotAccepted']);
  t.false(listeners.some((l) => l.name.startsWith('gateway/infra/gw/')));
});
