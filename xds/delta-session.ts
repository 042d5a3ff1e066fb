// Incremental (delta) ADS: only changed resources are sent, removals are named in removed_resources.
import { kindOfTypeUrl, routeConfigurationOf, TypeUrl, type ResourceKind } from '../proto/type-urls.js';
import { encodeDeltaDiscoveryResponse, type DeltaDiscoveryRequest } from './discovery-messages.js';
import type { XdsResource } from './resource.js';
import { changedNamesBetween } from './snapshot.js';
import { isWildcardKind, StreamSession, xdsSelfCheck, type SentResponse, type SessionHooks } from './stream-session.js';

interface DeltaKindState {
  /** What Envoy has: name -> version (from initial_resource_versions and ACKed responses). */
  known: Map<string, string>;
  /** Versions Envoy rejected: never resent until the resource changes. */
  rejected: Map<string, string>;
  /** Subscribed names we already told Envoy do not exist. */
  toldMissing: Set<string>;
}

/**
 * What a stream lacks of one kind, kept up to date instead of recomputed: `basis` is the desired map it was last
 * brought up to date with; names whose known/rejected/toldMissing/subscription state changed since wait in
 * `dirty`. A name is in at most one of updated, removed and missing.
 */
interface PendingChanges {
  basis: ReadonlyMap<string, XdsResource>;
  updated: Map<string, XdsResource>;
  removed: Set<string>;
  missing: Set<string>;
  dirty: Set<string>;
}

