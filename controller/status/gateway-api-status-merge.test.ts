import test from 'ava';
import type { GatewayStatusData, ListenerSetStatusData, PolicyStatusData, RouteStatusData, StatusCondition } from '../translate/gateway-api/status-data.js';
import type { BackendTLSPolicy, Gateway, HTTPRoute, ListenerSet } from '../translate/shared/kube-objects.js';
import { desiredGatewayStatus, desiredListenerSetStatus, desiredPolicyStatus, desiredRouteStatus, mergeConditions, sameJson } from './gateway-api-status-merge.js';

const ours = 'envoy-ingress.io/gateway-controller';
const c = (type: string, status: StatusCondition['status'], reason: string, observedGeneration = 2): StatusCondition => ({ type, status, reason, message: reason, observedGeneration });

test('a condition keeps its lastTransitionTime while its status is the same, gets now when it changes; other types are kept', (t) => {
  const existing = [
    { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'old', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'ResolvedRefs', status: 'True', reason: 'ResolvedRefs', message: '', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'Vendor', status: 'True', reason: 'X', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ];
  const merged = mergeConditions(existing, [c('Accepted', 'True', 'Accepted'), c('ResolvedRefs', 'False', 'BackendNotFound')], 'NOW');
  t.deepEqual(
    merged.map((m) => [m['type'], m['status'], m['observedGeneration'], m['lastTransitionTime']]),
    [
      ['Vendor', 'True', undefined, '2026-01-01T00:00:00Z'],
      ['Accepted', 'True', 2, '2026-01-01T00:00:00Z'],
      ['ResolvedRefs', 'False', 2, 'NOW'],
    ],
  );
  t.deepEqual(mergeConditions(existing, [c('Accepted', 'True', 'Accepted')], 'NOW', false).map((m) => m['type']), ['Accepted']);
});

test('InsecureFrontendValidationMode is removed once the translator no longer gives it (the spec), kept while it does', (t) => {
  const existing = [
    { type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'InsecureFrontendValidationMode', status: 'True', reason: 'ConfigurationChanged', message: '', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' },
  ];
  t.deepEqual(mergeConditions(existing, [c('Accepted', 'True', 'Accepted')], 'NOW').map((m) => m['type']), ['Accepted']);
  const kept = mergeConditions(existing, [c('Accepted', 'True', 'Accepted'), c('InsecureFrontendValidationMode', 'True', 'ConfigurationChanged')], 'NOW');
  t.deepEqual(kept.map((m) => [m['type'], m['lastTransitionTime']]), [['Accepted', '2026-01-01T00:00:00Z'], ['InsecureFrontendValidationMode', '2026-01-01T00:00:00Z']]);
});

const gateway: Gateway = { kind: 'Gateway', metadata: { name: 'edge', namespace: 'gw', generation: 2 } };
const gatewayData: GatewayStatusData = {
  ref: { kind: 'Gateway', namespace: 'gw', name: 'edge' },
  conditions: [c('Accepted', 'True', 'Accepted'), c('Programmed', 'True', 'Programmed')],
  listeners: [{ name: 'http', supportedKinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }], attachedRoutes: 1, conditions: [c('Programmed', 'True', 'Programmed')] }],
  attachedListenerSets: 2,
};

test('Gateway and listener Programmed=True wait until the applied generation had them (else False, Pending)', (t) => {
  const programmedOf = (status: Record<string, unknown>): unknown[] => [
    (status['conditions'] as { type: string; status: string; reason: string }[]).find((x) => x.type === 'Programmed')?.reason,
    (status['listeners'] as { conditions: { type: string; reason: string }[] }[])[0]?.conditions.find((x) => x.type === 'Programmed')?.reason,
  ];
  const none = { gatewayProgrammed: () => false, listenerProgrammed: () => false };
  t.deepEqual(programmedOf(desiredGatewayStatus(gateway, 'Gateway/gw/edge', gatewayData, none, 'NOW')), ['Pending', 'Pending']);
  const older = { gatewayProgrammed: (_: string, g: number) => g === 1, listenerProgrammed: () => true };
  t.deepEqual(programmedOf(desiredGatewayStatus(gateway, 'Gateway/gw/edge', gatewayData, older, 'NOW')), ['Pending', 'Pending']);
  const applied = { gatewayProgrammed: (k: string, g: number) => k === 'Gateway/gw/edge' && g === 2, listenerProgrammed: () => true };
  t.deepEqual(programmedOf(desiredGatewayStatus(gateway, 'Gateway/gw/edge', gatewayData, applied, 'NOW')), ['Programmed', 'Programmed']);
});

test('a ListenerSet: Programmed=True waits for Envoy like a Gateway\'s; the Gateway counts its attachedListenerSets', (t) => {
  const set: ListenerSet = { kind: 'ListenerSet', metadata: { name: 'team', namespace: 'apps', generation: 3 } };
  const data: ListenerSetStatusData = { ref: { kind: 'ListenerSet', namespace: 'apps', name: 'team' }, conditions: gatewayData.conditions, listeners: gatewayData.listeners };
  const reasons = (status: Record<string, unknown>): unknown[] => [
    (status['conditions'] as { type: string; reason: string }[]).find((x) => x.type === 'Programmed')?.reason,
    (status['listeners'] as { name: string; attachedRoutes: number; conditions: { type: string; reason: string }[] }[]).map((l) => [l.name, l.attachedRoutes, l.conditions.find((x) => x.type === 'Programmed')?.reason]),
  ];
  const none = { gatewayProgrammed: () => false, listenerProgrammed: () => false };
  t.deepEqual(reasons(desiredListenerSetStatus(set, 'ListenerSet/apps/team', data, none, 'NOW')), ['Pending', [['http', 1, 'Pending']]]);
  const applied = { gatewayProgrammed: (k: string, g: number) => k === 'ListenerSet/apps/team' && g === 3, listenerProgrammed: () => true };
  t.deepEqual(reasons(desiredListenerSetStatus(set, 'ListenerSet/apps/team', data, applied, 'NOW')), ['Programmed', [['http', 1, 'Programmed']]]);
  t.is(desiredGatewayStatus(gateway, 'Gateway/gw/edge', gatewayData, none, 'NOW')['attachedListenerSets'], 2);
});

