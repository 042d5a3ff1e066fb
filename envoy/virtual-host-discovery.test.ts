// The VHDS form: the route configuration without its virtual hosts, each virtual host a resource of its own.
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

test('each virtual host is a VirtualHost resource named <table>/<host>, and the same object for the same host JSON', (t) => {
  const a = host('a.example.test', 'a');
  const b = host('bücher.example.test', 'ü'.repeat(300));
  const first = splitVirtualHosts([table('ingress', [a, b])]);
  t.deepEqual(first.routeConfigurations, [
    { name: 'ingress', resource: { '@type': TypeUrl.routeConfiguration, name: 'ingress', vhds: { config_source: { ads: {}, resource_api_version: 'V3' } } } },
  ]);
  t.deepEqual(first.virtualHosts.map((v) => v.name), ['ingress/a.example.test', 'ingress/bücher.example.test']);
  const resource = first.virtualHosts[0]!.resource;
  // Envoy keys (and removes) a virtual host by its name: the resource name.
  t.deepEqual(resource, { '@type': TypeUrl.virtualHost, ...a, name: 'ingress/a.example.test' });
  t.is(encodeJsonAny(resource).type_url, TypeUrl.virtualHost);
  // The next build hands the same host JSON back: the same resource object, which the cache does not encode again.
  const again = splitVirtualHosts([table('ingress', [a, host('c.example.test', 'c')])]);
  t.is(again.virtualHosts[0]!.resource, resource);
  const cache = new SnapshotCache();
  cache.update({ virtualHost: first.virtualHosts });
  cache.update({ virtualHost: again.virtualHosts });
  t.is(cache.lastEncoded.virtualHost, 1);
});

test('virtual hosts come out in name order: the catch-all (last in its table) moved into place, any other order sorted', (t) => {
  const names = (hosts: string[][]): string[] =>
    splitVirtualHosts(hosts.map((list, i) => table(['http', 'https'][i]!, list.map((h) => host(h, h))))).virtualHosts.map((v) => v.name);
  t.deepEqual(names([['a.test', 'b.test', '*'], ['a.test', '*']]), ['http/*', 'http/a.test', 'http/b.test', 'https/*', 'https/a.test']);
  t.deepEqual(names([['b.test', 'a.test', '*']]), ['http/*', 'http/a.test', 'http/b.test']);
  t.deepEqual(names([['*']]), ['http/*']);
});
