// Which Secret changes a secrets-only build may take: certificate bytes of a valid TLS Secret, not its trusted CAs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { envoyTestdataDir } from '../../envoy/test-helpers/golden-cases.js';
import type { Secret } from '../translate/shared/kube-objects.js';
import { certificateOnlyChanges } from './certificate-only-changes.js';

const certificate = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.crt'), 'utf8');
const key = readFileSync(path.join(envoyTestdataDir(), 'certs', 'test-only.key'), 'utf8');
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function tlsSecret(extra: Record<string, string> = {}): Secret {
  return { kind: 'Secret', metadata: { name: 'web', namespace: 'team' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64(certificate), 'tls.key': b64(key), ...extra } };
}

test('a TLS Secret whose certificate bytes change is a secrets-only change', (t) => {
  const changed = certificateOnlyChanges([tlsSecret()], [tlsSecret({ 'other-key': b64('x') })]);
  t.deepEqual([...(changed?.keys() ?? [])], ['team/web']);
});

test('a change of ca.crt or ca.crl (auth-tls-secret, proxy-ssl-secret) needs a full build', (t) => {
  t.is(certificateOnlyChanges([tlsSecret({ 'ca.crt': b64(certificate) })], [tlsSecret({ 'ca.crt': b64(`${certificate}\n`) })]), undefined);
  t.is(certificateOnlyChanges([tlsSecret()], [tlsSecret({ 'ca.crl': b64('x') })]), undefined);
});
