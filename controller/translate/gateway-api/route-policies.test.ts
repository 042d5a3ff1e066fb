import { createHash } from 'node:crypto';
import test from 'ava';
import type { Diagnostic } from '../shared/diagnostics.js';
import { indexServices } from '../shared/backend.js';
import type { ClusterState, GRPCRoute, HTTPRoute, RoutePolicy, Secret, Service } from '../shared/kube-objects.js';
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

function grpcRoute(name: string, ruleNames: string[] = [], namespace = 'team'): GRPCRoute {
  return { kind: 'GRPCRoute', metadata: { name, namespace }, spec: { rules: ruleNames.map((n) => ({ name: n })) } };
}

function resolve(policies: RoutePolicy[], routes: (HTTPRoute | GRPCRoute)[] = [route('web', ['admin'])], secrets: Secret[] = [], services: Service[] = []) {
  const state = {
    ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets,
    httpRoutes: routes.filter((r) => r.kind === 'HTTPRoute'), grpcRoutes: routes.filter((r) => r.kind === 'GRPCRoute'), routePolicies: policies,
  } as ClusterState;
  const diagnostics: Diagnostic[] = [];
  const result = resolveRoutePolicies(state, new Map(secrets.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s])), indexServices(services), diagnostics);
  return { result, diagnostics };
}

