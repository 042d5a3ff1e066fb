import test from 'ava';
import type { Service } from '../translate/shared/kube-objects.js';
import { addressesKey, addressOf, nodeAddresses, publishedAddresses } from './published-addresses.js';

const publishService = { namespace: 'ingress', name: 'envoy' };

function service(spec: Record<string, unknown>, lb?: Record<string, unknown>[]): Service {
  return {
    kind: 'Service',
    metadata: { name: 'envoy', namespace: 'ingress' },
    spec,
    ...(lb ? { status: { loadBalancer: { ingress: lb } } } : {}),
  } as Service;
}

test('a publish address is an IP (v4 or v6) or else a hostname', (t) => {
  t.deepEqual(addressOf('192.0.2.10'), { ip: '192.0.2.10' });
  t.deepEqual(addressOf(' 2001:db8::1 '), { ip: '2001:db8::1' });
  t.deepEqual(addressOf('lb.example.com'), { hostname: 'lb.example.com' });
  t.is(addressOf('  '), undefined);
});

test('explicit publish addresses win over the Service, keep their order and lose duplicates', (t) => {
  const svc = service({ clusterIP: '10.96.0.5' }, [{ ip: '203.0.113.1' }]);
  t.deepEqual(publishedAddresses({ publishService, publishAddresses: ['lb.example.com', '192.0.2.10', '192.0.2.10', ''] }, svc), [
    { hostname: 'lb.example.com' },
    { ip: '192.0.2.10' },
  ]);
});

test('the Service load balancer status comes first, reduced to ip or hostname', (t) => {
  const svc = service({ clusterIP: '10.96.0.5', externalIPs: ['198.51.100.7'] }, [
    { ip: '203.0.113.1', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP' }] },
    { hostname: 'abc.elb.example.com' },
  ]);
  t.deepEqual(publishedAddresses({ publishService }, svc), [{ ip: '203.0.113.1' }, { hostname: 'abc.elb.example.com' }]);
});

test('without a load balancer address the external IPs are published, then the cluster IP', (t) => {
  t.deepEqual(publishedAddresses({ publishService }, service({ clusterIP: '10.96.0.5', externalIPs: ['198.51.100.7', '198.51.100.8'] }, [])), [
    { ip: '198.51.100.7' },
    { ip: '198.51.100.8' },
  ]);
  t.deepEqual(publishedAddresses({ publishService }, service({ clusterIP: '10.96.0.5' })), [{ ip: '10.96.0.5' }]);
});

test('a headless Service publishes nothing; an ExternalName Service publishes its name', (t) => {
  t.deepEqual(publishedAddresses({ publishService }, service({ clusterIP: 'None' })), []);
  t.deepEqual(publishedAddresses({ publishService }, service({ type: 'ExternalName', externalName: 'lb.example.net' })), [
    { hostname: 'lb.example.net' },
  ]);
});

test('nothing is published without a publish Service, or when the Service is not found', (t) => {
  t.deepEqual(publishedAddresses({}, service({ clusterIP: '10.96.0.5' })), []);
  t.deepEqual(publishedAddresses({ publishService }, undefined), []);
  t.deepEqual(publishedAddresses({ publishAddresses: [] }, undefined), []);
});

test('addressesKey ignores order and extra fields', (t) => {
  t.is(addressesKey([{ ip: '192.0.2.1' }, { hostname: 'a.example' }]), addressesKey([{ hostname: 'a.example' }, { ip: '192.0.2.1' }]));
  t.not(addressesKey([{ ip: '192.0.2.1' }]), addressesKey([{ ip: '192.0.2.2' }]));
  t.not(addressesKey([{ ip: '192.0.2.1' }]), addressesKey([{ hostname: '192.0.2.1' }]));
  t.is(addressesKey([]), '');
});

const readyPod = (nodeName: string, ready = 'True', terminating = false) => ({
  metadata: terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {},
  spec: { nodeName },
  status: { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: ready }] },
});
const node = (name: string, addresses: Record<string, string>[]) => ({ metadata: { name }, status: { addresses: addresses as { type: string; address: string }[] } });

test('node addresses: the nodes of ready, not terminating pods; ExternalIP preferred, else InternalIP; sorted, once each', (t) => {
  const nodes = [
    node('a', [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'ExternalIP', address: '203.0.113.2' }, { type: 'Hostname', address: 'a' }]),
    node('b', [{ type: 'InternalIP', address: '10.0.0.1' }]),
    node('c', [{ type: 'ExternalIP', address: '203.0.113.3' }]),
    node('d', [{ type: 'ExternalIP', address: '203.0.113.4' }]),
    node('e', [{ type: 'ExternalIP', address: '203.0.113.5' }]),
  ];
  const pods = [readyPod('a'), readyPod('a'), readyPod('b'), readyPod('c', 'False'), readyPod('d', 'True', true), readyPod('unknown'), { spec: {} }];
  t.deepEqual(nodeAddresses(pods, nodes, 'ExternalIP'), [{ ip: '10.0.0.1' }, { ip: '203.0.113.2' }]);
  t.deepEqual(nodeAddresses(pods, nodes, 'InternalIP'), [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }]);
  t.deepEqual(nodeAddresses([], nodes, 'ExternalIP'), []);
});

test('with --publish-nodes and no Service or fixed addresses, the node addresses are published', (t) => {
  const publishNodes = { namespace: 'envoy-ingress', podSelector: 'app=envoy', addressType: 'ExternalIP' as const };
  const nodes = [{ ip: '203.0.113.2' }, { ip: '203.0.113.2' }, { hostname: 'node.example' }];
  t.deepEqual(publishedAddresses({ publishNodes }, undefined, nodes), [{ ip: '203.0.113.2' }, { hostname: 'node.example' }]);
  // Fixed addresses and a publish Service still win.
  t.deepEqual(publishedAddresses({ publishNodes, publishAddresses: ['192.0.2.10'] }, undefined, nodes), [{ ip: '192.0.2.10' }]);
  t.deepEqual(publishedAddresses({ publishNodes, publishService }, service({ clusterIP: '10.96.0.5' }), nodes), [{ ip: '10.96.0.5' }]);
  // Without --publish-nodes, node addresses are ignored.
  t.deepEqual(publishedAddresses({}, undefined, nodes), []);
});
