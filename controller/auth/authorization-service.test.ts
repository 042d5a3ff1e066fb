import { HtpasswdUsers } from '../../ir/index.js';
import { createHash } from 'node:crypto';
import test from 'ava';
import { messageType } from '../../proto/envoy-api.js';
import { BasicAuthService } from './authorization-service.js';
import { BasicAuthUsers } from './basic-auth-users.js';

const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`;

function service(options = {}): BasicAuthService {
  const users = new BasicAuthUsers();
  users.update([{ id: 'default/s/auth-file', users: new HtpasswdUsers(`alice:${sha('wonderland')}\n`) }]);
  return new BasicAuthService(users, options);
}

/** A CheckRequest as Envoy sends it, through the real proto encoding. */
function checkRequest(usersId: string, authorization?: string): object {
  const type = messageType('envoy.service.auth.v3.CheckRequest');
  const bytes = type
    .encode(
      type.fromObject({
        attributes: {
          context_extensions: { 'basic-auth-users': usersId, 'basic-auth-realm': 'test auth' },
          request: { http: { method: 'GET', path: '/', headers: authorization === undefined ? {} : { authorization } } },
        },
      }),
    )
    .finish();
  return type.decode(bytes);
}

function decode(bytes: Buffer): Record<string, unknown> {
  const type = messageType('envoy.service.auth.v3.CheckResponse');
  return type.toObject(type.decode(bytes), { defaults: false }) as Record<string, unknown>;
}

test('allowed: OK, and the Authorization header is removed before the request goes upstream', async (t) => {
  const answer = decode(await service().check(checkRequest('default/s/auth-file', basic('alice:wonderland'))));
  t.deepEqual(answer, { status: { code: 0 }, ok_response: { headers_to_remove: ['authorization'] } });
});

test('denied: 401 with the realm in the Basic challenge and nginx\'s page', async (t) => {
  const answer = decode(await service().check(checkRequest('default/s/auth-file', basic('alice:nope'))));
  t.like(answer, { status: { code: 16 }, denied_response: { status: { code: 401 } } });
  const denied = answer['denied_response'] as { headers: { header: { key: string; value: string } }[]; body: string };
  t.deepEqual(denied.headers.map((h) => [h.header.key, h.header.value]), [['www-authenticate', 'Basic realm="test auth"'], ['content-type', 'text/html']]);
  t.regex(denied.body, /401 Authorization Required/);
});

test('satisfy: any: right credentials say so in dynamic metadata (auth-url is skipped); wrong ones are left to auth-url', async (t) => {
  const request = (authorization: string): object => {
    const type = messageType('envoy.service.auth.v3.CheckRequest');
    const message = type.fromObject({
      attributes: {
        context_extensions: { 'basic-auth-users': 'default/s/auth-file', 'basic-auth-realm': 'R', 'basic-auth-satisfy-any': 'true' },
        request: { http: { headers: { authorization } } },
      },
    });
    return type.decode(type.encode(message).finish());
  };
  const right = decode(await service().check(request(basic('alice:wonderland'))));
  t.deepEqual(right['dynamic_metadata'], { fields: { 'envoy-ingress-basic-auth': { stringValue: 'allowed' } } });
  t.deepEqual(right['ok_response'], { headers_to_remove: ['authorization'] });
  const wrong = decode(await service().check(request(basic('alice:nope'))));
  t.deepEqual(wrong, { status: { code: 0 }, ok_response: {} });
});

test('users this controller does not know, or too many verifications waiting: 503, never allowed', async (t) => {
  t.like(decode(await service().check(checkRequest('other/s/auth-file', basic('alice:wonderland')))), { denied_response: { status: { code: 503 } } });
  const slow = service({ maxPendingVerifications: 1, verify: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 50)) });
  const first = slow.check(checkRequest('default/s/auth-file', basic('alice:wonderland')));
  const second = decode(await slow.check(checkRequest('default/s/auth-file', basic('alice:wonderland'))));
  t.like(second, { denied_response: { status: { code: 503 } } });
  t.truthy(decode(await first)['ok_response']);
});

test('over gRPC: a caller the xDS client check refuses gets PERMISSION_DENIED, an accepted one an answer', async (t) => {
  const grpc = await import('@grpc/grpc-js');
  const { authorizationServiceDefinition } = await import('./authorization-service.js');
  const call = async (authorizeClient: () => string | undefined): Promise<{ code?: number; bytes?: Buffer }> => {
    const server = new grpc.Server();
    service({ authorizeClient }).addTo(server);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const type = messageType('envoy.service.auth.v3.CheckRequest');
    const request = Buffer.from(type.encode(type.fromObject({ attributes: { context_extensions: { 'basic-auth-users': 'default/s/auth-file' } } })).finish());
    const definition = authorizationServiceDefinition['Check']!;
    try {
      return await new Promise((resolve) => {
        client.makeUnaryRequest(definition.path, (b: Buffer) => b, (b: Buffer) => b, request, (err, bytes) =>
          resolve(err ? { code: err.code } : { bytes: bytes as Buffer }),
        );
      });
    } finally {
      client.close();
      server.forceShutdown();
    }
  };
  t.is((await call(() => 'not an Envoy of ours')).code, 7);
  const accepted = await call(() => undefined);
  t.like(decode(accepted.bytes ?? Buffer.alloc(0)), { denied_response: { status: { code: 401 } } });
});
