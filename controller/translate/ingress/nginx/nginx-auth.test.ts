import { HtpasswdUsers } from '../../../../ir/index.js';
import { createHash } from 'node:crypto';
import test from 'ava';
import { buildBasicAuthFilterConfig, buildBasicAuthPerRoute } from '../../../../envoy/basic-auth.js';
import { buildExtAuthzFilterConfig } from '../../../../envoy/ext-authz.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { Ingress, Secret } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { readNginxAuth, readUsers } from './nginx-auth.js';

const sha = (password: string): string => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function secret(data: Record<string, string>): Secret {
  return { kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

function ingressWith(values: Record<string, string>): Ingress {
  const annotations = Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));
  return { kind: 'Ingress', metadata: { name: 'app', namespace: 'team', annotations }, spec: {} };
}

function read(values: Record<string, string>): { auth: ReturnType<typeof readNginxAuth>; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  return { auth: readNginxAuth(ingressWith(values), diagnostics), diagnostics };
}

test('auth-file: users of every scheme ingress-nginx accepts kept in order; problems reported by line, never with a name or hash', (t) => {
  const apr1 = '$apr1$caL0xhBy$Q7zGi8aXBX0srAlKPsTRo0';
  const bcrypt = '$2y$05$fuG3Lb3gEnV9H2LxExsVAONVwt7k1Muieq.DlUyxY/RTIWur4Qfbe';
  const file = `# comment\r\nalice:${sha('a')}\r\n\r\nbob:${apr1}\r\ncarol:${bcrypt}\r\nalice:${sha('other')}\r\ndave:not-a-hash  \r\nhunter2-no-colon\r\nerin:\r\n`;
  const users = readUsers(secret({ auth: file }), 'auth-file');
  if ('error' in users) return t.fail(users.error);
  t.deepEqual(users.lines, [`alice:${sha('a')}`, `bob:${apr1}`, `carol:${bcrypt}`]);
  t.deepEqual(users.skipped.map((m) => m.slice(0, m.indexOf(' of '))), ['line 6', 'line 7', 'line 8', 'line 9']);
  t.regex(users.skipped[0] ?? '', /earlier entry/);
  t.regex(users.skipped[1] ?? '', /in no format ingress-nginx accepts/);
  t.regex(users.skipped[2] ?? '', /no password hash/);
  t.regex(users.skipped[3] ?? '', /no password hash/);
  // Nothing the Secret holds reaches a message (they become Events): no user name, hash or stray line.
  for (const word of ['alice', 'dave', 'erin', 'hunter2', 'not-a-hash', sha('other')]) {
    t.false(users.skipped.some((m) => m.includes(word)), word);
  }
});

test('auth-map: each key is a user; a Secret without "auth" is refused for auth-file', (t) => {
  const map = readUsers(secret({ zed: sha('z'), amy: sha('a') }), 'auth-map');
  t.deepEqual('lines' in map ? map.lines : [], [`amy:${sha('a')}`, `zed:${sha('z')}`]);
  t.deepEqual(readUsers(secret({ users: 'x' }), 'auth-file'), { error: 'has no data "auth" (an htpasswd file)' });
  // A {SHA} value that is not a SHA-1 digest is not accepted as one (Envoy would reject the whole route table).
  const short = readUsers(secret({ auth: 'eve:{SHA}abc=\n' }), 'auth-file');
  t.deepEqual('lines' in short ? short.lines : undefined, []);
});

