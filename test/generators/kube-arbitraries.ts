/**
 * fast-check arbitraries for Kubernetes objects as the translator reads them: realistic and awkward
 * combinations of Ingresses, Services, EndpointSlices, Endpoints and TLS Secrets, for property tests that feed
 * the whole pipeline and check what comes out (with the real Envoy, among others).
 *
 * One "combination" is what a team would put in one namespace: 1-3 Ingresses, 0-3 Services with their
 * EndpointSlices (sometimes core/v1 Endpoints), and 0-3 Secrets. Host names come partly from a small shared pool,
 * so combinations placed in different namespaces of one ClusterState conflict and merge the way tenants do.
 * Creation timestamps come from a small pool too, so "oldest wins" meets ties.
 *
 * Certificates cannot be made inside an arbitrary (key generation is async and random), so a pool is made once
 * per run with createCertPool() and arbitraries pick from it by index: the same seed picks the same entries.
 */
// test-certs.js loads reflect-metadata and gives @peculiar/x509 node's WebCrypto before anything here runs.
import { createTestCA } from '../harness/test-certs.js';
import { KeyObject, createPrivateKey, generateKeyPair, webcrypto } from 'node:crypto';
import { promisify } from 'node:util';
import * as x509 from '@peculiar/x509';
import fc from 'fast-check';
import type {
  ClusterState,
  EndpointSlice,
  EndpointSliceEndpoint,
  EndpointSlicePort,
  Endpoints,
  HTTPIngressPath,
  Ingress,
  IngressBackend,
  IngressClass,
  IngressRule,
  IngressTLS,
  Secret,
  Service,
  ServicePort,
} from '../../controller/translate/shared/kube-objects.js';
import { defaultNotFoundPage } from '../../controller/translate/shared/options.js';

// ---------------------------------------------------------------------------------------------------------------
// Certificates

/** One tls.crt / tls.key pair as PEM text. */
export interface TlsMaterial {
  /** What is special about it, for messages. */
  label: string;
  certPem: string;
  keyPem: string;
}

export interface CertPool {
  /** Pairs the translator accepts, each a different legitimate shape. */
  valid: TlsMaterial[];
  /** Pairs the translator must reject (SecretInvalid). */
  broken: TlsMaterial[];
}

/** Names the pool's certificates are issued for (Envoy does not check them against hosts; clients would). */
const certificateNames = ['shared.example.com', '*.example.com', '*.apps.example.org'];

const DAY_MS = 24 * 60 * 60 * 1000;

export type KeyAlgorithm =
  | { name: 'ECDSA'; namedCurve: 'P-256' | 'P-384' | 'P-521' }
  | { name: 'RSASSA-PKCS1-v1_5'; modulusLength: number; publicExponent: Uint8Array; hash: 'SHA-256' }
  | { name: 'Ed25519' };

const curveHashes = { 'P-256': 'SHA-256', 'P-384': 'SHA-384', 'P-521': 'SHA-512' } as const;

function signingAlgorithmFor(algorithm: KeyAlgorithm): { name: string; hash?: string } {
  switch (algorithm.name) {
    case 'ECDSA':
      return { name: 'ECDSA', hash: curveHashes[algorithm.namedCurve] };
    case 'RSASSA-PKCS1-v1_5':
      return { name: algorithm.name, hash: algorithm.hash };
    case 'Ed25519':
      return { name: 'Ed25519' };
  }
}

/** A self-signed server certificate for the pool's names, with a key of the given algorithm. */
export async function selfSignedCertificate(algorithm: KeyAlgorithm): Promise<{ certPem: string; key: KeyObject }> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex')}`,
    name: `CN=${certificateNames[0] ?? 'test'}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 30 * DAY_MS),
    keys,
    signingAlgorithm: signingAlgorithmFor(algorithm),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.SubjectAlternativeNameExtension(certificateNames.map((value) => ({ type: 'dns' as const, value }))),
    ],
  });
  return { certPem: cert.toString('pem'), key: KeyObject.from(keys.privateKey) };
}

/** Key types node:crypto generates (and OpenSSL parses) but Envoy's BoringSSL cannot load in a certificate. */
export type ForeignKeyType =
  | { type: 'rsa'; modulusLength: number }
  | { type: 'rsa-pss'; modulusLength: number }
  | { type: 'ec'; namedCurve: string }
  | { type: 'dsa'; modulusLength: number }
  | { type: 'ed448' };

const generateKeyPairAsync = promisify(generateKeyPair) as (
  type: string,
  options: Record<string, unknown>,
) => Promise<{ publicKey: KeyObject; privateKey: KeyObject }>;

/**
 * A certificate for `subjectKey`'s type, signed by `ca`: WebCrypto cannot make keys of every type, but any
 * SubjectPublicKeyInfo node:crypto exports can be put in a certificate the CA's ECDSA key signs.
 */
export async function issueForKeyType(
  ca: { certPem: string; keyPem: string },
  keyType: ForeignKeyType,
): Promise<{ certPem: string; keyPem: string }> {
  const { type, ...options } = keyType;
  const pair = await generateKeyPairAsync(type, options);
  const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
  const caKeyDer = createPrivateKey(ca.keyPem).export({ type: 'pkcs8', format: 'der' });
  const caAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const signingKey = await webcrypto.subtle.importKey('pkcs8', caKeyDer, caAlgorithm, false, ['sign']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex')}`,
    subject: `CN=${certificateNames[0] ?? 'test'}`,
    issuer: new x509.X509Certificate(ca.certPem).subject,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 30 * DAY_MS),
    publicKey: new Uint8Array(spki),
    signingKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.SubjectAlternativeNameExtension(certificateNames.map((value) => ({ type: 'dns' as const, value }))),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: keyPem(pair.privateKey, 'pkcs8') };
}

