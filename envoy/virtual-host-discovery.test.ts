// The VHDS form's encoding: a virtual host served on both tables is encoded once, and the assembled bytes are
// exactly what the encoder gives for the resource's JSON.
import test from 'ava';
import { encodeJsonAny } from '../proto/proto-json-encoder.js';
import { TypeUrl } from '../proto/type-urls.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import type { NamedResource, ResourceJson } from './resource-types.js';
import { splitVirtualHosts } from './virtual-host-discovery.js';

function table(name: string, hosts: ResourceJson[]): NamedResource {
  return { name, resource: { '@type': TypeUrl.routeConfiguration, name, virtual_hosts: hosts } };
}

function host(name: string, body: string): ResourceJson {
  return {
    name,
    domains: [name, `${name}:*`],
    routes: [
      { name: `${name}/a`, match: { path: '/a' }, direct_response: { status: 200, body: { inline_string: body } } },
      { match: { prefix: '/' }, route: { cluster: 'default/app/80' } },
    ],
  };
}

test('assembled bytes equal the encoder walking the JSON: shared hosts, hosts of one table, long and non-ASCII names', (t) => {
  const shared = host('shared.example.test', 'both');
  const long = host(`${'l'.repeat(200)}.example.test`, 'a name over 127 bytes: a two-byte length');
  const unicode = host('bücher.example.test', 'ü'.repeat(300));
  const redirect = { name: 'tls.example.test', domains: ['tls.example.test'], routes: [{ match: { prefix: '/' }, redirect: { https_redirect: true } }] };
  const forward = host('tls.example.test', 'over TLS');
  const { virtualHosts } = splitVirtualHosts([table('http', [shared, long, unicode, redirect]), table('https', [shared, long, unicode, forward])]);
  t.is(virtualHosts.length, 8);
  for (const { name, resource, encode } of virtualHosts) {
    const walked = encodeJsonAny(resource);
    t.is(walked.type_url, TypeUrl.virtualHost, name);
    t.true(Buffer.from(encode!()).equals(walked.value), name);
  }
});

test('a virtual host served the same on both tables is encoded once; the second resource copies its fields', (t) => {
  let reads = 0;
  const route: ResourceJson = { direct_response: { status: 200 } };
  Object.defineProperty(route, 'match', { enumerable: true, get: () => ((reads += 1), { prefix: '/' }) });
  const shared: ResourceJson = { name: 'shared.example.test', domains: ['shared.example.test'], routes: [route] };
  const { virtualHosts } = splitVirtualHosts([table('http', [shared]), table('https', [shared])]);
  const http = virtualHosts[0]!.encode!();
  const walked = reads;
  t.true(walked > 0);
  const https = virtualHosts[1]!.encode!();
  t.is(reads, walked);
  // Each resource names its own table and carries the same fields after the name.
  const tail = (bytes: Uint8Array | undefined, name: string): Buffer => Buffer.from(bytes!).subarray(2 + name.length);
  t.true(tail(http, 'http/shared.example.test').equals(tail(https, 'https/shared.example.test')));
  // What the snapshot cache serves is the assembled bytes.
  const cache = new SnapshotCache();
  cache.update({ virtualHost: virtualHosts });
  t.is(reads, walked);
  t.true(Buffer.from(cache.snapshot.resources.virtualHost.get('https/shared.example.test')!.any.value).equals(https));
  t.true(Buffer.from(http!).includes('http/shared.example.test'));
  t.true(Buffer.from(https!).includes('https/shared.example.test'));
});

test('virtual hosts come out in name order: the catch-all (last in its table) moved into place, any other order sorted', (t) => {
  const names = (hosts: string[][]): string[] =>
    splitVirtualHosts(hosts.map((list, i) => table(['http', 'https'][i]!, list.map((h) => host(h, h))))).virtualHosts.map((v) => v.name);
  t.deepEqual(names([['a.test', 'b.test', '*'], ['a.test', '*']]), ['http/*', 'http/a.test', 'http/b.test', 'https/*', 'https/a.test']);
  t.deepEqual(names([['b.test', 'a.test', '*']]), ['http/*', 'http/a.test', 'http/b.test']);
  t.deepEqual(names([['*']]), ['http/*']);
});
