// gRPC echo backends and a gRPC client for end-to-end tests (@grpc/grpc-js, raw byte messages): every method of a
// service answers with the backend's name, the method and the request metadata (JSON); a call resolves to its
// status code, message and metadata (the headers and trailers, for a denial), never throws.
import * as grpc from '@grpc/grpc-js';

export const echoService = 'gateway_api_conformance.echo_basic.grpcecho.GrpcEcho';
const raw = { serialize: (b: Buffer): Buffer => b, deserialize: (b: Buffer): Buffer => b };

export interface GrpcBackend {
  port: number;
  calls: number;
  stop: () => void;
}

/** A gRPC server on 127.0.0.1 answering `methods` of `service` with its own name, the method and the metadata. */
export async function startGrpcBackend(name: string, methods: readonly string[], service = echoService): Promise<GrpcBackend> {
  const server = new grpc.Server();
  const backend = { port: 0, calls: 0, stop: () => server.forceShutdown() };
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of methods) {
    definition[method] = {
      path: `/${service}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: raw.serialize,
      requestDeserialize: raw.deserialize,
      responseSerialize: raw.serialize,
      responseDeserialize: raw.deserialize,
    };
    handlers[method] = (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      backend.calls += 1;
      callback(null, Buffer.from(JSON.stringify({ backend: name, method, metadata: call.metadata.getMap() })));
    };
  }
  server.addService(definition, handlers);
  backend.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return backend;
}

export interface GrpcAnswer {
  code: grpc.status;
  /** grpc-message of a failed call. */
  details?: string;
  backend?: string;
  /** What the backend saw (a call that reached it). */
  metadata?: Record<string, unknown>;
  /** The response headers (the initial metadata of an answered call; headers and trailers of a denial). */
  headers: Record<string, unknown>;
}

/** One unary call of `/<service>/<method>` to 127.0.0.1:`port` with `:authority` `host`. */
export function grpcCall(port: number, host: string, method: string, metadata: Record<string, string> = {}, service = echoService): Promise<GrpcAnswer> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.default_authority': host });
  const md = new grpc.Metadata();
  for (const [name, value] of Object.entries(metadata)) md.set(name, value);
  return new Promise((resolve) => {
    let headers: Record<string, unknown> = {};
    const call = client.makeUnaryRequest(`/${service}/${method}`, raw.serialize, raw.deserialize, Buffer.alloc(0), md, { deadline: Date.now() + 8_000 }, (err, value) => {
      client.close();
      if (err) resolve({ code: err.code, details: err.details, headers: { ...headers, ...err.metadata.getMap() } });
      else {
        const body = JSON.parse(String(value)) as { backend: string; metadata: Record<string, unknown> };
        resolve({ code: grpc.status.OK, backend: body.backend, metadata: body.metadata, headers });
      }
    });
    call.on('metadata', (m: grpc.Metadata) => {
      headers = m.getMap();
    });
  });
}
