// Decides when a build generation is really in Envoy: some connected Envoy has ACKed every resource of the
// snapshot that build produced, at the version the build produced. Only then may Ingress status claim the
// Ingress is served (publishing an address before Envoy routes the host would send users to a 404).
//
// Cost: per stream and kind a set of names still missing. A new build rescans only the kinds whose resource
// map changed (the cache keeps a map's identity while its content is unchanged); an ACK rechecks only the names
// still missing for its kind, and an ACK of a kind with nothing missing costs nothing.
import { EventEmitter } from 'node:events';
import { resourceKinds, type ResourceKind } from '../../proto/type-urls.js';
import type { AckEvent } from '../../xds/stream-session.js';
import type { Snapshot } from '../../xds/snapshot.js';
import type { GatewayApiStatus } from '../translate/gateway-api/status-data.js';
import type { ObjectRef } from '../translate/shared/kube-objects.js';

export interface AppliedEvent {
  generation: number;
  servedIngresses: readonly ObjectRef[];
  /** The Gateway API status data of that generation: its Gateways are now in Envoy (Programmed). */
  gatewayApiStatus?: GatewayApiStatus;
}

/** What the tracker needs from a reconciler build ('built' event). */
export interface BuildInfo {
  generation: number;
  servedIngresses: readonly ObjectRef[];
  gatewayApiStatus?: GatewayApiStatus;
}

type AckedMaps = Readonly<Record<ResourceKind, ReadonlyMap<string, string>>>;

/** What the tracker needs from the ADS server. */
export interface AckSource {
  clients(): readonly { streamId: number; acked: AckedMaps }[];
  on(event: 'ack', listener: (event: AckEvent) => void): unknown;
  on(event: 'disconnect', listener: (streamId: number) => void): unknown;
  off(event: 'ack', listener: (event: AckEvent) => void): unknown;
  off(event: 'disconnect', listener: (streamId: number) => void): unknown;
}

/** What the tracker needs from the reconciler. */
export interface BuildSource {
  on(event: 'built', listener: (build: BuildInfo) => void): unknown;
  off(event: 'built', listener: (build: BuildInfo) => void): unknown;
}

export interface AppliedTrackerStats {
  /** Resource version comparisons made so far (what "cheap" is measured in). */
  resourceChecks: number;
  /** Generations reported applied. */
  applied: number;
  /** Generations replaced by a newer one before they were applied. */
  superseded: number;
}

interface StreamProgress {
  acked: AckedMaps;
  /** Per kind, names of the tracked snapshot not (yet) ACKed at their version; undefined = not scanned yet. */
  missing: Partial<Record<ResourceKind, Set<string>>>;
}

export class AppliedTracker extends EventEmitter<{ applied: [AppliedEvent] }> {
  readonly stats: AppliedTrackerStats = { resourceChecks: 0, applied: 0, superseded: 0 };
  /** The snapshot the stream progress refers to (kept after a generation is applied, for reuse). */
  #snapshot: Snapshot | undefined;
  #pending: BuildInfo | undefined;
  readonly #streams = new Map<number, StreamProgress>();
  readonly #onBuilt = (build: BuildInfo): void => this.noteBuilt(build);
  readonly #onAck = (event: AckEvent): void => this.#ack(event);
  readonly #onDisconnect = (streamId: number): void => {
    this.#streams.delete(streamId);
  };

  constructor(
    private readonly cache: { readonly snapshot: Snapshot },
    private readonly ads: AckSource,
    private readonly builds?: BuildSource,
  ) {
    super();
    ads.on('ack', this.#onAck);
    ads.on('disconnect', this.#onDisconnect);
    builds?.on('built', this.#onBuilt);
  }

  /** The generation waiting to be applied, if any. */
  get pendingGeneration(): number | undefined {
    return this.#pending?.generation;
  }

  stop(): void {
    this.ads.off('ack', this.#onAck);
    this.ads.off('disconnect', this.#onDisconnect);
    this.builds?.off('built', this.#onBuilt);
  }

  /**
   * A build finished: track it against the cache's current snapshot (the reconciler updates the cache and
   * emits 'built' in the same tick). Replaces any older pending generation.
   */
  noteBuilt(build: BuildInfo): void {
    const snapshot = this.cache.snapshot;
    if (this.#pending && this.#pending.generation >= build.generation) return;
    if (this.#pending) this.stats.superseded += 1;
    const previous = this.#snapshot;
    this.#snapshot = snapshot;
    this.#pending = {
      generation: build.generation,
      servedIngresses: build.servedIngresses,
      ...(build.gatewayApiStatus === undefined ? {} : { gatewayApiStatus: build.gatewayApiStatus }),
    };
    for (const progress of this.#streams.values()) {
      for (const kind of resourceKinds) {
        // A kind whose map is the same object as before has the same content: its missing set can be kept,
        // rechecked because ACKs that arrived while nothing was pending were not looked at.
        const missing = progress.missing[kind];
        if (!missing) continue;
        if (!previous || previous.resources[kind] !== snapshot.resources[kind]) delete progress.missing[kind];
        else if (missing.size > 0) this.#recheck(progress, kind, missing);
      }
    }
    for (const client of this.ads.clients()) {
      const progress = this.#progressOf(client.streamId, client.acked);
      if (this.#complete(progress)) {
        this.#emitApplied();
        return;
      }
    }
  }

  #ack(event: AckEvent): void {
    if (!this.#pending) return;
    let progress = this.#streams.get(event.streamId);
    if (!progress) {
      const client = this.ads.clients().find((c) => c.streamId === event.streamId);
      if (!client) return;
      progress = this.#progressOf(client.streamId, client.acked);
    } else {
      const missing = progress.missing[event.kind];
      // Nothing of this kind was missing: this ACK cannot complete anything (and a scan is pending otherwise).
      if (missing && missing.size === 0) return;
      if (missing) this.#recheck(progress, event.kind, missing);
    }
    if (this.#complete(progress)) this.#emitApplied();
  }

  #progressOf(streamId: number, acked: AckedMaps): StreamProgress {
    let progress = this.#streams.get(streamId);
    if (!progress) {
      progress = { acked, missing: {} };
      this.#streams.set(streamId, progress);
    }
    return progress;
  }

  /** Scans the kinds not scanned yet against the tracked snapshot; true when nothing is missing. */
  #complete(progress: StreamProgress): boolean {
    const snapshot = this.#snapshot!;
    let complete = true;
    for (const kind of resourceKinds) {
      let missing = progress.missing[kind];
      if (!missing) {
        missing = new Set();
        const acked = progress.acked[kind];
        for (const [name, resource] of snapshot.resources[kind]) {
          this.stats.resourceChecks += 1;
          if (acked.get(name) !== resource.version) missing.add(name);
        }
        progress.missing[kind] = missing;
      }
      if (missing.size > 0) complete = false;
    }
    return complete;
  }

  #recheck(progress: StreamProgress, kind: ResourceKind, missing: Set<string>): void {
    const wanted = this.#snapshot!.resources[kind];
    const acked = progress.acked[kind];
    for (const name of missing) {
      this.stats.resourceChecks += 1;
      if (acked.get(name) === wanted.get(name)?.version) missing.delete(name);
    }
  }

  #emitApplied(): void {
    const pending = this.#pending!;
    this.#pending = undefined;
    this.stats.applied += 1;
    this.emit('applied', pending);
  }
}
