// The gRPC AggregatedDiscoveryService: both StreamAggregatedResources (state of the world) and
// DeltaAggregatedResources (incremental), fed by one SnapshotCache shared by every stream.
import { EventEmitter } from 'node:events';
import { chmod, rm } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import type { ResourceKind } from '../proto/type-urls.js';
import { DeltaSession } from './delta-session.js';
import {
  decodeDeltaDiscoveryRequest,
  decodeDiscoveryRequest,
  type DeltaDiscoveryRequest,
  type DiscoveryRequest,
  type NodeInfo,
} from './discovery-messages.js';
import type { ClientAuthorizer } from './client-identity.js';
import type { SnapshotCache } from './snapshot-cache.js';
import type { Snapshot } from './snapshot.js';
import { SotwSession } from './sotw-session.js';
import type { AckEvent, NackEvent, SentResponse, SessionHooks, StreamSession } from './stream-session.js';

const servicePath = '/envoy.service.discovery.v3.AggregatedDiscoveryService';

const passThrough = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export const adsServiceDefinition: grpc.ServiceDefinition = {
  StreamAggregatedResources: {
    path: `${servicePath}/StreamAggregatedResources`,
    requestStream: true,
    responseStream: true,
    requestSerialize: passThrough,
    requestDeserialize: (b: Buffer) => decodeDiscoveryRequest(b),
    responseSerialize: passThrough,
    responseDeserialize: (b: Buffer) => b,
  },
  DeltaAggregatedResources: {
    path: `${servicePath}/DeltaAggregatedResources`,
    requestStream: true,
    responseStream: true,
    requestSerialize: passThrough,
    requestDeserialize: (b: Buffer) => decodeDeltaDiscoveryRequest(b),
    responseSerialize: passThrough,
    responseDeserialize: (b: Buffer) => b,
  },
};

export interface ClientInfo {
  streamId: number;
  protocol: 'sotw' | 'delta';
  node: NodeInfo | undefined;
  connectedAt: number;
  /** Per type: version last ACKed, and the last NACK. */
  types: Partial<Record<ResourceKind, { ackedVersion?: string; lastNack?: { version: string; message: string; at: number } }>>;
  /** What the stream has ACKed: per type, resource name -> version. */
  acked: Record<ResourceKind, Map<string, string>>;
}

export interface XdsStats {
  streamsOpened: number;
  responses: number;
  acks: number;
  nacks: number;
  staleRequests: number;
  /** Streams refused by `authorizeClient` (they never saw a resource). */
  refusedStreams: number;
}

export interface AdsServerOptions {
  /** Receive limit; Envoy's delta reconnect requests carry every known resource version. */
  maxReceiveMessageBytes?: number;
  /** Checked before a stream gets anything; a refusal ends it with PERMISSION_DENIED (see client-identity.ts). */
  authorizeClient?: ClientAuthorizer;
  log?: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    debug(obj: object, msg: string): void;
    trace?(obj: object, msg: string): void;
  };
}

interface Entry {
  session: StreamSession;
  protocol: 'sotw' | 'delta';
  connectedAt: number;
  acked: Record<ResourceKind, Map<string, string>>;
}

function emptyAcked(): Record<ResourceKind, Map<string, string>> {
  return { cluster: new Map(), clusterLoadAssignment: new Map(), secret: new Map(), extensionConfig: new Map(), listener: new Map(), routeConfiguration: new Map(), virtualHost: new Map() };
}

/** A short, log-friendly view of a request (resource lists can be huge). */
function summarize(req: unknown): object {
  const r = req as Partial<DiscoveryRequest & DeltaDiscoveryRequest>;
  return {
    type: r.typeUrl?.slice(r.typeUrl.lastIndexOf('.') + 1),
    nonce: r.responseNonce,
    version: r.versionInfo,
    names: r.resourceNames?.length,
    subscribe: r.resourceNamesSubscribe?.slice(0, 5),
    unsubscribe: r.resourceNamesUnsubscribe?.slice(0, 5),
    error: r.errorDetail?.message,
  };
}

/** A response written to one stream. */
export interface PushEvent extends SentResponse {
  streamId: number;
  node: NodeInfo | undefined;
}

