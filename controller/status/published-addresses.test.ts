import test from 'ava';
import type { Service } from '../translate/kube-objects.js';
import { addressesKey, addressOf, publishedAddresses } from './published-addresses.js';

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
