// Scenario 5's gRPC load: N delta ADS clients in this process (a child of the benchmark, so their CPU is not
// counted as the controller's), each on its own connection, subscribed to everything and ACKing every response.
// Prints one JSON line per response on stdout; exits when stdin closes (the parent holds the other end).
//   node ads-load-clients-main.js --port P --clients N --names FILE
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { kindOfTypeUrl, resourceKinds, TypeUrl, type ResourceKind } from '../proto/type-urls.js';
import { DeltaTestClient } from '../xds/testing/ads-test-client.js';

/** What the parent reads, one line per response. */
export interface LoadClientResponse {
  client: number;
  kind: ResourceKind;
  resources: number;
}

const { values } = parseArgs({ options: { port: { type: 'string' }, clients: { type: 'string' }, names: { type: 'string' } }, strict: true });
const port = Number(values.port);
const count = Number(values.clients);
const names = JSON.parse(readFileSync(values.names ?? '', 'utf8')) as Partial<Record<ResourceKind, string[]>>;
const clients: DeltaTestClient[] = [];
let running = true;

async function serve(index: number): Promise<void> {
  // A local subchannel pool: every client its own HTTP/2 connection, as separate Envoys would have.
  const client = new DeltaTestClient(`127.0.0.1:${port}`, { 'grpc.max_receive_message_length': -1, 'grpc.use_local_subchannel_pool': 1 });
  clients.push(client);
  for (const kind of resourceKinds) {
    // Wildcard (no names) where Envoy subscribes that way: clusters, listeners, VHDS.
    const subscribe = kind === 'cluster' || kind === 'listener' || kind === 'virtualHost' ? [] : (names[kind] ?? []);
    client.send({ typeUrl: TypeUrl[kind], resourceNamesSubscribe: subscribe, node: { id: `load-${process.pid}-${index}`, cluster: 'bench' } } as never);
  }
  while (running) {
    let res;
    try {
      res = await client.next(1000);
    } catch {
      continue;
    }
    client.ack(res);
    const line: LoadClientResponse = { client: index, kind: kindOfTypeUrl(res.typeUrl)!, resources: res.resources.length };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

const stop = (): void => {
  running = false;
  for (const c of clients) c.close();
  setTimeout(() => process.exit(0), 100);
};
process.stdin.once('end', stop);
process.stdin.once('close', stop);
process.stdin.resume();
for (let i = 0; i < count; i++) void serve(i);
