// The JSON documents of the admin server's /debug endpoints, built from a running controller. Private keys
// never leave the process: SDS secrets are redacted here, and the IR's PrivateKey prints as "[redacted]".
import type { ClusterEndpointsIR, DataPlaneIR } from '../ir/index.js';
import type { Reconciler } from '../controller/reconciler.js';
import type { ObjectStore } from '../controller/store.js';
import type { Diagnostic } from '../controller/translate/shared/diagnostics.js';
import { resourceKinds, TypeUrl } from '../proto/type-urls.js';
import type { AdsServer } from '../xds/ads-server.js';
import { clientSync } from '../xds/client-sync.js';
import type { SnapshotCache } from '../xds/snapshot-cache.js';
import type { Gateway, ListenerSet } from '../controller/translate/shared/kube-objects.js';
import { gatewayApiView, type GatewayApiView } from './gateway-api-view.js';
import { gatewayExplainContext, type GatewayExplainContext } from '../controller/explain-gateway-context.js';

/** What the debug endpoints read. Both controllers (standalone and Kubernetes) have these. */
export interface ControlPlane {
  server: AdsServer;
  reconciler: Reconciler;
  store: ObjectStore;
  cache: SnapshotCache;
}

export const redactedValue = '[redacted]';

/**
 * A deep copy with every `private_key` (Envoy's TlsCertificate field) and every basic-auth `users` (an htpasswd
 * text: password hashes are credentials too) replaced.
 */
export function redactPrivateKeys<T>(json: T): T {
  return JSON.parse(
    JSON.stringify(json, (key, value: unknown) =>
      key === 'private_key' || (key === 'users' && typeof value === 'object' && value !== null && 'inline_string' in value)
        ? { inline_string: redactedValue }
        : value,
    ),
  ) as T;
}

export interface XdsView {
  ready: boolean;
  /** Per type URL: the type's snapshot version and its resources (proto3 JSON, as served). */
  types: Record<string, { version: string; resources: { name: string; version: string; resource: unknown }[] }>;
}

export function xdsView(cp: ControlPlane): XdsView {
  const snapshot = cp.cache.snapshot;
  const types: XdsView['types'] = {};
  for (const kind of resourceKinds) {
    types[TypeUrl[kind]] = {
      version: cp.cache.ready ? snapshot.versions[kind] : '',
      resources: [...snapshot.resources[kind].values()].map((r) => ({
        name: r.name,
        version: r.version,
        resource: redactPrivateKeys(r.json),
      })),
    };
  }
  return { ready: cp.cache.ready, types };
}

export interface ClientTypeView {
  /** Snapshot version of the type that the Envoy last ACKed on this stream. */
  ackedVersion: string | null;
  currentVersion: string;
  /** Current resources of the type the Envoy does not have at their current version. */
  behind: number;
  behindNames: string[];
  lastNack: { version: string; error: string; at: string } | null;
}

export interface ClientView {
  nodeId: string | null;
  nodeCluster: string | null;
  streamId: number;
  protocol: 'sotw' | 'delta';
  connectedAt: string;
  /** Every current resource ACKed at its current version. */
  inSync: boolean;
  types: Record<string, ClientTypeView>;
}

export function clientsView(cp: ControlPlane): { clients: ClientView[] } {
  const snapshot = cp.cache.snapshot;
  const clients = cp.server.clients().map((c): ClientView => {
    const sync = clientSync(c.acked, snapshot);
    const types: Record<string, ClientTypeView> = {};
    for (const kind of resourceKinds) {
      const t = c.types[kind];
      types[TypeUrl[kind]] = {
        ackedVersion: t?.ackedVersion ?? null,
        currentVersion: cp.cache.ready ? snapshot.versions[kind] : '',
        behind: sync.kinds[kind].behind,
        behindNames: sync.kinds[kind].behindNames,
        lastNack: t?.lastNack ? { version: t.lastNack.version, error: t.lastNack.message, at: new Date(t.lastNack.at).toISOString() } : null,
      };
    }
    return {
      nodeId: c.node?.id ?? null,
      nodeCluster: c.node?.cluster ?? null,
      streamId: c.streamId,
      protocol: c.protocol,
      connectedAt: new Date(c.connectedAt).toISOString(),
      inSync: cp.cache.ready && sync.inSync,
      types,
    };
  });
  return { clients };
}

/**
 * What `envoy-ingress explain --controller URL` reads: the IR of the last build, its endpoints and problems, and the
 * Gateways' listener names and HTTPRoutes' rule names (from the store: the objects as they are now).
 */
export interface IrView extends Partial<GatewayExplainContext> {
  generation: number;
  ir: DataPlaneIR | null;
  endpoints: ClusterEndpointsIR[];
  diagnostics: Diagnostic[];
}

export function irView(cp: ControlPlane): IrView {
  return redactPrivateKeys({
    generation: cp.reconciler.generation,
    ir: cp.reconciler.ir ?? null,
    endpoints: [...cp.reconciler.endpoints.values()],
    diagnostics: [...cp.reconciler.diagnostics],
    ...gatewayExplainContext(cp.store.state()),
  });
}

/** /debug/gateway-api: the Gateways of our classes and the routes naming them, as the last build found them. */
export function gatewayApiDebugView(cp: ControlPlane): GatewayApiView {
  return gatewayApiView(cp.reconciler.gatewayApiStatus, cp.store.list('Gateway') as Gateway[], cp.store.list('ListenerSet') as ListenerSet[]);
}