function statusOf(result: ReturnType<typeof resolveRoutePolicies>, name: string, gateways: Record<string, string[]> = { 'team/web': ['infra/gw'] }): string[] | undefined {
  const entry = result.status(new Map(Object.entries(gateways).map(([k, v]) => [`HTTPRoute/${k}`, new Set(v)])), 'example.com/ours').find((p) => p.ref.name === name);
  return entry?.ancestors.map((a) => `${a.ancestorRef.kind} ${a.ancestorRef.namespace}/${a.ancestorRef.name}: ${a.conditions.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`).join(', ')}`);
}

const fieldsOf = (applied: AppliedRoutePolicy | undefined) => (applied !== undefined && 'fields' in applied ? applied.fields : undefined);

test('sourceRanges become the route policy allow and deny lists, on the whole route or on a named rule (which takes precedence)', (t) => {
  const { result } = resolve([
    policy('route-wide', [{ name: 'web' }], { sourceRanges: { allow: ['10.0.0.0/8', '192.168.1.7'] } }),
    policy('admin', [{ name: 'web', sectionName: 'admin' }], { sourceRanges: { deny: ['2001:db8::/32'] } }),
  ]);
  t.deepEqual(fieldsOf(result.lookup('HTTPRoute', 'team', 'web', undefined)), { allowedSourceCidrs: [{ address: '10.0.0.0', prefixLength: 8 }, { address: '192.168.1.7', prefixLength: 32 }] });
  t.deepEqual(fieldsOf(result.lookup('HTTPRoute', 'team', 'web', 'other')), fieldsOf(result.lookup('HTTPRoute', 'team', 'web', undefined)));
  t.deepEqual(fieldsOf(result.lookup('HTTPRoute', 'team', 'web', 'admin')), { deniedSourceCidrs: [{ address: '2001:db8::', prefixLength: 32 }] });
  // Another namespace's route of the same name is not targeted: targets are local.
  t.is(result.lookup('HTTPRoute', 'other', 'web', undefined), undefined);
  t.deepEqual(statusOf(result, 'route-wide'), ['Gateway infra/gw: Accepted=True/Accepted@0']);
});

test('basicAuth reads the users of a Secret of the policy namespace; their hashes stay out of messages and status', (t) => {
  const users = secret('users', { auth: `alice:${sha('pw')}\nbroken-line\n` });
  const { result, diagnostics } = resolve([policy('auth', [{ name: 'web' }], { basicAuth: { secretRef: { name: 'users' }, realm: 'Team area' } })], undefined, [users]);
  t.deepEqual(fieldsOf(result.lookup('HTTPRoute', 'team', 'web', undefined)), { basicAuth: { usersId: 'team/users/auth-file', realm: 'Team area', secret: { kind: 'Secret', namespace: 'team', name: 'users' } } });
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
  const whole = result.lookup('HTTPRoute', 'team', 'web', undefined);
  t.true(whole !== undefined && 'refused' in whole && whole.refused.includes('Secret team/missing not found'));
  const admin = result.lookup('HTTPRoute', 'team', 'web', 'admin');
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
  t.deepEqual(fieldsOf(result.lookup('HTTPRoute', 'team', 'web', undefined)), { allowedSourceCidrs: [{ address: '172.16.0.0', prefixLength: 12 }] });
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
  t.is(result.lookup('HTTPRoute', 'team', 'web', 'nope'), undefined);
  t.is(result.lookup('HTTPRoute', 'team', 'web', undefined), undefined);
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
  const applied = result.lookup('HTTPRoute', 'team', 'web', undefined);
  t.deepEqual(fieldsOf(applied), {
    externalAuth: { filter: 'ext_authz http://authz.team.svc:8080/verify/ x-auth-user', uri: 'http://authz.team.svc:8080/verify/', cluster: 'team/authz/8080', pathPrefix: '/verify', responseHeaders: ['x-auth-user'] },
  });
  t.deepEqual(applied !== undefined && 'cluster' in applied ? applied.cluster : undefined, { name: 'team/authz/8080', service: { namespace: 'team', name: 'authz', port: 8080 } });
  const admin = result.lookup('HTTPRoute', 'team', 'web', 'admin');
  t.true(admin !== undefined && 'refused' in admin && admin.refused.includes('has no TCP port 9999'));
  t.deepEqual(result.services, ['team/authz']);
});

test('sessionAffinity: the cookie settings as ingress-nginx reads them; an invalid affinity-only policy leaves the rules served without it', (t) => {
  const { result } = resolve([
    policy('sticky', [{ name: 'web' }], { sessionAffinity: { cookie: { name: 'route', maxAgeSeconds: 60, sameSite: 'Lax', secure: true }, mode: 'persistent' } }),
    policy('bad', [{ name: 'web', sectionName: 'admin' }], { sessionAffinity: { cookie: { sameSite: 'Sometimes' } } }),
  ]);
  const applied = result.lookup('HTTPRoute', 'team', 'web', undefined);
  t.deepEqual(applied !== undefined && 'affinity' in applied ? applied.affinity : undefined, { name: 'route', maxAgeSeconds: 60, sameSite: 'Lax', secure: true, persistent: true });
  t.deepEqual(fieldsOf(applied), {});
  // Not a security setting: the admin rule falls back to the route-wide policy rather than answering 500.
  t.is(result.lookup('HTTPRoute', 'team', 'web', 'admin'), applied);
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

test('GRPCRoute targets: a route or a named rule, told apart from an HTTPRoute of the same name; ancestors are the GRPCRoute\'s Gateways', (t) => {
  const { result } = resolve(
    [
      policy('grpc-wide', [{ name: 'web', kind: 'GRPCRoute' }], { sourceRanges: { allow: ['10.0.0.0/8'] } }),
      policy('grpc-admin', [{ name: 'web', kind: 'GRPCRoute', sectionName: 'admin' }], { sourceRanges: { deny: ['0.0.0.0/0'] } }),
      policy('http-wide', [{ name: 'web' }], { sourceRanges: { allow: ['192.168.0.0/16'] } }),
      policy('grpc-gone', [{ name: 'nope', kind: 'GRPCRoute' }], { sourceRanges: { allow: ['10.0.0.0/8'] } }),
    ],
    [route('web'), grpcRoute('web', ['admin'])],
  );
  t.deepEqual(fieldsOf(result.lookup('GRPCRoute', 'team', 'web', undefined)), { allowedSourceCidrs: [{ address: '10.0.0.0', prefixLength: 8 }] });
  t.deepEqual(fieldsOf(result.lookup('GRPCRoute', 'team', 'web', 'admin')), { deniedSourceCidrs: [{ address: '0.0.0.0', prefixLength: 0 }] });
  // Same name, other kind: each policy only reaches its own kind (and neither is Conflicted).
  t.deepEqual(fieldsOf(result.lookup('HTTPRoute', 'team', 'web', 'admin')), { allowedSourceCidrs: [{ address: '192.168.0.0', prefixLength: 16 }] });
  const gateways = new Map([['GRPCRoute/team/web', new Set(['infra/grpc-gw'])], ['HTTPRoute/team/web', new Set(['infra/gw'])]]);
  const status = (name: string) =>
    result.status(gateways, 'example.com/ours').find((p) => p.ref.name === name)?.ancestors.map((a) => `${a.ancestorRef.kind} ${a.ancestorRef.namespace}/${a.ancestorRef.name}: ${a.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`).join(', ')}`);
  t.deepEqual(status('grpc-wide'), ['Gateway infra/grpc-gw: Accepted=True/Accepted']);
  t.deepEqual(status('http-wide'), ['Gateway infra/gw: Accepted=True/Accepted']);
  // Not found: reported against the GRPCRoute named.
  t.deepEqual(status('grpc-gone'), ['GRPCRoute team/nope: Accepted=False/TargetNotFound']);
});

