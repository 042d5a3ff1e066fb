// A delta ADS client that subscribes to everything and ACKs every response, recording what each one carried.
import { TypeUrl, resourceKinds, type ResourceKind } from '../proto/type-urls.js';
import { DeltaTestClient } from '../xds/testing/ads-test-client.js';
import type { DeltaDiscoveryResponse } from '../xds/discovery-messages.js';
import { kindOfTypeUrl } from '../proto/type-urls.js';

export interface ReceivedResponse {
  kind: ResourceKind;
  resources: number;
  removed: number;
  /** Bytes of the resources' encoded values (the payload; framing adds a few bytes per resource). */
  bytes: number;
  at: number;
}

export class DeltaObserver {
  readonly client: DeltaTestClient;
  readonly received: ReceivedResponse[] = [];
  #running = true;
  readonly #loop: Promise<void>;
  #listeners: (() => void)[] = [];

  constructor(xdsPort: number, names: Partial<Record<ResourceKind, string[]>>) {
    this.client = new DeltaTestClient(`127.0.0.1:${xdsPort}`, { 'grpc.max_receive_message_length': -1 });
    for (const kind of resourceKinds) {
      // Wildcard (no names) for the kinds Envoy subscribes to that way: clusters, listeners, VHDS.
      const subscribe = kind === 'cluster' || kind === 'listener' || kind === 'virtualHost' ? [] : (names[kind] ?? []);
      this.client.send({ typeUrl: TypeUrl[kind], resourceNamesSubscribe: subscribe, node: { id: `bench-${Math.random()}`, cluster: 'bench' } } as never);
    }
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let res: DeltaDiscoveryResponse;
      try {
        res = await this.client.next(1000);
      } catch {
        continue;
      }
      const kind = kindOfTypeUrl(res.typeUrl)!;
      let bytes = 0;
      for (const r of res.resources) bytes += r.resource.value.byteLength;
      this.received.push({ kind, resources: res.resources.length, removed: res.removedResources.length, bytes, at: performance.now() });
      this.client.ack(res);
      for (const l of this.#listeners.splice(0)) l();
    }
  }

  /** Waits until no response arrived for `quietMs`; returns what arrived since index `from`. */
  async settle(from: number, quietMs = 300, maxMs = 60_000): Promise<ReceivedResponse[]> {
    const deadline = performance.now() + maxMs;
    let count = -1;
    while (count !== this.received.length && performance.now() < deadline) {
      count = this.received.length;
      await new Promise((r) => setTimeout(r, quietMs));
    }
    return this.received.slice(from);
  }

  /** Resolves at the next response of `kind` (from now on). */
  nextOf(kind: ResourceKind, timeoutMs = 10_000): Promise<ReceivedResponse> {
    const from = this.received.length;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${kind} response within ${timeoutMs} ms`)), timeoutMs);
      const check = (): void => {
        const found = this.received.slice(from).find((r) => r.kind === kind);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else this.#listeners.push(check);
      };
      check();
    });
  }

  async close(): Promise<void> {
    this.#running = false;
    this.client.close();
    await this.#loop;
  }
}

/** Per type: responses, resources and bytes. */
export function totals(responses: readonly ReceivedResponse[]): Partial<Record<ResourceKind, { responses: number; resources: number; removed: number; bytes: number }>> {
  const out: Partial<Record<ResourceKind, { responses: number; resources: number; removed: number; bytes: number }>> = {};
  for (const r of responses) {
    const t = (out[r.kind] ??= { responses: 0, resources: 0, removed: 0, bytes: 0 });
    t.responses += 1;
    t.resources += r.resources;
    t.removed += r.removed;
    t.bytes += r.bytes;
  }
  return out;
}