function keyPem(key: KeyObject, type: 'pkcs8' | 'pkcs1' | 'sec1'): string {
  return key.export({ type, format: 'pem' }).toString();
}

/**
 * Generates the pool once (about a second). Valid: CA-issued ECDSA leaves (alone, followed by their CA, with a
 * SEC1 key, with the key's EC PARAMETERS block, with the key inside tls.crt too, with CRLF line endings, a byte
 * order mark or openssl's attribute lines, expired), self-signed RSA 2048 (PKCS#1 key), ECDSA P-384 and P-521,
 * Ed25519. Broken: garbage PEM, the key of another certificate, an encrypted key, certificate and key swapped, no
 * PEM, the chain in the wrong order, glued on one line or with a corrupt second certificate, text before a BEGIN
 * marker, and keys Envoy cannot load (RSA 1024, RSA-PSS, secp256k1, DSA, Ed448).
 */
export async function createCertPool(): Promise<CertPool> {
  const ca = await createTestCA({ commonName: 'property test CA' });
  const rsa2048 = {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
  } as const;
  const [leaf, other, expired, rsa, p384, p521, ed25519, ...unloadable] = await Promise.all([
    ca.issue({ dnsNames: certificateNames }),
    ca.issue({ dnsNames: ['other.example.net'] }),
    ca.issue({
      dnsNames: certificateNames,
      notBefore: new Date(Date.UTC(2020, 0, 1)),
      notAfter: new Date(Date.UTC(2020, 1, 1)),
    }),
    selfSignedCertificate({ ...rsa2048, hash: 'SHA-256' }),
    selfSignedCertificate({ name: 'ECDSA', namedCurve: 'P-384' }),
    selfSignedCertificate({ name: 'ECDSA', namedCurve: 'P-521' }),
    selfSignedCertificate({ name: 'Ed25519' }),
    issueForKeyType(ca, { type: 'rsa', modulusLength: 1024 }),
    issueForKeyType(ca, { type: 'rsa-pss', modulusLength: 2048 }),
    issueForKeyType(ca, { type: 'ec', namedCurve: 'secp256k1' }),
    issueForKeyType(ca, { type: 'dsa', modulusLength: 1024 }),
    issueForKeyType(ca, { type: 'ed448' }),
  ]);
  const unloadableLabels = ['RSA 1024 key', 'RSA-PSS key', 'ECDSA secp256k1 key', 'DSA key', 'Ed448 key'];
  const crlf = (text: string): string => text.replace(/\r?\n/g, '\r\n');
  // PEM files as `cat leaf.crt ca.crt` joins them (the helper's PEM has no final newline).
  const chain = (...pems: string[]): string => pems.map((p) => `${p.trimEnd()}\n`).join('');
  // What `openssl ecparam -genkey -name prime256v1` writes before the key.
  const p256Parameters = '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n';
  const otherSec1Key = keyPem(createPrivateKey(other.keyPem), 'sec1');

  const valid: TlsMaterial[] = [
    { label: 'ECDSA P-256 leaf, PKCS#8 key', certPem: leaf.certPem, keyPem: leaf.keyPem },
    { label: 'leaf followed by its CA', certPem: chain(leaf.certPem, ca.certPem), keyPem: leaf.keyPem },
    { label: 'ECDSA leaf, SEC1 key', certPem: other.certPem, keyPem: otherSec1Key },
    { label: 'SEC1 key after EC PARAMETERS', certPem: other.certPem, keyPem: p256Parameters + otherSec1Key },
    { label: 'key inside tls.crt too', certPem: chain(leaf.certPem, leaf.keyPem), keyPem: leaf.keyPem },
    { label: 'CRLF line endings', certPem: crlf(leaf.certPem), keyPem: crlf(leaf.keyPem) },
    { label: 'UTF-8 byte order mark', certPem: `\uFEFF${leaf.certPem}`, keyPem: `\uFEFF${leaf.keyPem}` },
    {
      label: 'openssl pkcs12 attribute lines',
      certPem: `Bag Attributes\n    localKeyID: 01\nsubject=CN = shared.example.com\n${leaf.certPem}`,
      keyPem: `Bag Attributes\n    localKeyID: 01\nKey Attributes: <No Attributes>\n${leaf.keyPem}`,
    },
    { label: 'expired leaf', certPem: expired.certPem, keyPem: expired.keyPem },
    { label: 'self-signed RSA 2048, PKCS#1 key', certPem: rsa.certPem, keyPem: keyPem(rsa.key, 'pkcs1') },
    { label: 'self-signed ECDSA P-384', certPem: p384.certPem, keyPem: keyPem(p384.key, 'pkcs8') },
    { label: 'self-signed ECDSA P-521', certPem: p521.certPem, keyPem: keyPem(p521.key, 'sec1') },
    { label: 'self-signed Ed25519', certPem: ed25519.certPem, keyPem: keyPem(ed25519.key, 'pkcs8') },
  ];
  const garbage = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
  const encryptedKey = createPrivateKey(leaf.keyPem)
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-128-cbc', passphrase: 'secret' })
    .toString();
  const broken: TlsMaterial[] = [
    { label: 'garbage certificate PEM', certPem: garbage, keyPem: leaf.keyPem },
    { label: 'key of another certificate', certPem: leaf.certPem, keyPem: other.keyPem },
    { label: 'encrypted key', certPem: leaf.certPem, keyPem: encryptedKey },
    { label: 'certificate and key swapped', certPem: leaf.keyPem, keyPem: leaf.certPem },
    { label: 'no PEM at all', certPem: 'hello', keyPem: 'world' },
    { label: 'CA first, leaf second', certPem: chain(ca.certPem, leaf.certPem), keyPem: leaf.keyPem },
    { label: 'chain glued on one line', certPem: leaf.certPem.trimEnd() + ca.certPem, keyPem: leaf.keyPem },
    { label: 'corrupt second certificate', certPem: chain(leaf.certPem, garbage), keyPem: leaf.keyPem },
    { label: 'text before BEGIN on its line', certPem: `cert: ${leaf.certPem}`, keyPem: leaf.keyPem },
    ...unloadable.map((pair, i) => ({ label: unloadableLabels[i] ?? 'unloadable key', ...pair })),
  ];
  return { valid, broken };
}

