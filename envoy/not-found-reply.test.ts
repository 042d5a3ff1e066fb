import type { DataPlaneIR, RouteIR, VirtualHostIR } from '../ir/index.js';
import test from 'ava';
import { fallbackRoute } from '../controller/translate/ingress/virtual-host.js';
import { ingressHttpTableOf } from '../controller/translate/ingress/ingress-listeners.js';
import { buildResources } from './build-resources.js';
import { buildNotFoundLocalReply, notFoundReplyOf } from './not-found-reply.js';
import type { ResourceJson } from './resource-types.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

const page = '<h1>404 Not Found</h1>\n';
const fallback = (): RouteIR => fallbackRoute(undefined, page);
const app: RouteIR = { name: 'app', match: { kind: 'prefix', path: '/app' }, action: { kind: 'forward', cluster: 'default/web/80' } };
const vhost = (host: string, routes: RouteIR[]): VirtualHostIR => ({ name: host, hostnames: [host], routes });

function gateway(catchAllRoutes: RouteIR[], hosts: VirtualHostIR[]): DataPlaneIR {
  return ingressPairIR({ http: { name: 'http', virtualHosts: [...hosts, vhost('*', catchAllRoutes)] }, tlsServers: [], clusters: [], secrets: [] });
}

function build(ir: DataPlaneIR): { routes: Map<string, string[]>; hcm: ResourceJson } {
  const resources = buildResources(ir, [], { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 });
  const table = resources.routeConfigurations[0]!.resource;
  const routes = new Map(
    (table['virtual_hosts'] as ResourceJson[]).map((h) => [String(h['name']), (h['routes'] as ResourceJson[]).map((r) => String(r['name']))]),
  );
  const chain = ((resources.listeners[0]!.resource['filter_chains'] as ResourceJson[])[0]!['filters'] as ResourceJson[])[0]!;
  return { routes, hcm: chain['typed_config'] as ResourceJson };
}

test('the translator\'s 404 fallback is left out of every virtual host; the connection manager answers no-route with the page', (t) => {
  const { routes, hcm } = build(gateway([fallback()], [vhost('a.test', [app, fallback()]), vhost('b.test', [fallback()])]));
  t.deepEqual(routes.get('a.test'), ['app']);
  t.deepEqual(routes.get('b.test'), []);
  t.deepEqual(routes.get('*'), []);
  t.deepEqual(hcm['local_reply_config'], buildNotFoundLocalReply({ body: page, contentType: 'text/html' }));
  t.deepEqual(hcm['local_reply_config'], {
    mappers: [
      {
        filter: { response_flag_filter: { flags: ['NR'] } },
        body: { inline_string: page },
        body_format_override: { text_format_source: { inline_string: '%LOCAL_REPLY_BODY%' }, content_type: 'text/html' },
      },
    ],
  });
});

test('with a default backend nothing is left out and Envoy keeps its own 404', (t) => {
  const defaultBackend: RouteIR = { name: 'default-backend', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'default/fallback/80' } };
  const ir = gateway([fallbackRoute(defaultBackend, page)], [vhost('a.test', [app, fallbackRoute(defaultBackend, page)])]);
  t.is(notFoundReplyOf(ingressHttpTableOf(ir)), undefined);
  const { routes, hcm } = build(ir);
  t.deepEqual(routes.get('a.test'), ['app', 'default-backend']);
  t.is(hcm['local_reply_config'], undefined);
});

test('only a last route answering exactly the page is left out: another body, or a route before others, stays', (t) => {
  const other: RouteIR = { ...fallback(), action: { kind: 'direct', status: 404, body: 'another page', contentType: 'text/plain' } };
  const { routes } = build(gateway([fallback()], [vhost('other.test', [app, other]), vhost('*.wild.test', [app, fallback()])]));
  t.deepEqual(routes.get('other.test'), ['app', 'fallback']);
  // A wildcard host keeps its own fallback (for one-label names); the catch-all's routes after it lose theirs.
  t.deepEqual(routes.get('*.wild.test'), ['app', 'fallback']);
});

test('a host built once is built again when the 404 reply differs only in its content type (nothing stale is reused)', async (t) => {
  const { buildRouteConfiguration } = await import('./route-configuration.js');
  const host = vhost('a.test', [app, fallback()]);
  const table = { name: 'http', virtualHosts: [host] };
  const names = (reply: { body: string; contentType: string }): string[] =>
    ((buildRouteConfiguration('ingress', table, undefined, reply)['virtual_hosts'] as ResourceJson[])[0]!['routes'] as ResourceJson[]).map((r) => String(r['name']));
  t.deepEqual(names({ body: page, contentType: 'text/html' }), ['app']);
  // Another content type: the route's page is not the reply's, so the route stays.
  t.deepEqual(names({ body: page, contentType: 'text/plain' }), ['app', 'fallback']);
});
