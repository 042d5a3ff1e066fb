// ingress-nginx parity for gRPC backends (test/e2e/annotations/grpc.go), with a real gRPC client and server
// (@grpc/grpc-js) through the real controller (--nginx-annotations) and a real Envoy. The parity tables
// (test/nginx-parity/*.yaml) send HTTP/1.1 requests only, hence this file. The Go tests call grpcbin's
// HeadersUnary / Unary, which answer the request metadata the backend received; the server here does the same for
// one unary method (raw bytes, no .proto needed), and waits `x-delay-ms` before answering when asked.
import { createHash } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import * as grpc from '@grpc/grpc-js';
import { runMigrate } from '../cli/migrate-command.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { grpcCall } from './harness/grpc-echo.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type IssuedCertificate, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingressClass } from './fixtures/manifests.js';
import { serviceWithLoopbackSlice } from './fixtures/semantics-cases.js';
import { freePort, startStack, type Stack } from './fixtures/standalone-stack.js';
import { writeManifest } from './fixtures/table-requests.js';

const method = '/grpcbin.GRPCBin/HeadersUnary';
const raw = { serialize: (b: Buffer): Buffer => b, deserialize: (b: Buffer): Buffer => b };
const definition: grpc.ServiceDefinition = {
  HeadersUnary: { path: method, requestStream: false, responseStream: false, requestSerialize: raw.serialize, requestDeserialize: raw.deserialize, responseSerialize: raw.serialize, responseDeserialize: raw.deserialize },
};

/** A gRPC server on 127.0.0.1 answering the request metadata (plus :authority) as JSON; TLS when `tls` is given. */
async function startGrpcBackend(tls?: IssuedCertificate): Promise<{ port: number; stop: () => void }> {
  const server = new grpc.Server();
  server.addService(definition, {
    HeadersUnary: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const headers: Record<string, string> = { ':authority': call.getHost() };
      for (const [name, value] of Object.entries(call.metadata.getMap())) headers[name] = String(value);
      const delay = Number(headers['x-delay-ms'] ?? 0);
      setTimeout(() => callback(null, Buffer.from(JSON.stringify(headers))), delay);
    },
  });
  const credentials = tls === undefined ? grpc.ServerCredentials.createInsecure() : grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(tls.keyPem), cert_chain: Buffer.from(tls.certPem) }]);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', credentials, (err, p) => (err ? reject(err) : resolve(p))));
  return { port, stop: () => server.forceShutdown() };
}

interface Answer {
  code: grpc.status;
  headers?: Record<string, string>;
}

/** One HeadersUnary call through Envoy: plaintext to the HTTP listener, or TLS (SNI `host`) to the HTTPS one. */
function call(stack: Stack, host: string, opts: { tls?: TestCA; metadata?: Record<string, string> } = {}): Promise<Answer> {
  const target = `127.0.0.1:${opts.tls === undefined ? stack.httpPort : stack.httpsPort}`;
  const credentials = opts.tls === undefined ? grpc.credentials.createInsecure() : grpc.credentials.createSsl(Buffer.from(opts.tls.certPem));
  const client = new grpc.Client(target, credentials, { 'grpc.default_authority': host, 'grpc.ssl_target_name_override': host });
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(opts.metadata ?? {})) metadata.set(name, value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(method, raw.serialize, raw.deserialize, Buffer.alloc(0), metadata, { deadline: Date.now() + 8_000 }, (err, value) => {
      client.close();
      if (err) resolve({ code: err.code });
      else resolve({ code: grpc.status.OK, headers: JSON.parse(String(value)) as Record<string, string> });
    });
  });
}

function grpcIngress(name: string, host: string, service: string, annotations: Record<string, string>, tls = false): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`nginx.ingress.kubernetes.io/${k}`, v])) },
    spec: {
      ingressClassName: 'nginx',
      ...(tls ? { tls: [{ hosts: [host], secretName: name }] } : {}),
      rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 9000 } } } }] } }],
    },
  };
}