// ---------------------------------------------------------------------------------------------------------------
// Small pools every combination draws from, so names meet across objects and namespaces.

/** Hosts many combinations use: the same host in several namespaces conflicts or merges. */
export const sharedHosts = [
  'shared.example.com',
  '*.example.com',
  'www.example.com',
  'api.example.org',
  '*.apps.example.org',
  'x.apps.example.org',
  'xn--bcher-kva.example', // punycode IDN
  'a-b.c-d.example',
  'Shared.Example.COM', // upper case: the same host once lower-cased
  'localhost',
  `${'l'.repeat(63)}.example.com`, // longest label allowed
  `*.${'w'.repeat(63)}.${'x'.repeat(40)}.example.com`, // a wildcard well over 100 characters
  `*.${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`, // the longest: 2 + 253
] as const;

/** Hosts the translator must reject (InvalidHost): wildcards in the wrong place, underscores, a trailing dot. */
const invalidHosts = [
  '*',
  '*.*.example.com',
  'foo.*.example.com',
  'bad_host.example.com',
  'foo.example.com.',
  '-a.example',
];

const serviceNames = ['web', 'api', 'static'] as const;
/** A name no generated Service has: backends naming it get ServiceNotFound. */
const missingServiceName = 'missing';
const portNames = ['http', 'https', 'grpc', 'admin'] as const;
const servicePortNumbers = [80, 443, 8080, 9090, 1, 65535] as const;
/** Port numbers outside 1-65535 (and not whole numbers): Services and backends of hand-written manifests. */
const outOfRangePorts = [0, -1, 65536, 70000, 80.5] as const;
const secretNames = ['tls-a', 'tls-b', 'tls-c'] as const;

/** Our IngressClass, and two others (another controller's, and a second class of ours under another name). */
export const ourClassName = 'envoy-ingress';
export const ourSecondClassName = 'envoy-ingress-internal';
export const otherClassName = 'nginx';

/** Timestamps with ties; absent and unparsable ones sort as newest. */
const creationTimestamps = [
  '2024-01-01T00:00:00Z',
  '2024-01-01T00:00:00Z',
  '2024-01-01T00:00:01Z',
  '2023-12-31T23:59:59Z',
  '2024-03-05T12:00:00.500Z',
  '2024-03-05T12:00:00.5Z', // the same instant spelled differently
  undefined,
  'not-a-date',
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** `{[key]: value}` when value is defined, else `{}`: for optional fields under exactOptionalPropertyTypes. */
function field<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** `arb` most of the time, undefined one time in `oneIn`. */
function sometimesAbsent<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.option(arb, { nil: undefined, freq: oneIn });
}

/** `arb` one time in `oneIn`, else undefined. */
function rarely<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: arb, weight: 1 }, { arbitrary: fc.constant(undefined), weight: oneIn - 1 });
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function toBase64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

// ---------------------------------------------------------------------------------------------------------------
// Hosts and paths

const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);

/** A host only this combination is likely to use. */
const privateHost = fc
  .tuple(dnsLabel, fc.constantFrom('test', 'example.net', 'internal.example.com'))
  .map(([label, domain]) => `${label}.${domain}`);

export const hostArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...sharedHosts), weight: 6 },
  { arbitrary: privateHost, weight: 3 },
  { arbitrary: privateHost.map((host) => `*.${host}`), weight: 1 },
  { arbitrary: fc.constantFrom(...invalidHosts), weight: 1 },
);