export class AdsServer extends EventEmitter<{
  ack: [AckEvent];
  nack: [NackEvent];
  push: [PushEvent];
  connect: [number];
  disconnect: [number];
}> {
  readonly grpcServer: grpc.Server;
  readonly stats: XdsStats = { streamsOpened: 0, responses: 0, acks: 0, nacks: 0, staleRequests: 0, refusedStreams: 0 };
  readonly #entries = new Map<number, Entry>();
  readonly #onChange = (snapshot: Snapshot): void => {
    for (const e of this.#entries.values()) e.session.setSnapshot(snapshot);
  };

  constructor(
    private readonly cache: SnapshotCache,
    private readonly options: AdsServerOptions = {},
  ) {
    super();
    this.grpcServer = new grpc.Server({
      'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? 256 * 1024 * 1024,
      'grpc.max_send_message_length': -1,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.http2.min_ping_interval_without_data_ms': 10_000,
    });
    this.grpcServer.addService(adsServiceDefinition, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<DiscoveryRequest, Buffer>) => this.#sotw(call),
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<DeltaDiscoveryRequest, Buffer>) => this.#delta(call),
    });
    cache.on('change', this.#onChange);
  }

  /**
   * Listen on host:port (port 0 picks one), or on a Unix socket for host `unix:/path` (a stale socket file there is
   * replaced; then made owner-only: connecting needs write permission on it); resolves to the bound port (0 for a
   * socket). `credentials`: default plaintext.
   */
  async listen(host: string, port: number, credentials: grpc.ServerCredentials = grpc.ServerCredentials.createInsecure()): Promise<number> {
    const socketPath = host.startsWith('unix:') ? host.slice('unix:'.length) : undefined;
    if (socketPath !== undefined) await rm(socketPath, { force: true });
    const target = socketPath !== undefined ? `unix:${socketPath}` : `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const bound = await new Promise<number>((resolve, reject) => {
      this.grpcServer.bindAsync(target, credentials, (err, p) => (err ? reject(err) : resolve(p)));
    });
    if (socketPath === undefined) return bound;
    await chmod(socketPath, 0o600);
    return 0;
  }

  clients(): ClientInfo[] {
    return [...this.#entries.values()].map((e) => {
      const types: ClientInfo['types'] = {};
      for (const [kind, st] of e.session.states) {
        const t: { ackedVersion?: string; lastNack?: { version: string; message: string; at: number } } = {};
        if (st.ackedVersion !== undefined) t.ackedVersion = st.ackedVersion;
        if (st.lastNack) t.lastNack = st.lastNack;
        types[kind] = t;
      }
      return { streamId: e.session.id, protocol: e.protocol, node: e.session.node, connectedAt: e.connectedAt, types, acked: e.acked };
    });
  }

  #hooks(acked: Record<ResourceKind, Map<string, string>>, protocol: 'sotw' | 'delta', session: () => StreamSession | undefined): SessionHooks {
    return {
      onPush: (response: SentResponse) => {
        const s = session();
        this.emit('push', { ...response, streamId: s?.id ?? 0, node: s?.node });
      },
      onAck: (event: AckEvent) => {
        this.stats.acks += 1;
        const map = acked[event.kind];
        if (protocol === 'sotw' && (event.kind === 'listener' || event.kind === 'cluster')) map.clear();
        event.resourceNames.forEach((n, i) => map.set(n, event.resourceVersions[i]!));
        for (const n of event.removedNames) map.delete(n);
        this.options.log?.debug({ node: event.node?.id, type: event.kind, version: event.version }, 'xDS ACK');
        this.emit('ack', event);
      },
      onNack: (event: NackEvent) => {
        this.stats.nacks += 1;
        this.options.log?.warn(
          { node: event.node?.id, type: event.kind, version: event.version, resources: event.resourceNames.slice(0, 20), error: event.message },
          'Envoy rejected config (NACK); keeping its last good config and not resending this version',
        );
        this.emit('nack', event);
      },
    };
  }

  #register<R>(
    call: grpc.ServerDuplexStream<R, Buffer>,
    protocol: 'sotw' | 'delta',
    make: (hooks: SessionHooks, write: (b: Uint8Array) => void) => StreamSession & { handleRequest(r: R): void },
  ): void {
    const refusal = this.options.authorizeClient?.(call.getAuthContext());
    if (refusal !== undefined) {
      this.stats.refusedStreams += 1;
      this.options.log?.warn({ peer: call.getPeer(), reason: refusal }, 'xDS stream refused');
      call.emit('error', { code: grpc.status.PERMISSION_DENIED, details: `xDS client not authorized: ${refusal}` });
      return;
    }
    const acked = emptyAcked();
    const write = (bytes: Uint8Array): void => {
      this.stats.responses += 1;
      call.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    };
    let made: StreamSession | undefined;
    const session = make(this.#hooks(acked, protocol, () => made), write);
    made = session;
    const entry: Entry = { session, protocol, connectedAt: Date.now(), acked };
    this.#entries.set(session.id, entry);
    this.stats.streamsOpened += 1;
    this.emit('connect', session.id);
    if (this.cache.ready) session.setSnapshot(this.cache.snapshot);
    const done = (): void => {
      if (session.closed) return;
      session.close();
      this.#entries.delete(session.id);
      this.options.log?.info({ node: session.node?.id, stream: session.id }, 'xDS stream closed');
      this.emit('disconnect', session.id);
    };
    call.on('data', (req: R) => {
      this.options.log?.trace?.({ stream: session.id, request: summarize(req) }, 'xDS request');
      try {
        const wasNode = session.node;
        session.handleRequest(req);
        if (!wasNode && session.node) {
          this.options.log?.info({ node: session.node.id, cluster: session.node.cluster, protocol, stream: session.id }, 'Envoy connected');
        }
      } catch (err: unknown) {
        this.options.log?.warn({ err, stream: session.id }, 'xDS request failed');
        call.destroy(err instanceof Error ? err : new Error(String(err)));
      }
    });
    call.on('end', () => {
      done();
      call.end();
    });
    call.on('error', done);
    call.on('close', done);
    call.on('cancelled', done);
  }

  #sotw(call: grpc.ServerDuplexStream<DiscoveryRequest, Buffer>): void {
    this.#register(call, 'sotw', (hooks, write) =>
      new SotwSession(hooks, write, (req) => {
        this.stats.staleRequests += 1;
        this.options.log?.debug({ type: req.typeUrl, nonce: req.responseNonce }, 'ignoring stale xDS request');
      }),
    );
  }

  #delta(call: grpc.ServerDuplexStream<DeltaDiscoveryRequest, Buffer>): void {
    this.#register(call, 'delta', (hooks, write) => new DeltaSession(hooks, write));
  }

  /** Stop accepting streams; end open ones after `graceMs` (Envoy keeps its config and reconnects elsewhere). */
  async close(graceMs = 1000): Promise<void> {
    this.cache.off('change', this.#onChange);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.grpcServer.forceShutdown();
        resolve();
      }, graceMs);
      this.grpcServer.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    for (const e of this.#entries.values()) e.session.close();
  }

  /** Stop at once (streams cut). */
  forceClose(): void {
    this.cache.off('change', this.#onChange);
    this.grpcServer.forceShutdown();
  }
}