/** The Go test's objects (gRPC backends plain and TLS, four Ingresses) in a temporary manifests directory. */
async function grpcFixture(t: ExecutionContext): Promise<{ dir: string; ca: TestCA }> {
  const tmp = await createTempDir('nginx-grpc-');
  t.teardown(() => tmp.remove());
  const ca = await createTestCA();
  const plain = await startGrpcBackend();
  const backendCert = await ca.issue({ dnsNames: ['grpcbin-tls'] });
  const secure = await startGrpcBackend(backendCert);
  t.teardown(() => { plain.stop(); secure.stop(); });
  const frontCert = await ca.issue({ dnsNames: ['grpcbin-test.foo.com'] });
  const ports = [{ name: 'grpc', port: 9000, targetPort: 'grpc' }];
  await writeManifest(tmp.path, 'backends.yaml', [
    ingressClass('nginx', true),
    ...serviceWithLoopbackSlice({ name: 'grpcbin', ports }, [plain.port]),
    ...serviceWithLoopbackSlice({ name: 'grpcbin-tls', ports }, [secure.port]),
  ]);
  await writeManifest(tmp.path, 'objects.yaml', [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'grpc', namespace: 'default' }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': frontCert.certPem, 'tls.key': frontCert.keyPem } },
    grpcIngress('grpc', 'grpcbin-test.foo.com', 'grpcbin', { 'backend-protocol': 'GRPC' }, true),
    grpcIngress('grpcs', 'grpcs.foo.com', 'grpcbin-tls', { 'backend-protocol': 'GRPCS' }),
    grpcIngress('grpc-timeout', 'grpc-timeout.foo.com', 'grpcbin', { 'backend-protocol': 'GRPC', 'proxy-connect-timeout': '10', 'proxy-send-timeout': '10', 'proxy-read-timeout': '10' }),
    grpcIngress('grpc-timeout-short', 'grpc-timeout-short.foo.com', 'grpcbin', { 'backend-protocol': 'GRPC', 'proxy-connect-timeout': '1', 'proxy-send-timeout': '1', 'proxy-read-timeout': '1' }),
  ]);
  return { dir: tmp.path, ca };
}

test('grpc.go: backend-protocol GRPC and GRPCS reach a gRPC backend over HTTP/2; proxy-*-timeout bound the wait for its answer', async (t) => {
  t.timeout(120_000);
  const { dir, ca } = await grpcFixture(t);
  const stack = await startStack(t, { manifestsDir: dir, httpsRedirectPort: 443, translate: { nginxAnnotations: true } });
  await stack.envoy.waitForListener('ingress_https');

  // "should return OK for service with backend protocol GRPC": over TLS to the Ingress's host, as the Go test.
  let grpcAnswer: Answer = { code: grpc.status.UNKNOWN };
  await waitFor(async () => (grpcAnswer = await call(stack, 'grpcbin-test.foo.com', { tls: ca })).code === grpc.status.OK, { timeoutMs: 20_000, intervalMs: 200, description: 'GRPC route' }).catch(() => undefined);
  t.is(grpcAnswer.code, grpc.status.OK, 'GRPC: the call succeeds');
  // The Go test also reads content-type application/grpc: grpc-js's server answers any other with 415, so a
  // successful call shows it (grpc-js keeps content-type out of the metadata it hands the method).
  t.is(grpcAnswer.headers?.[':authority'], 'grpcbin-test.foo.com', 'the backend gets the client\'s :authority');

  // "should return OK for service with backend protocol GRPCS": HTTP/2 over TLS to the backend (not verified, as
  // ingress-nginx does not verify it without proxy-ssl-verify).
  const grpcsAnswer = await call(stack, 'grpcs.foo.com');
  t.is(grpcsAnswer.code, grpc.status.OK, 'GRPCS: the call succeeds');
  t.is(grpcsAnswer.headers?.[':authority'], 'grpcs.foo.com');

  // "should return OK when request not exceed timeout": timeouts of 10 s, an immediate answer.
  const inTime = await call(stack, 'grpc-timeout.foo.com');
  t.is(inTime.code, grpc.status.OK, 'an answer within the timeouts arrives');
  t.is(inTime.headers?.[':authority'], 'grpc-timeout.foo.com');

  // "should return Error when request exceed timeout": the Go test waits 15 s against 10 s timeouts; here 2.5 s
  // against 1 s (the same relation, a shorter test).
  const late = await call(stack, 'grpc-timeout-short.foo.com', { metadata: { 'x-delay-ms': '2500' } });
  t.not(late.code, grpc.status.OK, 'an answer later than the read timeout is an error');
  const slowButAllowed = await call(stack, 'grpc-timeout.foo.com', { metadata: { 'x-delay-ms': '2500' } });
  t.is(slowButAllowed.code, grpc.status.OK, 'the same delay within 10 s timeouts is served (the error above is the timeout)');
});