/** Paths people write. */
const commonPaths = ['/', '/api', '/api/', '/static', '/v1/users', '/login', '/healthz', '/app'] as const;

/** Odd paths the Ingress API accepts and a request line can carry. */
const oddValidPaths = [
  '/a/b/',
  '/x.y',
  '/%20',
  '/%E2%9C%93', // percent-encoded UTF-8 (a check mark)
  '/~user',
  '/a;b=c',
  '/a:b@c',
  "/it's",
  '/(x)',
  '/a+b',
  '/a*b',
  '/a,b',
  '/$',
  '/-_.~',
  '/API',
  '/a/b/c/d/e/f/g',
  '/.well-known/acme-challenge',
  '/..a',
  '/a..',
  '/a/.b',
  '/a/',
] as const;

/** Paths the translator must reject (InvalidPath). */
const invalidPaths = [
  'relative',
  '/a//b',
  '/a/./b',
  '/a/../b',
  '/a/..',
  '/a/.',
  '/a b',
  '/é',
  '/q?x=1',
  '/frag#x',
  '/a%2Fb',
  '/%zz',
  '/a\\b',
  // Regular expressions users write for other controllers: characters no request path carries are refused.
  '^/api/[0-9]+$',
  '/api/[a-z]+',
  '~ ^/x',
  '/a|b',
  '/api/{id}',
  '/x^',
] as const;

/** Regex-looking paths made only of path characters: taken literally, as element-wise prefixes. */
const regexLikeValidPaths = ['/api/(.*)', '/v1/.*', '/(api|web)', '/a+', '/$1', '/.*'] as const;

/** Unicode text percent-encoded (valid URL path characters only); a `/` inside comes out as %2F (rejected). */
const percentEncodedUnicodePath = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 4 })
  .map((text) => `/${encodeURIComponent(text)}`);

const generatedPath = fc
  .tuple(fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/), { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([segments, trailingSlash]) => `/${segments.join('/')}${trailingSlash ? '/' : ''}`);

export const pathArbitrary: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constantFrom(...commonPaths), weight: 10 },
  { arbitrary: fc.constantFrom(...oddValidPaths), weight: 6 },
  { arbitrary: generatedPath, weight: 3 },
  { arbitrary: percentEncodedUnicodePath, weight: 1 },
  { arbitrary: fc.constantFrom(undefined, ''), weight: 1 }, // both mean `/`
  { arbitrary: fc.constantFrom(...invalidPaths), weight: 1 },
  { arbitrary: fc.constantFrom(...regexLikeValidPaths), weight: 1 },
);

export const pathTypeArbitrary: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constantFrom('Prefix', 'Exact', 'ImplementationSpecific'), weight: 12 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant('Regex'), weight: 1 }, // unknown: InvalidPath
);

// ---------------------------------------------------------------------------------------------------------------
// Services, EndpointSlices, Endpoints

const servicePortArbitrary: fc.Arbitrary<ServicePort> = fc
  .record({
    name: sometimesAbsent(fc.constantFrom(...portNames), 4),
    port: fc.oneof(
      { arbitrary: fc.constantFrom(...servicePortNumbers), weight: 20 },
      { arbitrary: fc.constantFrom(...outOfRangePorts), weight: 1 }, // only an unvalidated manifest holds these
    ),
    targetPort: fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(8080, 8443, 3000, 1, 65535),
      fc.constantFrom('http', 'web', 'metrics'), // named container port
    ),
    protocol: fc.constantFrom(undefined, 'TCP', 'TCP', 'UDP'),
    appProtocol: rarely(fc.constantFrom('http', 'kubernetes.io/h2c'), 6),
  })
  .map((p) => ({
    ...field('name', p.name),
    port: p.port,
    ...field('targetPort', p.targetPort),
    ...field('protocol', p.protocol),
    ...field('appProtocol', p.appProtocol),
  }));

/** ExternalName targets: served (with allowExternalName) or refused (loopback, link-local, not a DNS name). */
const externalNames = [
  'backend.example.net',
  'Backend.Example.NET.',
  '203.0.113.7',
  '2001:db8::7',
  '127.0.0.1',
  'localhost',
  'api.localhost',
  '169.254.169.254',
  '::1',
  '::ffff:127.0.0.1',
  'fe80::1',
  'bad_name.example.net',
  '',
] as const;

function serviceArbitrary(name: string): fc.Arbitrary<Service> {
  return fc
    .record({
      kind: fc.constantFrom('ClusterIP', 'ClusterIP', 'ClusterIP', 'NodePort', 'ExternalName', 'headless'),
      ports: fc.uniqueArray(servicePortArbitrary, { minLength: 0, maxLength: 3, selector: (p) => p.port }),
      externalName: fc.constantFrom(...externalNames),
    })
    .map(({ kind, ports, externalName }): Service => {
      // Kubernetes requires distinct port names; keep the first port of each name.
      const distinct = uniqueBy(ports, (p) => p.name ?? `#${p.port}`);
      const spec: NonNullable<Service['spec']> =
        kind === 'ExternalName'
          ? { type: 'ExternalName', externalName: externalName }
          : kind === 'headless'
            ? { clusterIP: 'None', selector: { app: name } }
            : { type: kind, selector: { app: name } };
      if (distinct.length > 0) spec.ports = distinct;
      return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec };
    });
}