const foreign = { parentRef: { name: 'other' }, controllerName: 'example.com/x', conditions: [{ type: 'Accepted', status: 'True' }] };
const routeObj = (parents: Record<string, unknown>[]): HTTPRoute => ({ kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'gw', generation: 2 }, status: { parents } });
const routeData: RouteStatusData = {
  ref: { kind: 'HTTPRoute', namespace: 'gw', name: 'r' },
  parents: [{ parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'edge' }, controllerName: ours, conditions: [c('Accepted', 'True', 'Accepted')] }],
};

test('route parents: other controllers\' entries untouched, ours replaced, ours removed when no longer a parent', (t) => {
  const stale = { parentRef: { name: 'gone' }, controllerName: ours, conditions: [] };
  const written = desiredRouteStatus(routeObj([foreign, stale]), ours, routeData, 'NOW');
  t.deepEqual(written['parents'], [foreign, { ...routeData.parents[0], conditions: [{ ...c('Accepted', 'True', 'Accepted'), lastTransitionTime: 'NOW' }] }]);
  // Same parentRef with defaults spelled out or not: the same entry, its time kept.
  const again = desiredRouteStatus(routeObj(written['parents'] as Record<string, unknown>[]), ours, routeData, 'LATER');
  t.true(sameJson(again, written));
  t.deepEqual(desiredRouteStatus(routeObj([foreign, stale]), ours, undefined, 'NOW')['parents'], [foreign]);
});

test('sameJson ignores key order and undefined members', (t) => {
  t.true(sameJson({ a: 1, b: [{ x: 1, y: 2 }] }, { b: [{ y: 2, x: 1 }], a: 1, c: undefined }));
  t.false(sameJson({ a: [1, 2] }, { a: [2, 1] }));
});

test('status.addresses: the Gateway\'s own (its Service\'s, its pool IP) win over the shared ones; none assigned yet: none; shared mode: the shared ones', (t) => {
  const none = { gatewayProgrammed: () => false, listenerProgrammed: () => false };
  const shared = [{ type: 'IPAddress' as const, value: '10.0.0.1' }];
  const withStatus: Gateway = { ...gateway, status: { addresses: [{ type: 'IPAddress', value: '10.0.0.9' }] } } as Gateway;
  const own = desiredGatewayStatus(withStatus, 'Gateway/gw/edge', { ...gatewayData, addresses: [{ type: 'IPAddress', value: '10.251.0.224' }] }, none, 'NOW', shared);
  t.deepEqual(own['addresses'], [{ type: 'IPAddress', value: '10.251.0.224' }]);
  t.is(desiredGatewayStatus(withStatus, 'Gateway/gw/edge', { ...gatewayData, addresses: [] }, none, 'NOW', shared)['addresses'], undefined);
  t.deepEqual(desiredGatewayStatus(withStatus, 'Gateway/gw/edge', gatewayData, none, 'NOW', shared)['addresses'], shared);
});

test('policy ancestors: other controllers\' entries untouched, ours replaced (lastTransitionTime kept while unchanged), ours removed when no Gateway uses the target', (t) => {
  const gw = (name: string) => ({ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra', name });
  const theirs = { ancestorRef: gw('a'), controllerName: 'example.com/other', conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
  const policy: BackendTLSPolicy = {
    kind: 'BackendTLSPolicy',
    metadata: { name: 'p', namespace: 'team', generation: 2 },
    status: {
      ancestors: [
        theirs,
        { ancestorRef: gw('a'), controllerName: ours, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }] },
        { ancestorRef: gw('gone'), controllerName: ours, conditions: [] },
      ],
    },
  };
  const data: PolicyStatusData = { ref: { kind: 'BackendTLSPolicy', namespace: 'team', name: 'p' }, ancestors: [{ ancestorRef: gw('a'), controllerName: ours, conditions: [c('Accepted', 'True', 'Accepted'), c('ResolvedRefs', 'False', 'InvalidKind')] }] };
  const desired = desiredPolicyStatus(policy, ours, data, 'NOW') as { ancestors: { ancestorRef: { name: string }; controllerName: string; conditions: Record<string, unknown>[] }[] };
  t.deepEqual(desired.ancestors[0], theirs);
  t.deepEqual(desired.ancestors.slice(1).map((a) => [a.ancestorRef.name, a.conditions.map((x) => [x['type'], x['reason'], x['observedGeneration'], x['lastTransitionTime']])]), [
    ['a', [['Accepted', 'Accepted', 2, '2026-01-01T00:00:00Z'], ['ResolvedRefs', 'InvalidKind', 2, 'NOW']]],
  ]);
  t.deepEqual((desiredPolicyStatus(policy, ours, undefined, 'NOW') as { ancestors: unknown[] }).ancestors, [theirs]);
});
