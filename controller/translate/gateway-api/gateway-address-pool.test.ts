import test from 'ava';
import type { Gateway } from '../shared/kube-objects.js';
import { allocatePoolAddresses } from './gateway-address-pool.js';

function gateway(name: string, day: number, addresses?: { type?: string; value?: string }[]): Gateway {
  return {
    kind: 'Gateway',
    metadata: { name, namespace: 'apps', creationTimestamp: `2024-01-${String(day).padStart(2, '0')}T00:00:00Z` },
    spec: { gatewayClassName: 'c', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }], ...(addresses ? { addresses } : {}) },
  };
}

const pool = ['127.0.0.11', '127.0.0.12', '127.0.0.13', '127.0.0.14'];

test('each Gateway gets an address of its own from the pool', (t) => {
  const result = allocatePoolAddresses([gateway('a', 1), gateway('b', 2), gateway('c', 3)], pool);
  const given = [...result.addresses.values()];
  t.is(new Set(given).size, 3);
  for (const ip of given) t.true(pool.includes(ip));
  t.is(result.problems.size, 0);
});

test('a new Gateway never moves an older one; deleting one moves none that did not step past it', (t) => {
  const gateways = ['a', 'b', 'c', 'd'].map((n, i) => gateway(n, i + 1));
  const three = allocatePoolAddresses(gateways.slice(0, 3), pool);
  const four = allocatePoolAddresses(gateways, pool);
  for (const [key, ip] of three.addresses) t.is(four.addresses.get(key), ip);
  // Without an older Gateway, a Gateway that sat on its own preferred slot keeps it.
  const alone = allocatePoolAddresses([gateways[3] as Gateway], pool);
  const withOlder = allocatePoolAddresses([gateways[0] as Gateway, gateways[3] as Gateway], pool);
  if (alone.addresses.get('apps/d') !== withOlder.addresses.get('apps/a')) t.is(withOlder.addresses.get('apps/d'), alone.addresses.get('apps/d'));
});

test('spec.addresses: an IPAddress of the pool is honoured before automatic ones', (t) => {
  const result = allocatePoolAddresses([gateway('a', 1), gateway('b', 2, [{ type: 'IPAddress', value: '127.0.0.13' }]), gateway('c', 3, [{ value: '127.0.0.12' }])], pool);
  t.is(result.addresses.get('apps/b'), '127.0.0.13');
  t.is(result.addresses.get('apps/c'), '127.0.0.12');
  t.false(['127.0.0.12', '127.0.0.13'].includes(result.addresses.get('apps/a') ?? ''));
});

test('spec.addresses: an IPAddress without a value (GatewayAddressEmpty) is any address of the pool', (t) => {
  const result = allocatePoolAddresses([gateway('a', 1, [{ type: 'IPAddress' }]), gateway('b', 2, [{ value: '' }])], pool);
  t.true(pool.includes(result.addresses.get('apps/a') ?? ''));
  t.true(pool.includes(result.addresses.get('apps/b') ?? ''));
  t.is(result.problems.size, 0);
});

test('spec.addresses refused: another type, outside the pool, taken, more than one; such a Gateway binds nothing', (t) => {
  const result = allocatePoolAddresses(
    [
      gateway('a', 1, [{ value: '127.0.0.11' }]),
      gateway('b', 2, [{ value: '127.0.0.11' }]),
      gateway('c', 3, [{ type: 'Hostname', value: 'gw.example.com' }]),
      gateway('d', 4, [{ value: '10.9.9.9' }]),
      gateway('e', 5, [{ value: '127.0.0.12' }, { value: '127.0.0.13' }]),
    ],
    pool,
  );
  t.deepEqual([...result.addresses], [['apps/a', '127.0.0.11']]);
  t.deepEqual(
    [...result.problems].map(([k, p]) => [k, p.reason]),
    [
      ['apps/b', 'AddressNotUsable'],
      ['apps/c', 'UnsupportedAddress'],
      ['apps/d', 'AddressNotUsable'],
      ['apps/e', 'AddressNotAssigned'],
    ],
  );
  t.regex(result.problems.get('apps/b')?.message ?? '', /in use by Gateway apps\/a/);
});

test('a used-up pool leaves the youngest Gateways without an address', (t) => {
  const result = allocatePoolAddresses(['a', 'b', 'c'].map((n, i) => gateway(n, i + 1)), pool.slice(0, 2));
  t.is(result.addresses.size, 2);
  t.is(result.problems.get('apps/c')?.reason, 'AddressNotAssigned');
});