/** The port number a Service port's endpoints listen on (what a pod's named port would resolve to). */
function backendPortOf(port: ServicePort, seedPort: number): number {
  return typeof port.targetPort === 'number' ? port.targetPort : seedPort;
}

const loopbackAddress = fc.integer({ min: 1, max: 6 }).map((n) => `127.0.0.${n}`);

/**
 * Mostly loopback addresses; rarely what only a hand-written manifest holds (no API server validates those):
 * an impossible IPv4 address, a host name, leading zeros, a CIDR.
 */
const endpointAddress = fc.oneof(
  { arbitrary: loopbackAddress, weight: 30 },
  {
    arbitrary: fc.constantFrom('10.0.0.300', 'localhost', '010.0.0.1', '10.0.0.1/32', '', ' 10.0.0.1', 'fe80::1%eth0'),
    weight: 1,
  },
);

/** Container port numbers; rarely out of range (manifests again). */
const backendPortSeed = fc.oneof(
  { arbitrary: fc.integer({ min: 1024, max: 65535 }), weight: 30 },
  { arbitrary: fc.constantFrom(0, 70000, -1, 8080.5), weight: 1 },
);

const endpointConditions: fc.Arbitrary<EndpointSliceEndpoint['conditions'] | undefined> = fc.oneof(
  { arbitrary: fc.constant({ ready: true }), weight: 6 },
  { arbitrary: fc.constant({ ready: false }), weight: 2 },
  { arbitrary: fc.constant({ ready: false, serving: true, terminating: true }), weight: 1 },
  { arbitrary: fc.constant({}), weight: 1 }, // ready unknown: counts as ready
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const sliceEndpointArbitrary: fc.Arbitrary<EndpointSliceEndpoint> = fc
  .record({
    addresses: fc.uniqueArray(endpointAddress, { minLength: 1, maxLength: 2 }),
    conditions: endpointConditions,
    nodeName: rarely(fc.constant('node-1'), 3),
  })
  .map((e) => ({ addresses: e.addresses, ...field('conditions', e.conditions), ...field('nodeName', e.nodeName) }));

function endpointSliceArbitrary(service: Service, index: number): fc.Arbitrary<EndpointSlice> {
  const ports = service.spec?.ports ?? [];
  return fc
    .record({
      addressType: fc.oneof(
        { arbitrary: fc.constant('IPv4'), weight: 10 },
        { arbitrary: fc.constant('IPv6'), weight: 1 },
        { arbitrary: fc.constant('FQDN'), weight: 1 },
      ),
      endpoints: fc.array(sliceEndpointArbitrary, { minLength: 0, maxLength: 3 }),
      labelled: fc.oneof({ arbitrary: fc.constant(true), weight: 12 }, { arbitrary: fc.constant(false), weight: 1 }),
      portSeeds: fc.array(backendPortSeed, { minLength: ports.length, maxLength: ports.length }),
      portSubset: fc.subarray(ports.map((_, i) => i)),
      strayPort: rarely(fc.record({ name: fc.constant('stray'), port: fc.constant(9999) }), 5),
    })
    .map((s): EndpointSlice => {
      const slicePorts: EndpointSlicePort[] = s.portSubset.map((i) => {
        const port = ports[i] as ServicePort;
        return { ...field('name', port.name), port: backendPortOf(port, s.portSeeds[i] ?? 8080), protocol: 'TCP' };
      });
      if (s.strayPort !== undefined) slicePorts.push(s.strayPort);
      // An IPv6 or FQDN slice holds addresses of its own type, as the API requires.
      const addressOf = (address: string): string => {
        if (s.addressType === 'IPv6') return address.replace('127.0.0.', 'fd00::');
        return s.addressType === 'FQDN' ? 'pod.example.net' : address;
      };
      return {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${service.metadata.name}-${index}`,
          ...(s.labelled ? { labels: { 'kubernetes.io/service-name': service.metadata.name } } : {}),
        },
        addressType: s.addressType,
        endpoints: s.endpoints.map((e) => ({ ...e, addresses: e.addresses.map(addressOf) })),
        ports: slicePorts,
      };
    });
}

function legacyEndpointsArbitrary(service: Service): fc.Arbitrary<Endpoints> {
  const ports = service.spec?.ports ?? [];
  return fc
    .record({
      ready: fc.uniqueArray(endpointAddress, { maxLength: 3 }),
      notReady: fc.uniqueArray(loopbackAddress, { maxLength: 2 }),
      portSeeds: fc.array(backendPortSeed, { minLength: ports.length, maxLength: ports.length }),
    })
    .map(
      (e): Endpoints => ({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: service.metadata.name },
        subsets: [
          {
            addresses: e.ready.map((ip) => ({ ip })),
            notReadyAddresses: e.notReady.map((ip) => ({ ip })),
            ports: ports.map((port, i) => ({
              ...field('name', port.name),
              port: backendPortOf(port, e.portSeeds[i] ?? 8080),
              protocol: 'TCP',
            })),
          },
        ],
      }),
    );
}

interface ServiceWithEndpoints {
  service: Service;
  endpointSlices: EndpointSlice[];
  endpoints: Endpoints[];
}

function serviceWithEndpointsArbitrary(name: string): fc.Arbitrary<ServiceWithEndpoints> {
  return serviceArbitrary(name).chain((service) =>
    fc.record({
      service: fc.constant(service),
      endpointSlices: fc
        .integer({ min: 0, max: 2 })
        .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => endpointSliceArbitrary(service, i)))),
      endpoints: fc.oneof(
        { arbitrary: fc.constant<Endpoints[]>([]), weight: 3 },
        { arbitrary: legacyEndpointsArbitrary(service).map((e) => [e]), weight: 1 },
      ),
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Secrets

function secretArbitrary(name: string, certs: CertPool): fc.Arbitrary<Secret> {
  const material = fc.oneof(
    { arbitrary: fc.constantFrom(...certs.valid), weight: 4 },
    { arbitrary: fc.constantFrom(...certs.broken), weight: 1 },
  );
  return fc
    .record({
      material,
      type: fc.oneof(
        { arbitrary: fc.constant('kubernetes.io/tls'), weight: 10 },
        { arbitrary: fc.constantFrom('Opaque', undefined), weight: 1 }, // wrong type: SecretInvalid
      ),
      shape: fc.oneof(
        { arbitrary: fc.constant('plain' as const), weight: 10 },
        { arbitrary: fc.constant('wrapped-base64' as const), weight: 1 }, // base64 folded over lines
        { arbitrary: fc.constant('missing-key' as const), weight: 1 },
        { arbitrary: fc.constant('not-base64' as const), weight: 1 },
      ),
    })
    .map(({ material: m, type, shape }): Secret => {
      let crt = toBase64(m.certPem);
      let key: string | undefined = toBase64(m.keyPem);
      if (shape === 'wrapped-base64') {
        crt = crt.replace(/.{1,76}/g, '$&\n');
        key = key.replace(/.{1,76}/g, '$&\n');
      } else if (shape === 'missing-key') key = undefined;
      else if (shape === 'not-base64') crt = `${m.certPem}`;
      return {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        ...field('type', type),
        data: { 'tls.crt': crt, ...field('tls.key', key) },
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Ingresses

/** A backend that usually resolves against `services` (when there are any) and sometimes does not. */
function backendArbitrary(services: readonly Service[]): fc.Arbitrary<IngressBackend> {
  const resolvable = services.flatMap((s) =>
    (s.spec?.ports ?? []).flatMap((p) => [
      { service: { name: s.metadata.name, port: { number: p.port } } },
      ...(p.name === undefined ? [] : [{ service: { name: s.metadata.name, port: { name: p.name } } }]),
    ]),
  );
  const byNumber = fc
    .record({
      name: fc.constantFrom(...serviceNames, missingServiceName),
      port: fc.oneof(
        { arbitrary: fc.constantFrom(...servicePortNumbers), weight: 12 },
        { arbitrary: fc.constantFrom(...outOfRangePorts), weight: 1 }, // ServicePortNotFound
      ),
    })
    .map(({ name, port }): IngressBackend => ({ service: { name, port: { number: port } } }));
  const byName = fc
    .record({ name: fc.constantFrom(...serviceNames), port: fc.constantFrom(...portNames) })
    .map(({ name, port }): IngressBackend => ({ service: { name, port: { name: port } } }));
  const withoutPort: IngressBackend = { service: { name: 'web' } }; // ServicePortNotFound
  const resource: IngressBackend = { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } };
  const anything: fc.Arbitrary<IngressBackend> = fc.oneof(
    { arbitrary: byNumber, weight: 4 },
    { arbitrary: byName, weight: 2 },
    { arbitrary: fc.constantFrom(withoutPort, resource), weight: 1 },
  );
  if (resolvable.length === 0) return anything;
  return fc.oneof({ arbitrary: fc.constantFrom(...resolvable), weight: 4 }, { arbitrary: anything, weight: 1 });
}

function httpPathArbitrary(services: readonly Service[]): fc.Arbitrary<HTTPIngressPath> {
  return fc
    .record({ path: pathArbitrary, pathType: pathTypeArbitrary, backend: backendArbitrary(services) })
    .map((p) => ({ ...field('path', p.path), ...field('pathType', p.pathType), backend: p.backend }));
}

function ruleArbitrary(services: readonly Service[]): fc.Arbitrary<IngressRule> {
  return fc
    .record({
      host: sometimesAbsent(hostArbitrary, 4),
      paths: fc.array(httpPathArbitrary(services), { minLength: 1, maxLength: 4 }),
      withoutHttp: fc.oneof({ arbitrary: fc.constant(false), weight: 15 }, { arbitrary: fc.constant(true), weight: 1 }),
    })
    .map((r) => ({ ...field('host', r.host), ...(r.withoutHttp ? {} : { http: { paths: r.paths } }) }));
}

function tlsEntryArbitrary(ruleHosts: readonly string[]): fc.Arbitrary<IngressTLS> {
  // Mostly hosts the rules name, sometimes others (a TLS host without rules serves the catch-all's routes).
  const ruleHost = ruleHosts.length > 0 ? fc.constantFrom(...ruleHosts) : hostArbitrary;
  const tlsHost = fc.oneof({ arbitrary: ruleHost, weight: 3 }, { arbitrary: hostArbitrary, weight: 1 });
  return fc
    .record({
      hosts: fc.oneof(
        { arbitrary: fc.uniqueArray(tlsHost, { minLength: 1, maxLength: 3 }), weight: 10 },
        { arbitrary: fc.constant<string[]>([]), weight: 1 }, // no hosts: UnsupportedTls
      ),
      secretName: fc.oneof(
        { arbitrary: fc.constantFrom(...secretNames), weight: 10 },
        { arbitrary: fc.constantFrom('tls-missing', undefined), weight: 1 },
        { arbitrary: fc.constantFrom('team-0/tls-a', 'kube-system/tls-b'), weight: 1 }, // SecretNamespaceRefused
      ),
    })
    .map((e) => ({ ...(e.hosts.length > 0 ? { hosts: e.hosts } : {}), ...field('secretName', e.secretName) }));
}

const ingressClassNameArbitrary: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant(ourClassName), weight: 12 },
  { arbitrary: fc.constant(ourSecondClassName), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 3 }, // ours only where our class is the default (or by annotation)
  { arbitrary: fc.constantFrom(otherClassName, 'no-such-class'), weight: 2 },
);

/**
 * Huge annotation values (the API server allows 256 KiB of annotations per object): one of ours far too long to
 * be valid, or long values that look valid (a 10 KB rewrite prefix, a 300-byte SNI, thousands of CIDRs or
 * origins, a 100 KB header value), which must never reach Envoy in a form it refuses.
 */
const hugeAnnotations: readonly Record<string, string>[] = [
  { 'envoy-ingress.io/ssl-redirect': 'x'.repeat(200_000) },
  { 'envoy-ingress.io/request-timeout': '9'.repeat(400) },
  { 'envoy-ingress.io/retry-count': '9'.repeat(30) },
  { 'envoy-ingress.io/rewrite-prefix': `/${'p'.repeat(10_000)}` },
  { 'envoy-ingress.io/backend-protocol': 'https', 'envoy-ingress.io/backend-sni': `${'s'.repeat(60)}.`.repeat(5) + 'example.com' },
  { 'envoy-ingress.io/load-balancer': 'ring-hash', 'envoy-ingress.io/hash-by': `header:${'h'.repeat(10_000)}` },
  { 'envoy-ingress.io/allowed-source-cidrs': Array.from({ length: 3000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`).join(',') },
  { 'envoy-ingress.io/cors-allow-origins': Array.from({ length: 2000 }, (_, i) => `https://o${i}.example.com`).join(',') },
  { 'envoy-ingress.io/request-headers-set': `x-big: ${'v'.repeat(100_000)}` },
  { 'envoy-ingress.io/response-headers-set': Array.from({ length: 500 }, (_, i) => `x-h${i}: v`).join('\n') },
  { 'envoy-ingress.io/max-request-body-size': '9'.repeat(50) },
];

const annotationsArbitrary: fc.Arbitrary<Record<string, string> | undefined> = fc
  .record({
    sslRedirect: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 6 },
      { arbitrary: fc.constantFrom('true', 'false'), weight: 4 },
      { arbitrary: fc.constantFrom('False', 'yes', ''), weight: 1 }, // InvalidAnnotation
    ),
    legacyClass: rarely(fc.constantFrom(ourClassName, otherClassName), 6),
    huge: rarely(fc.constantFrom(...hugeAnnotations), 8),
    unrelated: rarely(fc.constant('value'), 4),
  })
  .map((a) => {
    const annotations: Record<string, string> = {
      ...field('envoy-ingress.io/ssl-redirect', a.sslRedirect),
      ...field('kubernetes.io/ingress.class', a.legacyClass),
      ...field('example.com/owner', a.unrelated),
      ...(a.huge ?? {}),
    };
    return Object.keys(annotations).length > 0 ? annotations : undefined;
  });

