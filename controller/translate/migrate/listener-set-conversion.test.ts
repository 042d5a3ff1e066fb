import test from 'ava';
import type { ClusterState, HTTPRoute, Ingress, IngressClass, ListenerSet, Secret, Service } from '../shared/kube-objects.js';
import { defaultTranslateOptions } from '../shared/options.js';
import { createTestCA } from '../../../test/harness/test-certs.js';
import { migrateIngresses, type MigrateOptions } from './migrate-ingresses.js';

const ours: IngressClass = { kind: 'IngressClass', metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: defaultTranslateOptions.controllerName } };
const options: MigrateOptions = {
  gatewayClassName: 'envoy-ingress',
  gatewayNamespace: 'gateways',
  httpPort: 80,
  httpsPort: 443,
  listenerSets: true,
  classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName },
};
const service = (name: string, namespace: string): Service => ({ kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'http', port: 80 }] } });
const b64 = (text: string): string => Buffer.from(text).toString('base64');

async function tlsSecret(name: string, namespace: string, hosts: string[]): Promise<Secret> {
  const issued = await (await createTestCA()).issue({ dnsNames: hosts });
  return { kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name, namespace }, data: { 'tls.crt': b64(issued.certPem), 'tls.key': b64(issued.keyPem) } } as Secret;
}

function ingress(name: string, namespace: string, tls: { hosts: string[]; secretName: string }[], hosts: string[]): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { tls, rules: hosts.map((host) => ({ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } })) },
  };
}

function state(ingresses: Ingress[], secrets: Secret[]): Pick<ClusterState, 'ingresses' | 'ingressClasses' | 'services' | 'secrets'> {
  return { ingresses, ingressClasses: [ours], services: [service('web', 'team-a'), service('web', 'team-b')], secrets };
}

const setsOf = (objects: readonly { kind: string }[]): ListenerSet[] => objects.filter((o): o is ListenerSet => o.kind === 'ListenerSet');
const routesOf = (objects: readonly { kind: string }[]): HTTPRoute[] => objects.filter((o): o is HTTPRoute => o.kind === 'HTTPRoute');

test('--listener-sets: each namespace\'s TLS hosts get HTTPS listeners in a ListenerSet of that namespace (certificate without namespace, no ReferenceGrant); routes attach to it', async (t) => {
  const a = ingress('shop', 'team-a', [{ hosts: ['shop.test'], secretName: 'shop-tls' }], ['shop.test']);
  const b = ingress('blog', 'team-b', [{ hosts: ['blog.test'], secretName: 'blog-tls' }], ['blog.test']);
  const result = migrateIngresses(state([a, b], [await tlsSecret('shop-tls', 'team-a', ['shop.test']), await tlsSecret('blog-tls', 'team-b', ['blog.test'])]), options);
  const gateway = result.objects.find((o) => o.kind === 'Gateway');
  t.deepEqual((gateway?.spec as { listeners: { name: string }[] }).listeners.map((l) => l.name), ['http']);
  t.deepEqual((gateway?.spec as { allowedListeners?: unknown }).allowedListeners, { namespaces: { from: 'All' } });
  t.false(result.objects.some((o) => o.kind === 'ReferenceGrant'));
  t.deepEqual(
    setsOf(result.objects).map((s) => [s.metadata.namespace, s.metadata.name, s.spec]),
    ['team-a', 'team-b'].map((ns) => {
      const host = ns === 'team-a' ? 'shop.test' : 'blog.test';
      const secret = ns === 'team-a' ? 'shop-tls' : 'blog-tls';
      return [
        ns,
        'nginx-https',
        {
          parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'nginx', namespace: 'gateways' },
          listeners: [{ name: `https-${host.replace('.', '-')}`, hostname: host, port: 443, protocol: 'HTTPS', tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: secret }] }, allowedRoutes: { namespaces: { from: 'Same' } } }],
        },
      ];
    }),
  );
  // The https side through the set (a Gateway parentRef never reaches a set's listener), http redirects on the Gateway.
  const shop = routesOf(result.objects).filter((r) => r.metadata.namespace === 'team-a');
  t.deepEqual(shop.map((r) => r.spec?.parentRefs), [
    [{ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'nginx-https', namespace: 'team-a', sectionName: 'https-shop-test' }],
    [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'nginx', namespace: 'gateways', sectionName: 'http' }],
  ]);
});

test('--listener-sets: a host under a TLS wildcard of its namespace attaches to that listener too; one of another namespace is reported', async (t) => {
  const wildcard = ingress('apps', 'team-a', [{ hosts: ['*.apps.test'], secretName: 'apps-tls' }], ['*.apps.test', 'plain.apps.test']);
  const other = ingress('other', 'team-b', [], ['other.apps.test']);
  const result = migrateIngresses(state([wildcard, other], [await tlsSecret('apps-tls', 'team-a', ['*.apps.test'])]), options);
  const parentsOf = (name: string): string[] => (routesOf(result.objects).find((r) => r.metadata.name === name)?.spec?.parentRefs ?? []).map((p) => `${p.kind}/${p.name}${p.sectionName === undefined ? '' : `#${p.sectionName}`}`);
  t.deepEqual(parentsOf('apps-plain-apps-test'), ['Gateway/nginx', 'ListenerSet/nginx-https#https-wildcard-apps-test']);
  t.deepEqual(parentsOf('other'), ['Gateway/nginx']);
  const reported = result.report.ingresses.find((i) => i.name === 'other')?.paths[0];
  t.true(reported?.differences.some((d) => d.id === 'listener-set-namespace'));
  // Without the flag nothing changes: the listeners stay on the Gateway.
  const plain = migrateIngresses(state([wildcard, other], [await tlsSecret('apps-tls', 'team-a', ['*.apps.test'])]), { ...options, listenerSets: false });
  t.deepEqual(setsOf(plain.objects), []);
  t.false(plain.report.ingresses.some((i) => i.paths.some((p) => p.differences.some((d) => d.id === 'listener-set-namespace'))));
});
