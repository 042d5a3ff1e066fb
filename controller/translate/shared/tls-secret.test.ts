import { PrivateKey } from '../../../ir/index.js';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import test from 'ava';
import type { Secret } from './kube-objects.js';
import { certificateCoversHost, validateTlsSecret } from './tls-secret.js';

// dist/controller/translate/ -> testdata/translate/pki/ (test-only certificates, see the README there).
const pki = new URL('../../../../testdata/translate/pki/', import.meta.url);
const pem = (file: string): string => readFileSync(new URL(file, pki), 'utf8');

interface KeyPair {
  certPem: string;
  keyPem: string;
}

const ecA: KeyPair = { certPem: pem('ec-a-cert.pem'), keyPem: pem('ec-a-key.pem') };
const ecB: KeyPair = { certPem: pem('ec-b-cert.pem'), keyPem: pem('ec-b-key.pem') };
const rsa: KeyPair = { certPem: pem('rsa-cert.pem'), keyPem: pem('rsa-key.pem') };

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function secret(data: Record<string, string>, type = 'kubernetes.io/tls'): Secret {
  return { kind: 'Secret', metadata: { name: 'tls', namespace: 'web' }, type, data };
}

function tls(certPem: string, keyPem: string, type?: string): Secret {
  return secret({ 'tls.crt': b64(certPem), 'tls.key': b64(keyPem) }, type);
}

test('a matching certificate and key give an SDS secret named namespace/name', (t) => {
  for (const [algorithm, { certPem, keyPem }] of [['ECDSA', ecA], ['RSA', rsa]] as const) {
    const result = validateTlsSecret(tls(certPem, keyPem));
    t.true(result.valid, algorithm);
    if (!result.valid) continue;
    t.is(result.secret.name, 'web/tls');
    t.is(result.secret.certificateChain, certPem);
    t.true(result.secret.privateKey instanceof PrivateKey);
    t.is(result.secret.privateKey.reveal(), keyPem);
  }
});

test('a chain is accepted when its first certificate matches the key', (t) => {
  const leaf = ecA;
  const other = ecB;
  const chain = `${leaf.certPem}\n${other.certPem}`;
  t.true(validateTlsSecret(tls(chain, leaf.keyPem)).valid);
  const reversed = `${other.certPem}\n${leaf.certPem}`;
  t.false(validateTlsSecret(tls(reversed, leaf.keyPem)).valid);
});

test('the private key never prints', (t) => {
  const { certPem, keyPem } = ecA;
  const result = validateTlsSecret(tls(certPem, keyPem));
  if (!result.valid) return t.fail(result.error);
  t.false(JSON.stringify(result).includes('PRIVATE KEY'));
  t.is(String(result.secret.privateKey), '[redacted]');
  t.false(`${result.secret.privateKey}`.includes(keyPem));
});

test('each problem is named in the error', (t) => {
  const good = ecA;
  const other = rsa;
  const encrypted = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' },
  }).privateKey;
  const corruptCert = good.certPem.replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA');
  const cases: [Secret, RegExp][] = [
    [tls(good.certPem, good.keyPem, 'Opaque'), /type "Opaque", expected "kubernetes.io\/tls"/],
    [{ kind: 'Secret', metadata: { name: 'tls', namespace: 'web' }, data: {} }, /type "Opaque"/],
    [secret({ 'tls.key': b64(good.keyPem) }), /no data "tls.crt"/],
    [secret({ 'tls.crt': b64(good.certPem) }), /no data "tls.key"/],
    [secret({ 'tls.crt': 'not*base64', 'tls.key': b64(good.keyPem) }), /"tls.crt" is not valid base64/],
    [tls('hello', good.keyPem), /"tls.crt" holds no PEM certificate/],
    [tls(corruptCert, good.keyPem), /"tls.crt" is not a valid PEM certificate/],
    [tls(good.certPem, 'hello'), /"tls.key" holds no PEM private key/],
    [tls(good.certPem, encrypted), /"tls.key" is not a valid unencrypted PEM private key/],
    [tls(good.certPem, other.keyPem), /"tls.key" does not match the certificate/],
  ];
  for (const [input, expected] of cases) {
    const result = validateTlsSecret(input);
    t.false(result.valid, String(expected));
    if (!result.valid) {
      t.regex(result.error, expected);
      t.true(result.error.startsWith('secret web/tls '));
    }
  }
});

