import test from 'ava';
import type { Gateway, LabelSelector } from '../shared/kube-objects.js';
import type { AcceptedListener } from './listener-acceptance.js';
import { matchesLabelSelector, namespaceAdmission } from './namespace-selection.js';

test('label selectors: matchLabels and every matchExpressions operator, all must hold; unknown operators match nothing', (t) => {
  const labels = { tenant: 'shop', tier: 'prod' };
  const cases: [LabelSelector, boolean][] = [
    [{}, true],
    [{ matchLabels: { tenant: 'shop' } }, true],
    [{ matchLabels: { tenant: 'shop', tier: 'dev' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['prod', 'dev'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['dev'] }] }, false],
    [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['dev'] }] }, true],
    [{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['prod'] }] }, false],
    [{ matchExpressions: [{ key: 'tenant', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
    [{ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, true],
    [{ matchExpressions: [{ key: 'tenant', operator: 'DoesNotExist' }] }, false],
    [{ matchLabels: { tenant: 'shop' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['prod'] }] }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'Gt', values: ['1'] }] }, false],
  ];
  for (const [selector, expected] of cases) t.is(matchesLabelSelector(selector, labels), expected, JSON.stringify(selector));
});

test('namespace admission: Same by default, All, Selector on the Namespace labels (unknown namespaces have none)', (t) => {
  const gateway: Gateway = { kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra' } };
  const listener = (namespaces?: NonNullable<NonNullable<AcceptedListener['listener']['allowedRoutes']>['namespaces']>): AcceptedListener => ({
    gateway,
    listener: { name: 'l', port: 9080, protocol: 'HTTP', ...(namespaces === undefined ? {} : { allowedRoutes: { namespaces } }) },
    hostname: undefined,
    supportedKinds: [],
    binding: { key: 'shared/9080', port: 9080 },
  });
  const admits = namespaceAdmission([
    { kind: 'Namespace', metadata: { name: 'shop', labels: { tenant: 'shop' } } },
    { kind: 'Namespace', metadata: { name: 'infra' } },
  ]);
  t.true(admits(listener(), 'infra'));
  t.false(admits(listener(), 'shop'));
  t.true(admits(listener({ from: 'All' }), 'shop'));
  const selector = listener({ from: 'Selector', selector: { matchLabels: { tenant: 'shop' } } });
  t.true(admits(selector, 'shop'));
  t.false(admits(selector, 'infra'));
  t.false(admits(selector, 'not-known'));
  // Everything-matching selector: even a namespace without an object.
  t.true(admits(listener({ from: 'Selector', selector: {} }), 'not-known'));
  t.false(admits(listener({ from: 'Selector' }), 'shop'));
});
