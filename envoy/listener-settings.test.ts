// ListenerIR.settings (what the ingress-nginx ConfigMap decides for both Ingress listeners) reaches the connection managers,
// through the protobuf codec Envoy reads; without it the listeners stay as the flags say.
import type { DataPlaneIR, ListenerSettingsIR } from '../ir/index.js';
import test from 'ava';
import { encodeAny } from '../proto/proto-json.js';
import { buildResources } from './build-resources.js';
import { defaultEdgeHardening } from './edge-hardening.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

const ir = (listener?: ListenerSettingsIR): DataPlaneIR =>
  ingressPairIR({
    http: { name: 'http', virtualHosts: [{ name: '*', hostnames: ['*'], routes: [] }] },
    tlsServers: [],
    clusters: [],
    secrets: [],
    ...(listener === undefined ? {} : { listener }),
  });

function connectionManager(gateway: DataPlaneIR, xffNumTrustedHops = 0): Record<string, unknown> {
  const resources = buildResources(gateway, [], { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443, edge: { ...defaultEdgeHardening, xffNumTrustedHops } });
  const listener = resources.listeners[0]!.resource as { filter_chains: { filters: { typed_config: Record<string, unknown> }[] }[] };
  encodeAny(resources.listeners[0]!.resource); // Envoy's schema accepts it
  return listener.filter_chains[0]!.filters[0]!.typed_config;
}

test('server-tokens "false": Envoy writes no Server header of its own (PASS_THROUGH); absent: its default', (t) => {
  t.is(connectionManager(ir({ serverHeaderPassThrough: true }))['server_header_transformation'], 'PASS_THROUGH');
  t.is(connectionManager(ir())['server_header_transformation'], undefined);
});

test('use-forwarded-headers: at least one trusted hop, more when the flag says so', (t) => {
  t.is(connectionManager(ir({ trustForwardedHeaders: true }))['xff_num_trusted_hops'], 1);
  t.is(connectionManager(ir({ trustForwardedHeaders: true }), 2)['xff_num_trusted_hops'], 2);
  t.is(connectionManager(ir())['xff_num_trusted_hops'], 0);
});