function ingressArbitrary(name: string, services: readonly Service[]): fc.Arbitrary<Ingress> {
  return fc
    .record({
      creationTimestamp: fc.constantFrom(...creationTimestamps),
      annotations: annotationsArbitrary,
      ingressClassName: ingressClassNameArbitrary,
      defaultBackend: rarely(backendArbitrary(services), 5),
      rules: fc.array(ruleArbitrary(services), { minLength: 0, maxLength: 3 }),
    })
    .chain((i) => {
      const ruleHosts = i.rules.flatMap((r) => (r.host === undefined ? [] : [r.host]));
      return fc
        .oneof(
          { arbitrary: fc.constant([] as IngressTLS[]), weight: 2 },
          { arbitrary: fc.array(tlsEntryArbitrary(ruleHosts), { minLength: 1, maxLength: 2 }), weight: 1 },
        )
        .map((tls): Ingress => {
          const spec: NonNullable<Ingress['spec']> = {
            ...field('ingressClassName', i.ingressClassName),
            ...field('defaultBackend', i.defaultBackend),
          };
          if (i.rules.length > 0) spec.rules = i.rules;
          if (tls.length > 0) spec.tls = tls;
          return {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'Ingress',
            metadata: {
              name,
              ...field('creationTimestamp', i.creationTimestamp),
              ...field('annotations', i.annotations),
            },
            spec,
          };
        });
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Combinations and cluster states

/** The objects of one namespace; their metadata.namespace is set by placeInNamespace(). */
export interface Combination {
  ingresses: Ingress[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  endpoints: Endpoints[];
  secrets: Secret[];
}

export function combinationArbitrary(certs: CertPool): fc.Arbitrary<Combination> {
  return fc
    .record({
      services: fc
        .subarray([...serviceNames], { minLength: 0, maxLength: 3 })
        .chain((names) => fc.tuple(...names.map(serviceWithEndpointsArbitrary))),
      secrets: fc
        .subarray([...secretNames], { minLength: 0, maxLength: 3 })
        .chain((names) => fc.tuple(...names.map((name) => secretArbitrary(name, certs)))),
      ingressCount: fc.integer({ min: 1, max: 3 }),
    })
    .chain(({ services, secrets, ingressCount }) => {
      const plainServices = services.map((s) => s.service);
      return fc
        .tuple(...Array.from({ length: ingressCount }, (_, i) => ingressArbitrary(`ingress-${i}`, plainServices)))
        .map(
          (ingresses): Combination => ({
            ingresses,
            services: plainServices,
            endpointSlices: services.flatMap((s) => s.endpointSlices),
            endpoints: services.flatMap((s) => s.endpoints),
            secrets,
          }),
        );
    });
}

/** A copy of the combination with every object in `namespace`. */
export function placeInNamespace(combination: Combination, namespace: string): Combination {
  const place = <T extends { metadata: { name: string } }>(object: T): T => ({
    ...object,
    metadata: { ...object.metadata, namespace },
  });
  return {
    ingresses: combination.ingresses.map(place),
    services: combination.services.map(place),
    endpointSlices: combination.endpointSlices.map(place),
    endpoints: combination.endpoints.map(place),
    secrets: combination.secrets.map(place),
  };
}

/** IngressClasses of a cluster: ours (sometimes the default class), a second one of ours, another controller's. */
export function ingressClasses(controllerName: string, ourClassIsDefault: boolean): IngressClass[] {
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: {
        name: ourClassName,
        ...(ourClassIsDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}),
      },
      spec: { controller: controllerName },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: ourSecondClassName },
      spec: { controller: controllerName },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: otherClassName },
      spec: { controller: 'k8s.io/ingress-nginx' },
    },
  ];
}

