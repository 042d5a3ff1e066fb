// Golden test cases: testdata/envoy/<case>.in.yaml (a DataPlaneIR, or the Ingress listeners' parts, its endpoints and
// optionally EnvoyOptions)
// and testdata/envoy/<case>.out.yaml (the EnvoyResources built from it, private keys redacted).
import { type ClusterEndpointsIR, type DataPlaneIR, PrivateKey, type TlsSecretIR } from '../../ir/index.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import type { EnvoyOptions, EnvoyResources } from '../resource-types.js';
import { type IngressPairParts, ingressPairIR } from './ingress-pair-ir.js';

export const defaultTestOptions: EnvoyOptions = { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443 };

export interface GoldenCase {
  name: string;
  outPath: string;
  ir: DataPlaneIR;
  endpoints: ClusterEndpointsIR[];
  options: EnvoyOptions;
}

/** testdata/envoy of the repository this file (in source or in dist/) belongs to. */
export function envoyTestdataDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'testdata', 'envoy'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find testdata/envoy');
    dir = parent;
  }
  return path.join(dir, 'testdata', 'envoy');
}

type FileSecrets = { secrets: (Omit<TlsSecretIR, 'privateKey'> & { privateKey: string })[] };

interface CaseFile {
  /** The IR with its listeners, or the Ingress pair's parts (ingress-pair-ir.ts) on the options' ports. */
  ir: (Omit<DataPlaneIR, 'secrets'> & FileSecrets) | (Omit<IngressPairParts, 'secrets'> & FileSecrets);
  endpoints?: ClusterEndpointsIR[];
  options?: EnvoyOptions;
}

/** Reads one `.in.yaml`; `privateKey: <pem>` becomes a PrivateKey. */
export function readCase(inPath: string): GoldenCase {
  const file = parse(readFileSync(inPath, 'utf8')) as CaseFile;
  const options = file.options ?? defaultTestOptions;
  const secrets = file.ir.secrets.map((s) => ({ ...s, privateKey: new PrivateKey(s.privateKey) }));
  const ir: DataPlaneIR = 'listeners' in file.ir ? { ...file.ir, secrets } : ingressPairIR({ ...file.ir, secrets }, { http: options.httpPort, https: options.httpsPort });
  return {
    name: path.basename(inPath, '.in.yaml'),
    outPath: inPath.replace(/\.in\.yaml$/, '.out.yaml'),
    ir,
    endpoints: file.endpoints ?? [],
    options,
  };
}

export function loadGoldenCases(): GoldenCase[] {
  const dir = envoyTestdataDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.in.yaml'))
    .sort()
    .map((f) => readCase(path.join(dir, f)));
}

/** EnvoyResources as golden YAML; private keys are replaced so no key (even a test one) is copied around. */
export function goldenYaml(resources: EnvoyResources): string {
  const copy = structuredClone(resources);
  for (const { resource } of copy.secrets) {
    const tlsCertificate = resource['tls_certificate'] as { private_key?: { inline_string?: string } } | undefined;
    if (tlsCertificate?.private_key?.inline_string !== undefined) {
      tlsCertificate.private_key.inline_string = '[redacted]';
    }
  }
  return stringify(copy, { lineWidth: 0 });
}