// `envoy-ingress migrate` on the same objects: backend-protocol GRPC becomes a GRPCRoute (an HTTPRoute would speak
// HTTP/1.1 to the backend: the call fails), served by the Gateway's listeners through the real Envoy.
test('migrate: backend-protocol GRPC becomes a GRPCRoute whose calls reach the gRPC backend, plaintext and TLS; GRPCS is reported', async (t) => {
  t.timeout(120_000);
  const { dir, ca } = await grpcFixture(t);
  const out = await createTempDir('nginx-grpc-migrated-');
  t.teardown(() => out.remove());
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const { report } = await runMigrate({
    manifests: dir,
    out: out.path,
    httpPort,
    httpsPort,
    httpsRedirectPort: 443,
    classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
  });
  const paths = new Map(report.ingresses.map((i) => [i.name, i.paths[0]]));
  t.is(paths.get('grpc')?.route, 'default/grpc-grpc', 'the GRPC path is a GRPCRoute rule');
  // (The TLS host's https redirect is reported apart: https-redirect-trailing-slash.)
  t.deepEqual(paths.get('grpc')?.differences.map((d) => d.id), ['https-redirect-trailing-slash'], 'nothing of backend-protocol GRPC is reported');
  t.is(paths.get('grpc-timeout')?.differences.some((d) => d.id === 'backend-protocol'), false);
  t.true(paths.get('grpcs')?.differences.some((d) => d.id === 'backend-protocol'), 'GRPCS: TLS to the backend is reported');
  const after = await startStack(t, { manifestsDir: out.path, httpsRedirectPort: 443, translate: { nginxAnnotations: true } });
  await after.envoy.waitForListener(`gateway/http/${httpPort}`);
  const gateway: Stack = { ...after, httpPort, httpsPort };
  let tlsAnswer: Answer = { code: grpc.status.UNKNOWN };
  await waitFor(async () => (tlsAnswer = await call(gateway, 'grpcbin-test.foo.com', { tls: ca })).code === grpc.status.OK, { timeoutMs: 20_000, intervalMs: 200, description: 'GRPCRoute over TLS' }).catch(() => undefined);
  t.is(tlsAnswer.code, grpc.status.OK, 'GRPC over the HTTPS listener: the call succeeds');
  t.is(tlsAnswer.headers?.[':authority'], 'grpcbin-test.foo.com');
  const plainAnswer = await call(gateway, 'grpc-timeout.foo.com');
  t.is(plainAnswer.code, grpc.status.OK, 'GRPC over the HTTP listener: the call succeeds');
  t.is(plainAnswer.headers?.[':authority'], 'grpc-timeout.foo.com');
});

