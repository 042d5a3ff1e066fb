import { createHash } from 'node:crypto';
import test from 'ava';
import type { Diagnostic } from '../shared/diagnostics.js';
import { indexServices } from '../shared/backend.js';
import type { ClusterState, HTTPRoute, RoutePolicy, Secret, Service } from '../shared/kube-objects.js';
import { type AppliedRoutePolicy, resolveRoutePolicies } from './route-policies.js';

const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;

function route(name: string, ruleNames: string[] = [], namespace = 'team'): HTTPRoute {
  return { kind: 'HTTPRoute', metadata: { name, namespace }, spec: { rules: ruleNames.map((n) => ({ name: n })) } };
}

function policy(name: string, targets: { name: string; sectionName?: string; kind?: string }[], spec: Omit<NonNullable<RoutePolicy['spec']>, 'targetRefs'>, meta: { creationTimestamp?: string; generation?: number; namespace?: string } = {}): RoutePolicy {
  return {
    kind: 'RoutePolicy',
    metadata: { name, namespace: meta.namespace ?? 'team', ...(meta.creationTimestamp === undefined ? {} : { creationTimestamp: meta.creationTimestamp }), ...(meta.generation === undefined ? {} : { generation: meta.generation }) },
    spec: { targetRefs: targets.map((t) => ({ group: 'gateway.networking.k8s.io', kind: t.kind ?? 'HTTPRoute', name: t.name, ...(t.sectionName === undefined ? {} : { sectionName: t.sectionName }) })), ...spec },
  };
}

function secret(name: string, data: Record<string, string>, namespace = 'team'): Secret {
  return { kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) } as Secret;
}

function resolve(policies: RoutePolicy[], routes: HTTPRoute[] = [route('web', ['admin'])], secrets: Secret[] = [], services: Service[] = []) {
  const state = { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets, httpRoutes: routes, routePolicies: policies } as ClusterState;
  const diagnostics: Diagnostic[] = [];
  const result = resolveRoutePolicies(state, new Map(secrets.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s])), indexServices(services), diagnostics);
  return { result, diagnostics };
}