test('annotations: secret in the Ingress namespace or namespace/name; bad values refuse (503), never ignore', (t) => {
  t.deepEqual(read({ 'auth-type': 'basic', 'auth-secret': 'users' }).auth, { basic: { secret: { namespace: 'team', name: 'users' }, secretType: 'auth-file', realm: '' } });
  t.deepEqual(read({ 'auth-type': 'basic', 'auth-secret': 'team/users', 'auth-secret-type': 'auth-map' }).auth?.basic, {
    secret: { namespace: 'team', name: 'users' },
    secretType: 'auth-map',
    realm: '',
  });
  for (const values of [
    { 'auth-type': 'digest', 'auth-secret': 'users' },
    { 'auth-type': 'basic' },
    { 'auth-type': 'basic', 'auth-secret': 'a/b/c' },
    { 'auth-type': 'basic', 'auth-secret': 'users', 'auth-secret-type': 'htpasswd' },
    { 'auth-url': 'ftp://auth.test/' },
    { 'auth-url': 'https://auth.test/check?x=1' },
    { 'auth-url': 'https://user:pw@auth.test/check' },
    { 'auth-url': 'https://$host/oauth2/auth' },
  ]) {
    const { auth, diagnostics } = read(values);
    t.truthy(auth?.refused, JSON.stringify(values));
    t.deepEqual(diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  }
  // Without auth-type, the rest is reported as ignored (nothing was asked for).
  const lonely = read({ 'auth-secret': 'users', 'auth-realm': 'R' });
  t.is(lonely.auth, undefined);
  t.is(lonely.diagnostics.length, 2);
});

test('auth-secret in another namespace: refused (503) without looking at it, unless the controller allows it', (t) => {
  const { auth, diagnostics } = read({ 'auth-type': 'basic', 'auth-secret': 'other/users' });
  t.is(auth?.basic, undefined);
  t.truthy(auth?.refused);
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.SecretNamespaceRefused]);
  t.regex(diagnostics[0]?.message ?? '', /namespace "other"; an Ingress may only use Secrets of its own namespace.*--nginx-allow-cross-namespace-resources.*503/);
  const allowed: Diagnostic[] = [];
  const opted = readNginxAuth(ingressWith({ 'auth-type': 'basic', 'auth-secret': 'other/users' }), allowed, { allowCrossNamespace: true });
  t.deepEqual(opted, { basic: { secret: { namespace: 'other', name: 'users' }, secretType: 'auth-file', realm: '' } });
  t.deepEqual(allowed, []);
});

test('auth-map: an entry that is not base64 is named by its position, not its key', (t) => {
  const bad: Secret = { kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { 'zed-the-user': '!!', amy: b64(sha('a')) } };
  t.deepEqual(readUsers(bad, 'auth-map'), { error: 'data entry 2 (in key order) is not valid base64' });
});

