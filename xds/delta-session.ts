// Incremental (delta) ADS: only changed resources are sent, removals are named in removed_resources.
import { kindOfTypeUrl, TypeUrl, type ResourceKind } from '../proto/type-urls.js';
import { encodeDeltaDiscoveryResponse, type DeltaDiscoveryRequest } from './discovery-messages.js';
import type { XdsResource } from './resource.js';
import { isWildcardKind, StreamSession, type SentResponse, type SessionHooks } from './stream-session.js';

interface DeltaKindState {
  /** What Envoy has: name -> version (from initial_resource_versions and ACKed responses). */
  known: Map<string, string>;
  /** Versions Envoy rejected: never resent until the resource changes. */
  rejected: Map<string, string>;
  /** Subscribed names we already told Envoy do not exist. */
  toldMissing: Set<string>;
}

export class DeltaSession extends StreamSession {
  readonly #delta = new Map<ResourceKind, DeltaKindState>();

  constructor(
    hooks: SessionHooks,
    private readonly write: (bytes: Uint8Array) => void,
  ) {
    super(hooks);
  }

  #d(kind: ResourceKind): DeltaKindState {
    let d = this.#delta.get(kind);
    if (!d) {
      d = { known: new Map(), rejected: new Map(), toldMissing: new Set() };
      this.#delta.set(kind, d);
    }
    return d;
  }

  handleRequest(req: DeltaDiscoveryRequest): void {
    if (req.node && !this.node) this.node = req.node;
    const kind = kindOfTypeUrl(req.typeUrl);
    if (!kind) return;
    const st = this.state(kind);
    const d = this.#d(kind);
    if (!st.requested) {
      st.requested = true;
      // Reconnect: Envoy says what it already has, so only differences are sent.
      for (const [name, version] of Object.entries(req.initialResourceVersions)) d.known.set(name, version);
      if (kind === 'cluster') for (const name of d.known.keys()) this.clientClusters.add(name);
      if (d.known.size > 0) {
        // What Envoy already has counts as acknowledged (versions are content hashes, stable across restarts),
        // so status publishing after a controller restart does not wait for changes that never come.
        this.hooks.onAck({
          streamId: this.id,
          node: this.node,
          kind,
          version: '',
          resourceNames: [...d.known.keys()],
          resourceVersions: [...d.known.values()],
          removedNames: [],
        });
      }
      if (isWildcardKind(kind) && req.resourceNamesSubscribe.length === 0) st.wildcard = true;
    }
    // ACK/NACK only for the pending nonce; subscription changes are honoured even with a stale nonce.
    const response = this.settle(kind, req.responseNonce, req.errorDetail);
    if (response) {
      if (req.errorDetail) {
        response.resourceNames.forEach((name, i) => d.rejected.set(name, response.resourceVersions[i]!));
      } else {
        response.resourceNames.forEach((name, i) => {
          d.known.set(name, response.resourceVersions[i]!);
          d.rejected.delete(name);
        });
      }
      for (const name of response.removedNames) d.known.delete(name);
    }
    for (const name of req.resourceNamesSubscribe) {
      if (name === '*') st.wildcard = true;
      else {
        st.names.add(name);
        d.toldMissing.delete(name);
      }
    }
    for (const name of req.resourceNamesUnsubscribe) {
      if (name === '*') st.wildcard = false;
      else {
        st.names.delete(name);
        d.toldMissing.delete(name);
        if (!st.wildcard) d.known.delete(name); // Envoy drops what it unsubscribes from
      }
    }
    this.epoch += 1;
    this.pump();
  }

  readonly #changesMemo = new Map<ResourceKind, { epoch: number; changes: { updated: XdsResource[]; removed: string[]; missing: string[] } }>();

  /** What this stream lacks of a kind (memoised per epoch: see StreamSession.epoch). */
  #changes(kind: ResourceKind): { updated: XdsResource[]; removed: string[]; missing: string[] } {
    const memo = this.#changesMemo.get(kind);
    if (memo && memo.epoch === this.epoch) return memo.changes;
    const changes = this.#computeChanges(kind);
    this.#changesMemo.set(kind, { epoch: this.epoch, changes });
    return changes;
  }

  #computeChanges(kind: ResourceKind): { updated: XdsResource[]; removed: string[]; missing: string[] } {
    const d = this.#d(kind);
    const st = this.state(kind);
    const desired = this.desired(kind);
    const updated: XdsResource[] = [];
    for (const r of desired.values()) {
      if (d.known.get(r.name) === r.version) continue;
      if (d.rejected.get(r.name) === r.version) continue;
      updated.push(r);
    }
    const removed: string[] = [];
    for (const name of d.known.keys()) if (!desired.has(name)) removed.push(name);
    const missing: string[] = [];
    for (const name of st.names) {
      if (!desired.has(name) && !d.known.has(name) && !d.toldMissing.has(name)) missing.push(name);
    }
    return { updated, removed, missing };
  }

  protected hasWork(kind: ResourceKind): boolean {
    const st = this.state(kind);
    if (!st.requested || !this.snapshot) return false;
    const { updated, removed, missing } = this.#changes(kind);
    return updated.length + removed.length + missing.length > 0;
  }

  protected buildResponse(kind: ResourceKind): SentResponse | undefined {
    if (!this.snapshot) return undefined;
    const { updated, removed, missing } = this.#changes(kind);
    if (updated.length + removed.length + missing.length === 0) return undefined;
    const d = this.#d(kind);
    for (const name of missing) d.toldMissing.add(name);
    const nonce = this.nextNonce();
    const version = this.snapshot.versions[kind];
    this.write(
      encodeDeltaDiscoveryResponse({
        systemVersionInfo: version,
        resources: updated.map((r) => ({
          name: r.name,
          version: r.version,
          resource: r.any as { type_url: string; value: Uint8Array },
        })),
        typeUrl: TypeUrl[kind],
        removedResources: [...removed, ...missing],
        nonce,
      }),
    );
    if (kind === 'cluster' && updated.length > 0) {
      // A changed cluster warms until its endpoints arrive again: make EDS resend them.
      const eds = this.#d('clusterLoadAssignment');
      for (const r of updated) eds.known.delete(r.name);
    }
    this.epoch += 1;
    return {
      kind,
      nonce,
      version,
      resourceNames: updated.map((r) => r.name),
      resourceVersions: updated.map((r) => r.version),
      removedNames: removed,
    };
  }
}