function statusOf(result: ReturnType<typeof resolveRoutePolicies>, name: string, gateways: Record<string, string[]> = { 'team/web': ['infra/gw'] }): string[] | undefined {
  const entry = result.status(new Map(Object.entries(gateways).map(([k, v]) => [k, new Set(v)])), 'example.com/ours').find((p) => p.ref.name === name);
  return entry?.ancestors.map((a) => `${a.ancestorRef.kind} ${a.ancestorRef.namespace}/${a.ancestorRef.name}: ${a.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`).join(', ')}`);
}

const fieldsOf = (applied: AppliedRoutePolicy | undefined) => (applied !== undefined && 'fields' in applied ? applied.fields : undefined);

test('sourceRanges become the route policy allow and deny lists, on the whole route or on a named rule (which takes precedence)', (t) => {
  const { result } = resolve([
    policy('route-wide', [{ name: 'web' }], { sourceRanges: { allow: ['10.0.0.0/8', '192.168.1.7'] } }),
    policy('admin', [{ name: 'web', sectionName: 'admin' }], { sourceRanges: { deny: ['2001:db8::/32'] } }),
  ]);
  t.deepEqual(fieldsOf(result.lookup('team', 'web', undefined)), { allowedSourceCidrs: [{ address: '10.0.0.0', prefixLength: 8 }, { address: '192.168.1.7', prefixLength: 32 }] });
  t.deepEqual(fieldsOf(result.lookup('team', 'web', 'other')), fieldsOf(result.lookup('team', 'web', undefined)));
  t.deepEqual(fieldsOf(result.lookup('team', 'web', 'admin')), { deniedSourceCidrs: [{ address: '2001:db8::', prefixLength: 32 }] });
  // Another namespace's route of the same name is not targeted: targets are local.
  t.is(result.lookup('other', 'web', undefined), undefined);
  t.deepEqual(statusOf(result, 'route-wide'), ['Gateway infra/gw: Accepted=True/Accepted@0']);
});

test('basicAuth reads the users of a Secret of the policy namespace; their hashes stay out of messages and status', (t) => {
  const users = secret('users', { auth: `alice:${sha('pw')}\nbroken-line\n` });
  const { result, diagnostics } = resolve([policy('auth', [{ name: 'web' }], { basicAuth: { secretRef: { name: 'users' }, realm: 'Team area' } })], undefined, [users]);
  t.deepEqual(fieldsOf(result.lookup('team', 'web', undefined)), { basicAuth: { usersId: 'team/users/auth-file', realm: 'Team area', secret: { kind: 'Secret', namespace: 'team', name: 'users' } } });
  t.is(result.basicAuthUsers.length, 1);
  t.is(result.basicAuthUsers[0]?.users.reveal(), `alice:${sha('pw')}\n`);
  t.deepEqual(result.secrets, ['team/users']);
  t.deepEqual(diagnostics.map((d) => d.reason), ['BasicAuthUserSkipped']);
  const shown = JSON.stringify({ diagnostics, status: result.status(new Map(), 'example.com/ours') });
  t.false(shown.includes('broken-line'));
  t.false(shown.includes(sha('pw')));
});

test('fail closed: a policy asking for access control that cannot be honoured refuses its targets (500), Invalid; affinity-only would not', (t) => {
  const { result } = resolve([
    policy('no-secret', [{ name: 'web' }], { basicAuth: { secretRef: { name: 'missing' } } }),
    policy('bad-cidr', [{ name: 'web', sectionName: 'admin' }], { sourceRanges: { allow: ['10.0.0.0/33'] } }),
  ]);
  const whole = result.lookup('team', 'web', undefined);
  t.true(whole !== undefined && 'refused' in whole && whole.refused.includes('Secret team/missing not found'));
  const admin = result.lookup('team', 'web', 'admin');
  t.true(admin !== undefined && 'refused' in admin && admin.refused.includes('sourceRanges.allow[0]'));
  t.regex(statusOf(result, 'no-secret')?.[0] ?? '', /Accepted=False\/Invalid@0/);
  t.deepEqual(result.basicAuthUsers, []);
});

test('the oldest policy of a target wins, then the first by namespace/name; the other is Conflicted and never applied', (t) => {
  const { result } = resolve([
    policy('newer', [{ name: 'web' }], { sourceRanges: { deny: ['0.0.0.0/0'] } }, { creationTimestamp: '2026-02-01T00:00:00Z', generation: 3 }),
    policy('b-older', [{ name: 'web' }], { sourceRanges: { allow: ['10.0.0.0/8'] } }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
    policy('a-older', [{ name: 'web' }], { sourceRanges: { allow: ['172.16.0.0/12'] } }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
  ]);
  t.deepEqual(fieldsOf(result.lookup('team', 'web', undefined)), { allowedSourceCidrs: [{ address: '172.16.0.0', prefixLength: 12 }] });
  t.deepEqual(statusOf(result, 'newer'), ['Gateway infra/gw: Accepted=False/Conflicted@3']);
  t.deepEqual(statusOf(result, 'b-older'), ['Gateway infra/gw: Accepted=False/Conflicted@0']);
  t.deepEqual(statusOf(result, 'a-older'), ['Gateway infra/gw: Accepted=True/Accepted@0']);
});

test('TargetNotFound (a missing route, or a sectionName naming no rule) is reported against the targeted route; other kinds are Invalid', (t) => {
  const { result } = resolve([
    policy('gone', [{ name: 'nope' }], { sourceRanges: { allow: ['10.0.0.0/8'] } }),
    policy('no-rule', [{ name: 'web', sectionName: 'nope' }], { sourceRanges: { allow: ['10.0.0.0/8'] } }),
    policy('gateway', [{ name: 'gw', kind: 'Gateway' }], { sourceRanges: { allow: ['10.0.0.0/8'] } }),
  ]);
  t.deepEqual(statusOf(result, 'gone'), ['HTTPRoute team/nope: Accepted=False/TargetNotFound@0']);
  t.deepEqual(statusOf(result, 'no-rule'), ['Gateway infra/gw: Accepted=False/TargetNotFound@0']);
  t.deepEqual(statusOf(result, 'gateway'), []);
  t.is(result.lookup('team', 'web', 'nope'), undefined);
  t.is(result.lookup('team', 'web', undefined), undefined);
});

test('externalAuth asks a Service port of the policy namespace, as auth-url does; another namespace cannot be named, a missing port closes the rules', (t) => {
  const authz: Service = { kind: 'Service', metadata: { name: 'authz', namespace: 'team' }, spec: { ports: [{ port: 8080 }] } } as Service;
  const { result } = resolve(
    [
      policy('ext', [{ name: 'web' }], { externalAuth: { backendRef: { name: 'authz', port: 8080 }, path: '/verify/', responseHeaders: ['X-Auth-User', 'x-auth-user'] } }),
      policy('wrong-port', [{ name: 'web', sectionName: 'admin' }], { externalAuth: { backendRef: { name: 'authz', port: 9999 } } }),
    ],
    undefined,
    [],
    [authz],
  );
  const applied = result.lookup('team', 'web', undefined);
  t.deepEqual(fieldsOf(applied), {
    externalAuth: { filter: 'ext_authz http://authz.team.svc:8080/verify/ x-auth-user', uri: 'http://authz.team.svc:8080/verify/', cluster: 'team/authz/8080', pathPrefix: '/verify', responseHeaders: ['x-auth-user'] },
  });
  t.deepEqual(applied !== undefined && 'cluster' in applied ? applied.cluster : undefined, { name: 'team/authz/8080', service: { namespace: 'team', name: 'authz', port: 8080 } });
  const admin = result.lookup('team', 'web', 'admin');
  t.true(admin !== undefined && 'refused' in admin && admin.refused.includes('has no TCP port 9999'));
  t.deepEqual(result.services, ['team/authz']);
});

test('sessionAffinity: the cookie settings as ingress-nginx reads them; an invalid affinity-only policy leaves the rules served without it', (t) => {
  const { result } = resolve([
    policy('sticky', [{ name: 'web' }], { sessionAffinity: { cookie: { name: 'route', maxAgeSeconds: 60, sameSite: 'Lax', secure: true }, mode: 'persistent' } }),
    policy('bad', [{ name: 'web', sectionName: 'admin' }], { sessionAffinity: { cookie: { sameSite: 'Sometimes' } } }),
  ]);
  const applied = result.lookup('team', 'web', undefined);
  t.deepEqual(applied !== undefined && 'affinity' in applied ? applied.affinity : undefined, { name: 'route', maxAgeSeconds: 60, sameSite: 'Lax', secure: true, persistent: true });
  t.deepEqual(fieldsOf(applied), {});
  // Not a security setting: the admin rule falls back to the route-wide policy rather than answering 500.
  t.is(result.lookup('team', 'web', 'admin'), applied);
  t.deepEqual(statusOf(result, 'bad'), ['Gateway infra/gw: Accepted=False/Invalid@0']);
});

test('an HTTPRoute created after its RoutePolicy gets the policy in the incremental translation too (never served open)', async (t) => {
  const { translateGatewayApi, translateGatewayApiIncrementally } = await import('./translate-gateway-api.js');
  const { defaultTranslateOptions } = await import('../shared/options.js');
  const options = { ...defaultTranslateOptions };
  const gatewayObjects = {
    gatewayClasses: [{ kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } }],
    gateways: [{ kind: 'Gateway', metadata: { name: 'gw', namespace: 'team' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: 8081, protocol: 'HTTP' }] } }],
  };
  const web: Service = { kind: 'Service', metadata: { name: 'web', namespace: 'team' }, spec: { ports: [{ port: 80 }] } } as Service;
  const late: HTTPRoute = { kind: 'HTTPRoute', metadata: { name: 'late', namespace: 'team' }, spec: { parentRefs: [{ name: 'gw' }], hostnames: ['late.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } };
  const base = { ingresses: [], ingressClasses: [], services: [web], endpointSlices: [], endpoints: [], secrets: [], ...gatewayObjects, routePolicies: [policy('deny', [{ name: 'late' }], { sourceRanges: { deny: ['0.0.0.0/0'] } })] };
  const before = { ...base, httpRoutes: [] } as unknown as ClusterState;
  const after = { ...base, httpRoutes: [late] } as unknown as ClusterState;
  const previous = translateGatewayApi(before, options);
  const incremental = translateGatewayApiIncrementally(previous, before, after, options);
  t.not(incremental, undefined, 'only an HTTPRoute changed: the incremental translation is used');
  const routeOf = (translation: ReturnType<typeof translateGatewayApi> | undefined) => translation?.listeners.flatMap((l) => l.routeTable?.virtualHosts ?? []).flatMap((v) => v.routes).find((r) => r.name.includes('/late/'));
  t.deepEqual(JSON.stringify(incremental), JSON.stringify(translateGatewayApi(after, options)));
  t.deepEqual((routeOf(incremental)?.policy as { deniedSourceCidrs?: unknown } | undefined)?.deniedSourceCidrs, [{ address: '0.0.0.0', prefixLength: 0 }]);
});