test('tenant rule: a RoutePolicy in another namespace naming a GRPCRoute changes nothing and says why (TargetNotFound, own namespace only)', (t) => {
  const { result, diagnostics } = resolve(
    [policy('intruder', [{ name: 'echo', kind: 'GRPCRoute' }], { sourceRanges: { allow: ['203.0.113.0/24'] } }, { namespace: 'mallory' })],
    [grpcRoute('echo', [], 'team')],
  );
  t.is(result.lookup('GRPCRoute', 'team', 'echo', undefined), undefined);
  t.is(result.lookup('GRPCRoute', 'mallory', 'echo', undefined), undefined);
  const entry = result.status(new Map([['GRPCRoute/team/echo', new Set(['infra/gw'])]]), 'example.com/ours').find((p) => p.ref.name === 'intruder');
  t.deepEqual(entry?.ancestors.map((a) => `${a.ancestorRef.kind} ${a.ancestorRef.namespace}/${a.ancestorRef.name}`), ['GRPCRoute mallory/echo']);
  const accepted = entry?.ancestors[0]?.conditions.find((c) => c.type === 'Accepted');
  t.is(accepted?.reason, 'TargetNotFound');
  t.regex(accepted?.message ?? '', /GRPCRoute mallory\/echo.*own namespace only/);
  t.deepEqual(diagnostics.map((d) => `${d.object.namespace}/${d.object.name} ${d.reason}`), ['mallory/intruder RoutePolicyTargetNotFound']);
});

test('a GRPCRoute rule gets its RoutePolicy in the translation: the source ranges and basic auth on its IR routes, a refused policy answers 500, affinity\'s cookie Path is the service', async (t) => {
  const { translateGatewayApi } = await import('./translate-gateway-api.js');
  const { defaultTranslateOptions } = await import('../shared/options.js');
  const echo: Service = { kind: 'Service', metadata: { name: 'echo', namespace: 'team' }, spec: { ports: [{ port: 50051 }] } } as Service;
  const rule = (name: string, service: string) => ({ name, matches: [{ method: { service } }], backendRefs: [{ name: 'echo', port: 50051 }] });
  const grpc: GRPCRoute = {
    kind: 'GRPCRoute',
    metadata: { name: 'echo', namespace: 'team' },
    spec: { parentRefs: [{ name: 'gw' }], hostnames: ['grpc.test'], rules: [rule('ranges', 'a.Ranges'), rule('auth', 'a.Auth'), rule('broken', 'a.Broken'), rule('sticky', 'a.Sticky')] },
  };
  const state = {
    ingresses: [], ingressClasses: [], services: [echo], endpointSlices: [], endpoints: [],
    secrets: [secret('users', { auth: `alice:${sha('pw')}\n` })],
    gatewayClasses: [{ kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } }],
    gateways: [{ kind: 'Gateway', metadata: { name: 'gw', namespace: 'team' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: 8081, protocol: 'HTTP' }] } }],
    grpcRoutes: [grpc],
    routePolicies: [
      policy('ranges', [{ name: 'echo', kind: 'GRPCRoute', sectionName: 'ranges' }], { sourceRanges: { deny: ['127.0.0.1'] } }),
      policy('auth', [{ name: 'echo', kind: 'GRPCRoute', sectionName: 'auth' }], { basicAuth: { secretRef: { name: 'users' } } }),
      policy('broken', [{ name: 'echo', kind: 'GRPCRoute', sectionName: 'broken' }], { basicAuth: { secretRef: { name: 'missing' } } }),
      policy('sticky', [{ name: 'echo', kind: 'GRPCRoute', sectionName: 'sticky' }], { sessionAffinity: { cookie: { name: 'route' } } }),
    ],
  } as unknown as ClusterState;
  const translation = translateGatewayApi(state, { ...defaultTranslateOptions });
  const routes = translation.listeners.flatMap((l) => l.routeTable?.virtualHosts ?? []).flatMap((v) => v.routes);
  const ruleOf = (r: number) => routes.find((x) => x.name === `grpcroute/team/echo/rule/${r}/match/0`);
  t.deepEqual(ruleOf(0)?.policy?.deniedSourceCidrs, [{ address: '127.0.0.1', prefixLength: 32 }]);
  t.is(ruleOf(1)?.policy?.basicAuth?.usersId, 'team/users/auth-file');
  t.deepEqual(translation.basicAuthUsers.map((u) => u.id), ['team/users/auth-file']);
  t.deepEqual(ruleOf(2)?.action, { kind: 'direct', status: 500 });
  t.is(ruleOf(3)?.policy?.affinityCookie?.path, '/a.Sticky');
  const sticky = ruleOf(3)?.action;
  // Its own ring-hash cluster, still spoken to over HTTP/2.
  t.is(sticky?.kind === 'forward' ? sticky.cluster : undefined, 'team/echo/50051~h2c~ring-hash');
  t.true(translation.diagnostics.some((d) => d.object.kind === 'GRPCRoute' && d.reason === 'RoutePolicyNotAccepted' && d.message.includes('rule 2 (broken)')));
  const ancestors = translation.status.routePolicies?.find((p) => p.ref.name === 'ranges')?.ancestors.map((a) => `${a.ancestorRef.kind} ${a.ancestorRef.namespace}/${a.ancestorRef.name} ${a.conditions[0]?.reason}`);
  t.deepEqual(ancestors, ['Gateway team/gw Accepted']);
});
