import test from 'ava';
import { ingressRouteChange, withExtraIngressPath } from './incremental-cost.js';
import { syntheticCluster } from './synthetic-cluster.js';

// Never parsed here: the Secrets only carry it.
const tls = { certPem: 'certificate', keyPem: 'key' };

const hostsOf = (ingress: { spec?: { rules?: { host?: string }[] } }) => (ingress.spec?.rules ?? []).map((r) => r.host);
const pathsOf = (ingress: { spec?: { rules?: { http?: { paths: unknown[] } }[] } }) => (ingress.spec?.rules ?? []).reduce((n, r) => n + (r.http?.paths.length ?? 0), 0);

test('the route change edits the state\'s own Ingress: same name, hosts and TLS, one more path; the original is untouched', (t) => {
  const state = syntheticCluster({ ingresses: 3000, tls });
  const change = ingressRouteChange('route', state.ingresses);
  for (const run of [0, 1, 4]) {
    const original = state.ingresses[(run * 13 + 5) % state.ingresses.length]!;
    const before = structuredClone(original);
    const changed = change.object(run) as typeof original;
    t.is(changed.metadata.name, original.metadata.name);
    t.deepEqual(hostsOf(changed), hostsOf(original));
    t.deepEqual(changed.spec?.tls, original.spec?.tls);
    t.is(pathsOf(changed), pathsOf(original) + 1);
    t.deepEqual(original, before);
  }
});

test('the extra path goes to the first rule\'s backend', (t) => {
  const [ingress] = syntheticCluster({ ingresses: 1, tls }).ingresses;
  const changed = withExtraIngressPath(ingress!, '/changed');
  const paths = changed.spec?.rules?.[0]?.http?.paths ?? [];
  t.deepEqual(paths.at(-1), { path: '/changed', pathType: 'Exact', backend: ingress!.spec?.rules?.[0]?.http?.paths[0]?.backend });
});