export interface GeneratedClusterState {
  state: ClusterState;
  /** How many combinations (namespaces) it holds. */
  combinations: number;
}

/**
 * A ClusterState of `combinations` combinations, each in its own namespace (`team-0`, `team-1`, ...), so shared
 * hosts meet across namespaces. `controllerName` is the one the translator is configured with.
 */
export function clusterStateArbitrary(
  certs: CertPool,
  options: { combinations: number; controllerName: string },
): fc.Arbitrary<GeneratedClusterState> {
  return fc
    .record({
      combinations: fc.array(combinationArbitrary(certs), {
        minLength: options.combinations,
        maxLength: options.combinations,
      }),
      ourClassIsDefault: fc.boolean(),
    })
    .map(({ combinations, ourClassIsDefault }) => {
      const placed = combinations.map((c, i) => placeInNamespace(c, `team-${i}`));
      const state: ClusterState = {
        ingresses: placed.flatMap((c) => c.ingresses),
        ingressClasses: ingressClasses(options.controllerName, ourClassIsDefault),
        services: placed.flatMap((c) => c.services),
        endpointSlices: placed.flatMap((c) => c.endpointSlices),
        endpoints: placed.flatMap((c) => c.endpoints),
        secrets: placed.flatMap((c) => c.secrets),
      };
      return { state, combinations: placed.length };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Controller options

/** The options a user can set on the command line that shape the generated config. */
export interface PipelineOptions {
  httpsRedirectPort: number;
  notFoundPage: string;
  listenAddress: string;
  /** --allow-external-name: ExternalName Services become DNS clusters (unless their target is refused). */
  allowExternalName: boolean;
}

/** A 404 page over Envoy's default 4 KiB direct-response limit (about 6 KiB), with multi-byte characters. */
const largeNotFoundPage = [
  '<!DOCTYPE html><html><body><h1>Introuvable – 404</h1>',
  '<p>Ça n’existe pas ✗</p>\n'.repeat(200),
  '</body></html>',
].join('');

export const pipelineOptionsArbitrary: fc.Arbitrary<PipelineOptions> = fc.record({
  httpsRedirectPort: fc.constantFrom(443, 443, 8443, 1, 65535),
  notFoundPage: fc.oneof(
    { arbitrary: fc.constant(largeNotFoundPage), weight: 2 }, // half the batches: a run of 10 sees it surely
    { arbitrary: fc.constant(defaultNotFoundPage), weight: 1 },
    { arbitrary: fc.constantFrom('', 'not found\n'), weight: 1 },
  ),
  listenAddress: fc.constantFrom('0.0.0.0', '0.0.0.0', '127.0.0.1', '::'),
  allowExternalName: fc.boolean(),
});
