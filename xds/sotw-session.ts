// State-of-the-world ADS: every response carries the full set of a type's resources the stream wants.
import { kindOfTypeUrl, TypeUrl, type ResourceKind } from '../proto/type-urls.js';
import { encodeDiscoveryResponse, type DiscoveryRequest } from './discovery-messages.js';
import { embeddedParts, embedVirtualHosts } from './embedded-virtual-hosts.js';
import type { XdsResource } from './resource.js';
import { typeVersion } from './snapshot.js';
import { isWildcardKind, StreamSession, type SentResponse, type SessionHooks } from './stream-session.js';

interface SotwKindState {
  /** Version string of the last response sent (what Envoy has, or is about to NACK). */
  sentVersion: string | undefined;
  /** Subscription (sorted names + wildcard flag) the last response answered. */
  sentSubscription: string | undefined;
  /** Nonce of the latest response for the type: requests carrying any other nonce are stale. */
  lastNonce: string | undefined;
}

export class SotwSession extends StreamSession {
  readonly #sotw = new Map<ResourceKind, SotwKindState>();

  constructor(
    hooks: SessionHooks,
    private readonly write: (bytes: Uint8Array) => void,
    private readonly onStale?: (req: DiscoveryRequest) => void,
  ) {
    super(hooks);
  }

  #s(kind: ResourceKind): SotwKindState {
    let s = this.#sotw.get(kind);
    if (!s) {
      s = { sentVersion: undefined, sentSubscription: undefined, lastNonce: undefined };
      this.#sotw.set(kind, s);
    }
    return s;
  }

  handleRequest(req: DiscoveryRequest): void {
    if (req.node && !this.node) this.node = req.node;
    const kind = kindOfTypeUrl(req.typeUrl);
    if (!kind) return; // a type we do not serve: never answered
    const st = this.state(kind);
    const lastNonce = this.#s(kind).lastNonce;
    // Rule: a request whose nonce is not the latest we sent for the type is stale; ignore it entirely.
    if (req.responseNonce !== '' && lastNonce !== undefined && req.responseNonce !== lastNonce) {
      this.onStale?.(req);
      return;
    }
    this.settle(kind, req.responseNonce, req.errorDetail);
    const names = req.resourceNames.filter((n) => n !== '*');
    const wildcard = isWildcardKind(kind) && (req.resourceNames.length === 0 || req.resourceNames.includes('*'));
    if (wildcard !== st.wildcard || names.length !== st.names.size || names.some((n) => !st.names.has(n))) {
      st.wildcard = wildcard;
      st.names = new Set(names);
      st.subscription += 1;
    }
    if (!st.requested) {
      st.requested = true;
      // Always answer a stream's first request for a type, even when Envoy already has this version.
      st.force = true;
    }
    this.epoch += 1;
    this.pump();
  }

  readonly #subscriptionKeys = new Map<ResourceKind, { subscription: number; key: string }>();

  /** The subscription as text (sorted names: 10,000 of them are not sorted again for every question). */
  #subscription(kind: ResourceKind): string {
    const st = this.state(kind);
    const memo = this.#subscriptionKeys.get(kind);
    if (memo && memo.subscription === st.subscription) return memo.key;
    const key = `${st.wildcard ? '*' : ''}|${[...st.names].sort().join(',')}`;
    this.#subscriptionKeys.set(kind, { subscription: st.subscription, key });
    return key;
  }

  protected hasWork(kind: ResourceKind): boolean {
    const st = this.state(kind);
    if (!st.requested || !this.snapshot) return false;
    const s = this.#s(kind);
    if (st.force) return true;
    if (s.sentSubscription !== this.#subscription(kind)) return true;
    return typeVersion(this.desired(kind)) !== s.sentVersion;
  }

  /** Route configurations come with their virtual hosts inside: VHDS needs delta xDS (embedded-virtual-hosts.ts). */
  protected override desired(kind: ResourceKind): ReadonlyMap<string, XdsResource> {
    const desired = super.desired(kind);
    return kind === 'routeConfiguration' ? embedVirtualHosts(desired, this.snapshot!.resources.virtualHost) : desired;
  }

  protected buildResponse(kind: ResourceKind): SentResponse | undefined {
    if (!this.hasWork(kind)) return undefined;
    const desired = this.desired(kind);
    const version = typeVersion(desired);
    const nonce = this.nextNonce();
    const resources = [...desired.values()];
    // An embedded route configuration is ACKed as the snapshot's resources it was made of.
    const parts = kind === 'routeConfiguration' ? resources.map((r) => embeddedParts(r)) : [];
    const acked = resources.map((r, i) => parts[i]?.routeConfiguration ?? r);
    const hosts = parts.flatMap((p) => p?.virtualHosts ?? []);
    const s = this.#s(kind);
    s.sentVersion = version;
    s.sentSubscription = this.#subscription(kind);
    s.lastNonce = nonce;
    this.write(
      encodeDiscoveryResponse({
        versionInfo: version,
        resources: resources.map((r) => r.any as { type_url: string; value: Uint8Array }),
        typeUrl: TypeUrl[kind],
        nonce,
      }),
    );
    const removed =
      kind === 'cluster' ? [...this.clientClusters].filter((n) => !desired.has(n)) : [];
    return {
      kind,
      nonce,
      version,
      resourceNames: acked.map((r) => r.name),
      resourceVersions: acked.map((r) => r.version),
      removedNames: removed,
      ...(hosts.length > 0
        ? { embedded: { kind: 'virtualHost' as const, resourceNames: hosts.map((r) => r.name), resourceVersions: hosts.map((r) => r.version) } }
        : {}),
    };
  }
}
