import { type DataPlaneIR, PrivateKey } from '../ir/index.js';
import test from 'ava';
import { objectsBehind } from './objects-behind.js';
import { type IngressPairParts, ingressPairIR } from '../envoy/test-helpers/ingress-pair-ir.js';

const web = { kind: 'Ingress' as const, namespace: 'shop', name: 'web' };
const api = { kind: 'Ingress' as const, namespace: 'shop', name: 'api' };
const parts: IngressPairParts = {
  http: {
    name: 'http',
    virtualHosts: [
      {
        name: 'shop.example.com',
        hostnames: ['shop.example.com'],
        routes: [
          { name: 'r1', match: { kind: 'prefix', path: '/api' }, action: { kind: 'forward', cluster: 'shop/api/80' }, source: api },
          { name: 'r2', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'shop/web/80' }, source: web },
          { name: 'fallback', match: { kind: 'prefix', path: '/' }, action: { kind: 'direct', status: 404 } },
        ],
      },
    ],
  },
  tlsServers: [
    {
      name: 'https/secure.example.com',
      serverNames: ['secure.example.com'],
      secret: 'shop/tls',
      routeTable: {
        name: 'https/secure.example.com',
        virtualHosts: [
          {
            name: 'secure.example.com',
            hostnames: ['secure.example.com'],
            routes: [{ name: 's', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'shop/web/80' }, source: web }],
          },
        ],
      },
    },
  ],
  clusters: [
    { name: 'shop/api/80', service: { namespace: 'shop', name: 'api', port: 80 } },
    { name: 'shop/web/80', service: { namespace: 'shop', name: 'web', port: 80 } },
  ],
  secrets: [{ name: 'shop/tls', certificateChain: 'x', privateKey: new PrivateKey('k') }],
};
const ir: DataPlaneIR = ingressPairIR(parts);

test('a rejected cluster names its Service and the Ingresses routing to it', (t) => {
  t.deepEqual(objectsBehind(ir, 'cluster', ['shop/api/80']), [api, { kind: 'Service', namespace: 'shop', name: 'api' }]);
});

test('a rejected route configuration names every Ingress with routes in it, plain HTTP and TLS alike', (t) => {
  // Both listeners share one RouteConfiguration (envoy/route-configuration.ts).
  t.deepEqual(objectsBehind(ir, 'routeConfiguration', ['ingress']), [api, web]);
});

test('a rejected virtual host (VHDS) names the Ingresses with routes on that host only', (t) => {
  t.deepEqual(objectsBehind(ir, 'virtualHost', ['ingress/shop.example.com']), [api, web]);
  t.deepEqual(objectsBehind(ir, 'virtualHost', ['ingress/secure.example.com']), [web]);
  t.deepEqual(objectsBehind(ir, 'virtualHost', ['ingress/other.example.com']), []);
});

test('a rejected secret names the Secret and the Ingresses using it', (t) => {
  t.deepEqual(objectsBehind(ir, 'secret', ['shop/tls']), [web, { kind: 'Secret', namespace: 'shop', name: 'tls' }]);
});

test('unknown names give nothing', (t) => {
  t.deepEqual(objectsBehind(ir, 'cluster', ['nope/x/1']), []);
});

test('a rejected route table names the basic-auth Secret of its routes too', async (t) => {
  const users = { kind: 'Secret' as const, namespace: 'shop', name: 'users' };
  const guardedParts: IngressPairParts = {
    ...parts,
    http: {
      name: 'http',
      virtualHosts: [
        {
          name: 'admin.example.com',
          hostnames: ['admin.example.com'],
          routes: [
            {
              name: 'a',
              match: { kind: 'prefix', path: '/' },
              action: { kind: 'forward', cluster: 'shop/web/80' },
              source: web,
              policy: { basicAuth: { usersId: 'shop/users/auth-file', realm: '', secret: users } },
            },
          ],
        },
      ],
    },
  };  const guarded = ingressPairIR(guardedParts);

  t.deepEqual(objectsBehind(ingressPairIR({ ...guardedParts, tlsServers: [] }), 'routeConfiguration', ['ingress']), [web, users].sort((a, b) => (`${a.kind}/${a.namespace}/${a.name}` < `${b.kind}/${b.namespace}/${b.name}` ? -1 : 1)));
  // A cluster NACK is about the cluster, not the users of a route using it.
  t.false(objectsBehind(guarded, 'cluster', ['shop/web/80']).some((o) => o.kind === 'Secret'));
});
