// Envoy refuses a listener whose filter chains have equal matches, and with it every later update of that listener. A
// property: whatever Gateways (HTTPS, TLS in both modes, HTTP and TCP listeners on shared ports, with overlapping,
// wildcard and absent hostnames, in one or several Gateways) and TLSRoutes (overlapping names, any listener), no
// server name, and no "any name", is matched by two filter chains of one Envoy listener.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import fc from 'fast-check';
import { buildResources } from '../../../envoy/build-resources.js';
import { clusterStateFromYaml } from '../shared/cluster-state-yaml.js';
import type { ClusterState, Gateway, GatewayListener, Secret, TLSRoute } from '../shared/kube-objects.js';
import { defaultTranslateOptions } from '../shared/options.js';
import { translate } from '../translate.js';

const golden = fileURLToPath(new URL('../../../../testdata/translate/gateway-api-https-listeners.in.yaml', import.meta.url));
const secret = clusterStateFromYaml(readFileSync(golden, 'utf8')).state.secrets.find((s) => s.metadata.name === 'wildcard-tls') as Secret;

const gatewayApi = 'gateway.networking.k8s.io/v1';
const hostnames = [undefined, 'a.example.com', 'b.example.com', '*.example.com', '*.a.example.com', 'other.test'] as const;
const hostnameArb = fc.constantFrom(...hostnames);
const listenerArb = fc.record({
  port: fc.constantFrom(9443, 9444),
  kind: fc.constantFrom('HTTPS', 'TLS-Passthrough', 'TLS-Terminate', 'HTTP', 'TCP'),
  hostname: hostnameArb,
});
const gatewayArb = fc.array(listenerArb, { minLength: 1, maxLength: 5 });
const routeArb = fc.record({
  gateway: fc.nat(),
  section: fc.option(fc.nat(), { nil: undefined }),
  hostnames: fc.array(fc.constantFrom('a.example.com', 'b.example.com', 'x.a.example.com', '*.example.com', 'other.test'), { maxLength: 3 }),
});

function stateOf(gateways: (typeof listenerArb extends fc.Arbitrary<infer L> ? L : never)[][], routes: (typeof routeArb extends fc.Arbitrary<infer R> ? R : never)[]): ClusterState {
  const gatewayObjects: Gateway[] = gateways.map((listeners, g) => ({
    apiVersion: gatewayApi,
    kind: 'Gateway',
    metadata: { name: `gw${g}`, namespace: 'default', creationTimestamp: `2024-01-0${g + 1}T00:00:00Z` },
    spec: {
      gatewayClassName: 'envoy',
      listeners: listeners.map((l, i): GatewayListener => {
        const [protocol, mode] = l.kind.split('-') as [string, 'Passthrough' | 'Terminate' | undefined];
        return {
          name: `l${i}`,
          port: l.port,
          protocol,
          ...(l.hostname === undefined ? {} : { hostname: l.hostname }),
          ...(protocol === 'HTTPS' || mode === 'Terminate' ? { tls: { ...(mode === undefined ? {} : { mode }), certificateRefs: [{ name: 'tls' }] } } : mode === undefined ? {} : { tls: { mode } }),
        };
      }),
    },
  }));
  const tlsRoutes: TLSRoute[] = routes.map((r, i) => {
    const g = r.gateway % gateways.length;
    const section = r.section === undefined ? {} : { sectionName: `l${r.section % (gateways[g]?.length ?? 1)}` };
    return {
      apiVersion: gatewayApi,
      kind: 'TLSRoute',
      metadata: { name: `r${i}`, namespace: 'default', creationTimestamp: `2024-02-${String(i + 1).padStart(2, '0')}T00:00:00Z` },
      spec: { parentRefs: [{ name: `gw${g}`, ...section }], hostnames: r.hostnames, rules: [{ backendRefs: [{ name: 'backend', port: 443 }] }] },
    };
  });
  return {
    ingresses: [],
    ingressClasses: [],
    services: [{ kind: 'Service', metadata: { name: 'backend', namespace: 'default' }, spec: { ports: [{ port: 443 }] } }],
    endpointSlices: [],
    endpoints: [],
    secrets: [{ ...secret, metadata: { name: 'tls', namespace: 'default' } }],
    gatewayClasses: [{ kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } }],
    gateways: gatewayObjects,
    tlsRoutes,
  };
}

interface FilterChain {
  name?: string;
  filter_chain_match?: { server_names?: string[] };
}

test('no two filter chains of an Envoy listener match the same server name', (t) => {
  let tlsListeners = 0;
  fc.assert(
    fc.property(fc.array(gatewayArb, { minLength: 1, maxLength: 3 }), fc.array(routeArb, { maxLength: 6 }), (gateways, routes) => {
      const { ir } = translate(stateOf(gateways, routes), defaultTranslateOptions);
      const resources = buildResources(ir, [], { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 });
      for (const { name, resource } of resources.listeners) {
        const chains = ((resource as { filter_chains?: FilterChain[] }).filter_chains ?? []);
        if (name.startsWith('gateway/tls/')) tlsListeners++;
        const seen = new Map<string, string>();
        for (const chain of chains) {
          const names = chain.filter_chain_match?.server_names ?? [];
          for (const serverName of names.length === 0 ? ['(any)'] : names) {
            const other = seen.get(serverName);
            if (other !== undefined) throw new Error(`listener ${name}: ${serverName} is matched by chains ${other} and ${chain.name}`);
            seen.set(serverName, chain.name ?? '');
          }
        }
      }
    }),
    { numRuns: 300 },
  );
  // The generator reaches TLS sockets at all (else the property says nothing).
  t.true(tlsListeners > 50, `${tlsListeners} TLS listeners built`);
});