// `migrate` of gRPC Ingresses with source ranges, basic auth and cookie affinity: a GRPCRoute the RoutePolicy
// targets. Each call is made to the Ingress (the Ingress translator) and to the migrated objects (the Gateway API
// translator), both through a real Envoy with a real gRPC client; the answers a gRPC client sees (status code, the
// challenge, the affinity cookie's attributes) must be the same wherever the report says `same`.
test('migrate: backend-protocol GRPC with source ranges, basic auth and affinity becomes a GRPCRoute with the RoutePolicy; gRPC clients get the same answers as from the Ingress', async (t) => {
  t.timeout(120_000);
  const tmp = await createTempDir('nginx-grpc-policy-');
  t.teardown(() => tmp.remove());
  const backend = await startGrpcBackend();
  t.teardown(() => backend.stop());
  const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
  const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  await writeManifest(tmp.path, 'backends.yaml', [ingressClass('nginx', true), ...serviceWithLoopbackSlice({ name: 'grpcbin', ports: [{ name: 'grpc', port: 9000, targetPort: 'grpc' }] }, [backend.port])]);
  const grpcAnnotations = { 'backend-protocol': 'GRPC', 'ssl-redirect': 'false' };
  await writeManifest(tmp.path, 'objects.yaml', [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'grpc-users', namespace: 'default' }, type: 'Opaque', stringData: { auth: `alice:${sha('wonderland')}\n` } },
    grpcIngress('grpc-office', 'grpc-office.foo.com', 'grpcbin', { ...grpcAnnotations, 'whitelist-source-range': '10.0.0.0/8' }),
    grpcIngress('grpc-loopback', 'grpc-loopback.foo.com', 'grpcbin', { ...grpcAnnotations, 'whitelist-source-range': '127.0.0.1/32', 'denylist-source-range': '10.9.0.0/16' }),
    grpcIngress('grpc-denied', 'grpc-denied.foo.com', 'grpcbin', { ...grpcAnnotations, 'denylist-source-range': '127.0.0.0/8' }),
    grpcIngress('grpc-auth', 'grpc-auth.foo.com', 'grpcbin', { ...grpcAnnotations, 'auth-type': 'basic', 'auth-secret': 'grpc-users', 'auth-realm': 'gRPC area' }),
    grpcIngress('grpc-sticky', 'grpc-sticky.foo.com', 'grpcbin', { ...grpcAnnotations, affinity: 'cookie', 'session-cookie-name': 'route', 'session-cookie-max-age': '600' }),
  ]);
  const out = await createTempDir('nginx-grpc-policy-migrated-');
  t.teardown(() => out.remove());
  const httpPort = await freePort();
  const { report } = await runMigrate({
    manifests: tmp.path,
    out: out.path,
    httpPort,
    httpsPort: await freePort(),
    httpsRedirectPort: 443,
    classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
  });
  for (const ingress of report.ingresses) {
    const [reported] = ingress.paths;
    t.is(reported?.route, `default/${ingress.name}-grpc`, `${ingress.name}: a GRPCRoute rule`);
    t.is(reported?.policy, `default/${ingress.name}-policy`, `${ingress.name}: the RoutePolicy targets it`);
    t.deepEqual(reported?.differences.map((d) => d.id), [], `${ingress.name}: nothing reported`);
  }

  const before = await startStack(t, { manifestsDir: tmp.path, translate: { nginxAnnotations: true } });
  await before.envoy.waitForListener('ingress_http');
  const after = await startStack(t, { manifestsDir: out.path, translate: { nginxAnnotations: true } });
  await after.envoy.waitForListener(`gateway/http/${httpPort}`);
  /** What a gRPC client sees of one call: its code, the challenge, and the affinity cookie without its value. */
  const seen = async (port: number, host: string, metadata: Record<string, string>): Promise<string> => {
    const answer = await grpcCall(port, host, 'HeadersUnary', metadata, 'grpcbin.GRPCBin');
    const cookie = answer.headers['set-cookie'];
    return JSON.stringify({ code: grpc.status[answer.code], challenge: answer.headers['www-authenticate'], cookie: cookie === undefined ? undefined : String(cookie).replace(/^([^=]+)=[^;]*/, '$1=…') });
  };
  await waitFor(async () => (await grpcCall(httpPort, 'grpc-loopback.foo.com', 'HeadersUnary', {}, 'grpcbin.GRPCBin')).code === grpc.status.OK, { description: 'the migrated routes are served' });
  await waitFor(async () => (await grpcCall(before.httpPort, 'grpc-loopback.foo.com', 'HeadersUnary', {}, 'grpcbin.GRPCBin')).code === grpc.status.OK, { description: 'the Ingresses are served' });
  const rows: [string, Record<string, string>][] = [
    ['grpc-office.foo.com', {}],
    ['grpc-loopback.foo.com', {}],
    ['grpc-denied.foo.com', {}],
    ['grpc-auth.foo.com', {}],
    ['grpc-auth.foo.com', { authorization: basic('alice', 'wrong') }],
    ['grpc-auth.foo.com', { authorization: basic('alice', 'wonderland') }],
    ['grpc-sticky.foo.com', {}],
  ];
  const codes = new Set<string>();
  for (const [host, metadata] of rows) {
    const ingressAnswer = await seen(before.httpPort, host, metadata);
    codes.add(String(JSON.parse(ingressAnswer).code));
    t.is(await seen(httpPort, host, metadata), ingressAnswer, `${host} ${JSON.stringify(metadata)}`);
  }
  // The rows are not all alike: denials and admissions are both compared.
  t.deepEqual([...codes].sort(), ['OK', 'PERMISSION_DENIED', 'UNAUTHENTICATED']);
});