// Envoy (BoringSSL) loads only RSA keys of at least 2048 bits, ECDSA on P-256/P-384/P-521, and Ed25519; any other
// certificate makes it reject the whole secret update, and with it the HTTPS listener of every host.
test('certificates Envoy cannot load are rejected, the ones it can are accepted', (t) => {
  const fixture = (name: string): KeyPair => ({ certPem: pem(`${name}-cert.pem`), keyPem: pem(`${name}-key.pem`) });
  const rejected: [string, RegExp][] = [
    ['rsa-1024', /RSA key of 1024 bits; Envoy needs at least 2048/],
    ['ec-secp256k1', /ECDSA key on curve secp256k1; Envoy supports P-256, P-384 and P-521/],
    ['rsa-pss', /key of type rsa-pss; Envoy supports RSA, ECDSA and Ed25519/],
  ];
  for (const [name, expected] of rejected) {
    const { certPem, keyPem } = fixture(name);
    const result = validateTlsSecret(tls(certPem, keyPem));
    t.false(result.valid, name);
    if (!result.valid) t.regex(result.error, expected);
  }
  for (const name of ['ec-p384', 'ed25519']) {
    const { certPem, keyPem } = fixture(name);
    t.true(validateTlsSecret(tls(certPem, keyPem)).valid, name);
  }
});

// Envoy reads every certificate of the chain, and one it cannot parse fails the whole secret.
test('a chain with an unparsable certificate after the leaf is rejected', (t) => {
  const corrupt = ecB.certPem.replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA');
  const garbage = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
  for (const [label, extra] of [['corrupted', corrupt], ['garbage', garbage]] as const) {
    const result = validateTlsSecret(tls(`${ecA.certPem}\n${extra}`, ecA.keyPem));
    t.false(result.valid, label);
    if (!result.valid) t.regex(result.error, /"tls.crt" certificate 2 is not a valid PEM certificate/, label);
  }
  // Text and other PEM blocks around the certificates are ignored by Envoy too.
  const withKeyAndText = `subject=CN = a.example.com\n${ecA.certPem}\n${ecB.certPem}\n${ecA.keyPem}`;
  t.true(validateTlsSecret(tls(withKeyAndText, ecA.keyPem)).valid);
});

// Envoy (BoringSSL) finds a PEM block only where "-----BEGIN" starts a line. A byte order mark (files saved by
// some Windows editors) is an encoding artefact and is dropped; any other text before the marker is rejected.
test('a byte order mark is dropped; text before a BEGIN marker on its line is rejected', (t) => {
  const withBom = validateTlsSecret(tls(`\uFEFF${ecA.certPem}`, `\uFEFF${ecA.keyPem}`));
  if (!withBom.valid) return t.fail(withBom.error);
  t.is(withBom.secret.certificateChain, ecA.certPem);
  t.is(withBom.secret.privateKey.reveal(), ecA.keyPem);
  const cases: [Secret, RegExp][] = [
    [tls(`x${ecA.certPem}`, ecA.keyPem), /"tls.crt" has text before "-----BEGIN" on the same line/],
    [tls(`${ecA.certPem}\nx${ecB.certPem}`, ecA.keyPem), /"tls.crt" has text before "-----BEGIN" on the same line/],
    [tls(ecA.certPem, `x${ecA.keyPem}`), /"tls.key" has text before "-----BEGIN" on the same line/],
  ];
  for (const [input, expected] of cases) {
    const result = validateTlsSecret(input);
    t.false(result.valid, String(expected));
    if (!result.valid) t.regex(result.error, expected);
  }
  // Text on lines of its own is fine (openssl writes "Bag Attributes" and "subject=" lines there).
  t.true(validateTlsSecret(tls(`Bag Attributes\n${ecA.certPem}`, `Bag Attributes\n${ecA.keyPem}`)).valid);
  return undefined;
});

test('certificateCoversHost: exact names, one-label wildcards, wildcard hosts only by the same wildcard', (t) => {
  const names = ['foo.example.com', '*.example.com'];
  t.true(certificateCoversHost(names, 'foo.example.com'));
  t.true(certificateCoversHost(names, 'bar.example.com'));
  t.true(certificateCoversHost(names, '*.example.com'));
  t.false(certificateCoversHost(names, 'example.com'));
  t.false(certificateCoversHost(names, 'a.b.example.com'));
  t.false(certificateCoversHost(names, '*.b.example.com'));
  t.false(certificateCoversHost(['foo.example.com'], '*.example.com'));
  t.false(certificateCoversHost([], 'foo.example.com'));
});

test('a valid secret reports the DNS names of its certificate (SAN, lower case)', (t) => {
  const result = validateTlsSecret(tls(pem('ec-a-cert.pem'), pem('ec-a-key.pem')));
  t.true(result.valid);
  if (result.valid) t.deepEqual(result.dnsNames, ['foo.example.com', '*.example.com']);
});