test('auth-signin: the redirect parameter appended as ingress-nginx does; unknown nginx variables ignore it (reported)', (t) => {
  const signin = (values: Record<string, string>): string | undefined => read({ 'auth-url': 'http://auth.test/v', ...values }).auth?.external?.signin;
  const rd = '$pass_access_scheme://$http_host$escaped_request_uri';
  t.is(signin({ 'auth-signin': 'http://$host/auth/start' }), `http://$host/auth/start?rd=${rd}`);
  t.is(signin({ 'auth-signin': 'https://sso.test/start?x=1', 'auth-signin-redirect-param': 'orig' }), `https://sso.test/start?x=1&orig=${rd}`);
  t.is(signin({ 'auth-signin': 'https://$host/oauth2/start?rd=$escaped_request_uri' }), 'https://$host/oauth2/start?rd=$escaped_request_uri');
  const unknown = read({ 'auth-url': 'http://auth.test/v', 'auth-signin': 'https://$server_name/start' });
  t.is(unknown.auth?.external?.signin, undefined);
  t.regex(unknown.diagnostics[0]?.message ?? '', /\$server_name.*ignored/);
  // Without auth-url there is nothing to redirect from.
  t.deepEqual(read({ 'auth-signin': 'http://x/start' }).diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
});

test('auth-always-set-cookie: true or false (the service\'s cookies pass either way); other values and a lone one reported', (t) => {
  t.deepEqual(read({ 'auth-url': 'http://auth.test/v', 'auth-always-set-cookie': 'true' }).diagnostics, []);
  t.deepEqual(read({ 'auth-url': 'http://auth.test/v', 'auth-always-set-cookie': 'yes' }).diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  t.deepEqual(read({ 'auth-always-set-cookie': 'true' }).diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
});

test('satisfy: any only matters with basic auth and auth-url together; other values are reported', (t) => {
  const both = { 'auth-type': 'basic', 'auth-secret': 'users', 'auth-url': 'http://auth.test/v' };
  t.true(read({ ...both, satisfy: 'any' }).auth?.satisfyAny);
  t.is(read({ ...both, satisfy: 'all' }).auth?.satisfyAny, undefined);
  t.is(read({ 'auth-url': 'http://auth.test/v', satisfy: 'any' }).auth?.satisfyAny, undefined);
  t.deepEqual(read({ ...both, satisfy: 'some' }).diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
});

test('auth-response-headers: valid names kept lower case, bad ones reported; host is never copied', (t) => {
  const { auth, diagnostics } = read({ 'auth-url': 'http://auth.test/v', 'auth-response-headers': 'X-User, X-Email,bad{,Host,x-user' });
  t.deepEqual(auth?.external?.responseHeaders, ['x-user', 'x-email']);
  t.deepEqual(
    diagnostics.map((d) => d.message.match(/"([^"]+)" is not/)?.[1]),
    ['bad{', 'Host'],
  );
});

test('users never print; Envoy gets only their id and the realm (the controller checks passwords)', (t) => {
  const users = new HtpasswdUsers(`alice:${sha('a')}\n`);
  t.is(JSON.stringify({ users }), '{"users":"[redacted]"}');
  t.is(`${users}`, '[redacted]');
  const perRoute = buildBasicAuthPerRoute({ usersId: 'default/s/auth-file', realm: 'test auth', secret: { kind: 'Secret', namespace: 'default', name: 's' } });
  t.deepEqual(perRoute['check_settings'], { context_extensions: { 'basic-auth-users': 'default/s/auth-file', 'basic-auth-realm': 'test auth' } });
  t.like(buildBasicAuthFilterConfig(), {
    grpc_service: { envoy_grpc: { cluster_name: 'xds_cluster' } },
    allowed_headers: { patterns: [{ exact: 'authorization', ignore_case: true }] },
    status_on_error: { code: 'ServiceUnavailable' },
    failure_mode_allow: false,
  });
});

test('auth-realm: kept for the challenge (empty by default, as nginx); characters ingress-nginx refuses refuse the auth (503)', (t) => {
  t.is(read({ 'auth-type': 'basic', 'auth-secret': 'users', 'auth-realm': 'test auth' }).auth?.basic?.realm, 'test auth');
  t.is(read({ 'auth-type': 'basic', 'auth-secret': 'users' }).auth?.basic?.realm, '');
  const bad = read({ 'auth-type': 'basic', 'auth-secret': 'users', 'auth-realm': 'say "hi"' });
  t.truthy(bad.auth?.refused);
  t.deepEqual(bad.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
});

test('ext_authz filter: path prefix, copied headers, client gets only WWW-Authenticate and Location, 500 on errors', (t) => {
  const config = buildExtAuthzFilterConfig({
    filter: 'f',
    uri: 'http://auth.test/verify',
    cluster: 'auth-url/auth.test:80',
    pathPrefix: '/verify',
    responseHeaders: ['x-user'],
  });
  t.like(config, {
    http_service: {
      server_uri: { uri: 'http://auth.test/verify', cluster: 'auth-url/auth.test:80' },
      path_prefix: '/verify',
      authorization_response: {
        allowed_upstream_headers: { patterns: [{ exact: 'x-user', ignore_case: true }] },
        allowed_client_headers: { patterns: [{ exact: 'www-authenticate', ignore_case: true }, { exact: 'location', ignore_case: true }] },
      },
    },
    status_on_error: { code: 'InternalServerError' },
  });
  const added = (config['http_service'] as { authorization_request: { headers_to_add: { key: string; value: string }[] } }).authorization_request.headers_to_add;
  t.deepEqual(added.map((h) => h.key), ['x-original-url', 'x-original-method', 'x-auth-request-redirect', 'x-sent-from']);
});
