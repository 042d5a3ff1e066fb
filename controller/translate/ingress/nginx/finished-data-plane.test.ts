import test from 'ava';
import type { RouteIR, RouteTableIR, VirtualHostIR } from '../../../../ir/index.js';
import type { IngressDataPlane } from '../translator-layer.js';
import { deepFreeze } from '../../shared/freeze-in-tests.js';
import { withRewrittenRoutes } from './finished-data-plane.js';

const route = (name: string): RouteIR => ({ name, match: { kind: 'prefix', path: `/${name}` }, action: { kind: 'forward', cluster: 'c' } });
const vhost = (name: string, routes: RouteIR[]): VirtualHostIR => ({ name, hostnames: [name], routes });
const denied = (r: RouteIR): RouteIR => (r.name.startsWith('auth') ? { ...r, action: { kind: 'direct', status: 503 } } : r);

test('routes are rewritten once per object along the changed path only; the TLS chains and the https table follow', (t) => {
  const shared = route('auth-shared');
  const both = vhost('a.example', [shared, route('plain')]);
  const untouched = vhost('b.example', [route('plain-b')]);
  const https: RouteTableIR = { name: 'https', virtualHosts: [both, untouched] };
  const ir: IngressDataPlane = deepFreeze({
    http: { name: 'http', virtualHosts: [vhost('c.example', [shared]), untouched] },
    tlsServers: [
      { name: 'https/a.example', serverNames: ['a.example'], secret: 's' },
      { name: 'https/b.example', serverNames: ['b.example'], secret: 's' },
    ],
    clusters: [],
    secrets: [],
  });
  const { ir: next, httpsTable } = withRewrittenRoutes({ ir, httpsTable: https }, denied);
  const rewritten = next.http.virtualHosts[0]?.routes[0];
  t.deepEqual(rewritten?.action, { kind: 'direct', status: 503 });
  // One new object for the route wherever it was; the chains (which serve the https table) are unchanged.
  t.is(httpsTable.virtualHosts[0]?.routes[0], rewritten);
  t.is(next.tlsServers, ir.tlsServers);
  // What did not change is shared, not copied.
  t.is(httpsTable.virtualHosts[1], untouched);
  t.is(next.http.virtualHosts[1], untouched);
  t.is(httpsTable.virtualHosts[0]?.routes[1], both.routes[1]);
  t.is(next.secrets, ir.secrets);
  // And the input is as it was.
  t.is(ir.http.virtualHosts[0]?.routes[0], shared);
  t.is(shared.action.kind, 'forward');
});

test('without TLS chains the https table beside the IR changes only where it shares routes with plain HTTP', (t) => {
  const shared = route('auth-shared');
  const ownCopy = route('auth-https-only');
  const https: RouteTableIR = deepFreeze({ name: 'https', virtualHosts: [vhost('a.example', [shared]), vhost('b.example', [ownCopy])] });
  const ir: IngressDataPlane = deepFreeze({ http: { name: 'http', virtualHosts: [vhost('a.example', [shared])] }, tlsServers: [], clusters: [], secrets: [] });
  const { httpsTable } = withRewrittenRoutes({ ir, httpsTable: https }, denied);
  t.is(httpsTable.virtualHosts[0]?.routes[0]?.action.kind, 'direct');
  t.is(httpsTable.virtualHosts[1], https.virtualHosts[1]);
  // Nothing to rewrite: the very same gateway.
  const unchanged = { ir, httpsTable: https };
  t.is(withRewrittenRoutes(unchanged, (r) => r).ir, ir);
});
