// A minimal ADS client for protocol tests: sends requests, queues decoded responses in arrival order.
import * as grpc from '@grpc/grpc-js';
import { decodeAnyToJson } from '../../proto/proto-json.js';
import {
  decodeDeltaDiscoveryResponse,
  decodeDiscoveryResponse,
  encodeDeltaDiscoveryRequest,
  encodeDiscoveryRequest,
  type DeltaDiscoveryRequest,
  type DeltaDiscoveryResponse,
  type DiscoveryRequest,
  type DiscoveryResponse,
} from '../discovery-messages.js';

const servicePath = '/envoy.service.discovery.v3.AggregatedDiscoveryService';

class Queue<T> {
  readonly #items: T[] = [];
  readonly #waiters: ((item: T) => void)[] = [];
  push(item: T): void {
    const w = this.#waiters.shift();
    if (w) w(item);
    else this.#items.push(item);
  }
  next(timeoutMs: number, what: string): Promise<T> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter = (x: T): void => {
        clearTimeout(timer);
        resolve(x);
      };
      this.#waiters.push(waiter);
    });
  }
  get size(): number {
    return this.#items.length;
  }
}

export class SotwTestClient {
  readonly #client: grpc.Client;
  readonly #call: grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;
  readonly #responses = new Queue<DiscoveryResponse>();

  constructor(address: string) {
    this.#client = new grpc.Client(address, grpc.credentials.createInsecure());
    this.#call = this.#client.makeBidiStreamRequest(
      `${servicePath}/StreamAggregatedResources`,
      (r: DiscoveryRequest) => Buffer.from(encodeDiscoveryRequest(r)),
      (b: Buffer) => decodeDiscoveryResponse(b),
    );
    this.#call.on('data', (r: DiscoveryResponse) => this.#responses.push(r));
    this.#call.on('error', () => undefined);
  }

  send(req: Partial<DiscoveryRequest> & { typeUrl: string }): void {
    this.#call.write({ versionInfo: '', resourceNames: [], responseNonce: '', ...req });
  }

  next(timeoutMs = 5000): Promise<DiscoveryResponse> {
    return this.#responses.next(timeoutMs, 'a DiscoveryResponse');
  }

  get queued(): number {
    return this.#responses.size;
  }

  /** ACK a response (echo its version and nonce) with the given subscription. */
  ack(res: DiscoveryResponse, resourceNames: string[] = []): void {
    this.send({ typeUrl: res.typeUrl, versionInfo: res.versionInfo, responseNonce: res.nonce, resourceNames });
  }

  close(): void {
    this.#call.end();
    this.#client.close();
  }
}

export class DeltaTestClient {
  readonly #client: grpc.Client;
  readonly #call: grpc.ClientDuplexStream<DeltaDiscoveryRequest, DeltaDiscoveryResponse>;
  readonly #responses = new Queue<DeltaDiscoveryResponse>();

  /** `options`: gRPC channel options, e.g. a receive limit above 4 MiB for large route tables. */
  constructor(address: string, options: grpc.ChannelOptions = {}) {
    this.#client = new grpc.Client(address, grpc.credentials.createInsecure(), options);
    this.#call = this.#client.makeBidiStreamRequest(
      `${servicePath}/DeltaAggregatedResources`,
      (r: DeltaDiscoveryRequest) => Buffer.from(encodeDeltaDiscoveryRequest(r)),
      (b: Buffer) => decodeDeltaDiscoveryResponse(b),
    );
    this.#call.on('data', (r: DeltaDiscoveryResponse) => this.#responses.push(r));
    this.#call.on('error', () => undefined);
  }

  send(req: Partial<DeltaDiscoveryRequest> & { typeUrl: string }): void {
    this.#call.write({
      resourceNamesSubscribe: [],
      resourceNamesUnsubscribe: [],
      initialResourceVersions: {},
      responseNonce: '',
      ...req,
    });
  }

  next(timeoutMs = 5000): Promise<DeltaDiscoveryResponse> {
    return this.#responses.next(timeoutMs, 'a DeltaDiscoveryResponse');
  }

  ack(res: DeltaDiscoveryResponse): void {
    this.send({ typeUrl: res.typeUrl, responseNonce: res.nonce });
  }

  close(): void {
    this.#call.end();
    this.#client.close();
  }
}

/** Names of the resources in a response, decoded. */
export function resourceNames(res: DiscoveryResponse): string[] {
  return res.resources.map((r) => {
    const json = decodeAnyToJson(r.type_url, r.value);
    return String(json['name'] ?? json['cluster_name']);
  });
}