interface Changes {
  updated: XdsResource[];
  removed: string[];
  missing: string[];
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
      this.#pending.delete(kind);
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
      if (isWildcardKind(kind) && req.resourceNamesSubscribe.length === 0) {
        st.wildcard = true;
        st.subscription += 1;
      }
      // A starting Envoy waits for a first answer (its initial fetch) even when there is nothing: an empty set of
      // clusters or virtual hosts is an answer too, else it sits out initial_fetch_timeout. (One that reconnects
      // with what it has is not waiting: it gets only differences.)
      if (st.wildcard && d.known.size === 0) this.#answerOwed.add(kind);
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
      // Only the names answered for changed state: they alone are re-examined.
      this.#stale(kind, response.resourceNames);
      this.#stale(kind, response.removedNames);
    }
    for (const name of req.resourceNamesSubscribe) {
      st.subscription += 1;
      if (name === '*') {
        st.wildcard = true;
        this.#pending.delete(kind);
      } else {
        st.names.add(name);
        d.toldMissing.delete(name);
        this.#stale(kind, [name]);
        // A new VHDS namespace (route configuration) is answered even with no virtual hosts: Envoy's route
        // configuration waits for that first answer before it is used.
        if (kind === 'virtualHost') this.#answerOwed.add(kind);
      }
    }
    for (const name of req.resourceNamesUnsubscribe) {
      st.subscription += 1;
      if (name === '*') {
        st.wildcard = false;
        this.#pending.delete(kind);
      } else {
        st.names.delete(name);
        d.toldMissing.delete(name);
        if (!st.wildcard) {
          // Envoy drops what it unsubscribes from (for VHDS: a route configuration's whole namespace).
          d.known.delete(name);
          if (kind === 'virtualHost') {
            const dropped = [...d.known.keys()].filter((n) => routeConfigurationOf(n) === name);
            for (const n of dropped) d.known.delete(n);
            this.#stale(kind, dropped);
          }
        }
        this.#stale(kind, [name]);
      }
    }
    this.epoch += 1;
    this.pump();
  }

  readonly #pending = new Map<ResourceKind, PendingChanges>();
  /** Kinds that get a response at the next opportunity even if it carries no change (see handleRequest). */
  readonly #answerOwed = new Set<ResourceKind>();
  /** The last filtered VHDS answer of desired(), while some route configuration is not sent yet. */
  #virtualHostsMemo: { desired: ReadonlyMap<string, XdsResource>; tables: string; out: ReadonlyMap<string, XdsResource> } | undefined;

  /**
   * Over a wildcard VHDS subscription, a virtual host goes out only once its route configuration has been sent
   * on this stream. Envoy watches a VHDS namespace from when it has the route configuration: virtual hosts that
   * arrive before are ACKed but dropped, and nothing asks for them again (one wildcard subscription serves every
   * table). Seen with a real Envoy when the first TLS host appears: 'https' is subscribed only once its listener
   * arrives, so its virtual hosts went out first, and the table sat out initial_fetch_timeout, then served 404.
   * The stream is ordered: sent behind the table (RDS comes first in the same pump), they reach its watch.
   */
  protected override desired(kind: ResourceKind): ReadonlyMap<string, XdsResource> {
    const desired = super.desired(kind);
    // A subscription by namespace names the tables Envoy watches; the wildcard one does not.
    if (kind !== 'virtualHost' || !this.state(kind).wildcard) return desired;
    const known = this.#d('routeConfiguration').known;
    const pendingNonce = this.state('routeConfiguration').pendingNonce;
    const inFlight = (pendingNonce === undefined ? undefined : this.inFlight.get(pendingNonce))?.resourceNames ?? [];
    const sent = (table: string): boolean => known.has(table) || inFlight.includes(table);
    let everyTable = true;
    for (const table of this.snapshot!.resources.routeConfiguration.keys()) {
      if (!sent(table)) {
        everyTable = false;
        break;
      }
    }
    // The usual case: the map itself (its lineage keeps finding changes incremental).
    if (everyTable) return desired;
    const tables = [...new Set([...known.keys(), ...inFlight])].sort().join('\n');
    const memo = this.#virtualHostsMemo;
    if (memo !== undefined && memo.desired === desired && memo.tables === tables) return memo.out;
    const out = new Map<string, XdsResource>();
    for (const [name, resource] of desired) if (sent(routeConfigurationOf(name))) out.set(name, resource);
    this.#virtualHostsMemo = { desired, tables, out };
    return out;
  }

  /** These names' known/rejected/toldMissing/subscription state changed: re-examine them next time. */
  #stale(kind: ResourceKind, names: Iterable<string>): void {
    const pending = this.#pending.get(kind);
    if (pending) for (const n of names) pending.dirty.add(n);
  }

  /**
   * What this stream lacks of a kind. Brought up to date incrementally: only the names changed in the snapshot
   * since the last time (see changedNamesBetween) and the dirty ones are re-examined; when the desired map is not
   * known to derive from the last one (a new subscription, retained clusters), everything is walked again.
   */
  #changes(kind: ResourceKind): PendingChanges {
    const desired = this.desired(kind);
    let pending = this.#pending.get(kind);
    if (pending && pending.basis !== desired) {
      const changed = changedNamesBetween(pending.basis, desired);
      if (changed === undefined) pending = undefined;
      else for (const n of changed) pending.dirty.add(n);
    }
    if (!pending) {
      pending = this.#computeChanges(kind, desired);
      this.#pending.set(kind, pending);
    } else {
      pending.basis = desired;
      for (const n of pending.dirty) this.#examine(kind, pending, n);
      pending.dirty.clear();
    }
    if (xdsSelfCheck.enabled) this.#check(kind, pending);
    return pending;
  }

  /** Puts one name where it belongs now (in updated, removed, missing, or nowhere). */
  #examine(kind: ResourceKind, pending: PendingChanges, name: string): void {
    const d = this.#d(kind);
    pending.updated.delete(name);
    pending.removed.delete(name);
    pending.missing.delete(name);
    const r = pending.basis.get(name);
    if (r !== undefined) {
      if (d.known.get(name) !== r.version && d.rejected.get(name) !== r.version) pending.updated.set(name, r);
    } else if (d.known.has(name)) pending.removed.add(name);
    else if (reportsMissing(kind) && this.state(kind).names.has(name) && !d.toldMissing.has(name)) pending.missing.add(name);
  }

  #computeChanges(kind: ResourceKind, desired: ReadonlyMap<string, XdsResource>): PendingChanges {
    const d = this.#d(kind);
    const st = this.state(kind);
    const updated = new Map<string, XdsResource>();
    for (const r of desired.values()) {
      if (d.known.get(r.name) === r.version) continue;
      if (d.rejected.get(r.name) === r.version) continue;
      updated.set(r.name, r);
    }
    const removed = new Set<string>();
    for (const name of d.known.keys()) if (!desired.has(name)) removed.add(name);
    const missing = new Set<string>();
    if (reportsMissing(kind)) {
      for (const name of st.names) {
        if (!desired.has(name) && !d.known.has(name) && !d.toldMissing.has(name)) missing.add(name);
      }
    }
    return { basis: desired, updated, removed, missing, dirty: new Set() };
  }

  #check(kind: ResourceKind, pending: PendingChanges): void {
    const fresh = this.#computeChanges(kind, pending.basis);
    const same =
      fresh.updated.size === pending.updated.size &&
      [...fresh.updated].every(([n, r]) => pending.updated.get(n) === r) &&
      sameSet(fresh.removed, pending.removed) &&
      sameSet(fresh.missing, pending.missing);
    if (!same) {
      const show = (p: PendingChanges) => `updated [${[...p.updated.keys()]}] removed [${[...p.removed]}] missing [${[...p.missing]}]`;
      xdsSelfCheck.fail(`stream ${this.id} ${kind}: incremental ${show(pending)} != recomputed ${show(fresh)}`);
    }
  }

  protected hasWork(kind: ResourceKind): boolean {
    const st = this.state(kind);
    if (!st.requested || !this.snapshot) return false;
    if (this.#answerOwed.has(kind)) return true;
    const { updated, removed, missing } = this.#changes(kind);
    return updated.size + removed.size + missing.size > 0;
  }

  /** The changes to send, in name order (the same response whatever order they were found in). */
  #sorted(pending: PendingChanges): Changes {
    return {
      updated: [...pending.updated.values()].sort((a, b) => byName(a.name, b.name)),
      removed: [...pending.removed].sort(byName),
      missing: [...pending.missing].sort(byName),
    };
  }

  protected buildResponse(kind: ResourceKind): SentResponse | undefined {
    if (!this.snapshot) return undefined;
    const pending = this.#changes(kind);
    const owed = this.#answerOwed.delete(kind);
    if (pending.updated.size + pending.removed.size + pending.missing.size === 0 && !owed) return undefined;
    const { updated, removed, missing } = this.#sorted(pending);
    const d = this.#d(kind);
    // A removed name Envoy still subscribes to is now known not to exist: not to be reported missing once more.
    for (const name of [...removed, ...missing]) d.toldMissing.add(name);
    this.#stale(kind, missing);
    this.#stale(kind, removed);
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
      this.#stale(
        'clusterLoadAssignment',
        updated.map((r) => r.name),
      );
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

/**
 * Whether a subscribed name that does not exist is answered with a removal. Not for VHDS: its subscriptions name
 * route configurations (namespaces of virtual hosts), never resources of their own. Not for ECDS: Envoy 1.40 takes
 * the removal of a filter configuration it never had as the answer to its initial fetch without marking it ready,
 * so the listener naming it stays warming for good; unanswered, the fetch times out (initial_fetch_timeout) and the
 * listener serves, the routes that turn the filter on answering 500 (test/ecds-filters-e2e). The builders never
 * name one the snapshot lacks; this is for a controller that does.
 */
function reportsMissing(kind: ResourceKind): boolean {
  return kind !== 'virtualHost' && kind !== 'extensionConfig';
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
