// Property test of the whole pure pipeline against the real Envoy: hundreds of generated combinations of
// Ingresses, Services, endpoints and Secrets (test/generators/kube-arbitraries.ts), batched into cluster states
// whose namespaces share hosts, go through buildConfig; every batch must give strictly encodable resources that
// reference each other consistently, the same output twice without touching its input, and a static bootstrap
// that `envoy --mode validate` accepts. The seed is printed; PROPERTY_SEED=<n> replays a run.
import { PrivateKey } from '../ir/index.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { buildConfig, type BuiltConfig } from '../controller/pipeline/build-config.js';
import type { ClusterState, Secret } from '../controller/translate/shared/kube-objects.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { Reason } from '../controller/translate/shared/reasons.js';
import { validateTlsSecret } from '../controller/translate/shared/tls-secret.js';
import { buildResources } from '../envoy/build-resources.js';
import type { EnvoyOptions, EnvoyResources, ResourceJson } from '../envoy/resource-types.js';
import { inlineIntoStaticBootstrap } from '../envoy/static-bootstrap.js';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { encodeAny } from '../proto/proto-json.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import {
  type CertPool,
  type PipelineOptions,
  type TlsMaterial,
  clusterStateArbitrary,
  createCertPool,
  pipelineOptionsArbitrary,
} from './generators/kube-arbitraries.js';
import { limiter } from './harness/limiter.js';
import { ingressPairIR } from '../envoy/test-helpers/ingress-pair-ir.js';

const defaultSeed = 20_240_611;
const batchCount = 10;
const combinationsPerBatch = 50;
/** Envoy validations at a time, across this file's tests: each is a process on a 2-core machine. */
const envoyParallelism = 2;

const withEnvoySlot = limiter(envoyParallelism);

function seedFromEnvironment(): number {
  const raw = process.env['PROPERTY_SEED'];
  if (raw === undefined || raw.trim() === '') return defaultSeed;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed | 0; // fast-check seeds are 32-bit
}

const seed = seedFromEnvironment();
const envoyOptions: EnvoyOptions = { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443 };
type BuildOptions = Parameters<typeof buildConfig>[1];

function buildOptionsOf(pipeline: PipelineOptions): BuildOptions {
  const { httpsRedirectPort, notFoundPage, listenAddress, allowExternalName } = pipeline;
  return {
    translate: { ...defaultTranslateOptions, httpsRedirectPort, notFoundPage, allowExternalName },
    envoy: { ...envoyOptions, listenAddress },
  };
}

interface Batch {
  index: number;
  combinations: number;
  /** Deep-frozen: writing to it throws. */
  state: ClusterState;
  /** A copy taken before freezing, to prove the state is unchanged afterwards. */
  original: ClusterState;
  options: BuildOptions;
  config: BuiltConfig;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

let certs: CertPool;
let batches: Batch[];

test.before(async () => {
  const line = `property-validate: seed ${seed} (replay with PROPERTY_SEED=${seed})`;
  console.log(line);
  certs = await createCertPool();
  const arbitrary = clusterStateArbitrary(certs, {
    combinations: combinationsPerBatch,
    controllerName: defaultTranslateOptions.controllerName,
  });
  const samples = fc.sample(fc.tuple(arbitrary, pipelineOptionsArbitrary), { seed, numRuns: batchCount });
  batches = samples.map(([generated, pipeline], index) => {
    const original = structuredClone(generated.state);
    const state = deepFreeze(generated.state);
    const options = buildOptionsOf(pipeline);
    let config: BuiltConfig;
    try {
      // A frozen input makes any write inside the pipeline throw here, in strict-mode code.
      config = buildConfig(state, options);
    } catch (error) {
      throw new Error(`buildConfig threw on seed ${seed}, batch ${index}: ${String(error)}`, { cause: error });
    }
    return { index, combinations: generated.combinations, state, original, options, config };
  });
});

function seedNote(batch: Batch): string {
  return `seed ${seed}, batch ${batch.index} (replay with PROPERTY_SEED=${seed})`;
}

/**
 * Keeps a failing batch's input and bootstrap on disk so it can be replayed and bisected by hand with the command
 * it returns (the CLI fills in absent creation timestamps, so conflicts between such objects may settle otherwise).
 */
function keepForInspection(batch: Batch, bootstrap: ResourceJson): string {
  const dir = mkdtempSync(path.join(tmpdir(), `property-validate-${seed}-${batch.index}-`));
  mkdirSync(path.join(dir, 'manifests'));
  const objects = [
    ...batch.original.ingressClasses,
    ...batch.original.ingresses,
    ...batch.original.services,
    ...batch.original.endpointSlices,
    ...batch.original.endpoints,
    ...batch.original.secrets,
  ];
  const manifest = objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
  writeFileSync(path.join(dir, 'manifests', 'objects.yaml'), manifest);
  writeFileSync(path.join(dir, 'bootstrap.json'), JSON.stringify(bootstrap, null, 2));
  const notFoundPage = path.join(dir, 'not-found.html');
  writeFileSync(notFoundPage, batch.options.translate.notFoundPage);
  const flags = [
    `--manifests ${path.join(dir, 'manifests')}`,
    `--https-redirect-port ${batch.options.translate.httpsRedirectPort}`,
    `--not-found-page ${notFoundPage}`,
    `--listen-address ${batch.options.envoy.listenAddress}`,
    ...(batch.options.translate.allowExternalName === true ? ['--allow-external-name'] : []),
  ];
  return `${dir} (replay: node dist/cli/main.js validate ${flags.join(' ')})`;
}

function asObjects(value: unknown): ResourceJson[] {
  return Array.isArray(value) ? (value as ResourceJson[]) : [];
}

function asObject(value: unknown): ResourceJson {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ResourceJson) : {};
}

/** Every way one generated resource points at another, checked against what exists. */
function dangling(resources: EnvoyResources): string[] {
  const problems: string[] = [];
  const clusters = new Set(resources.clusters.map((c) => c.name));
  const routeConfigurations = new Set(resources.routeConfigurations.map((r) => r.name));
  const secrets = new Set(resources.secrets.map((s) => s.name));
  const assignments = new Set(resources.clusterLoadAssignments.map((a) => a.name));

  for (const { name, resource } of resources.routeConfigurations) {
    for (const vhost of asObjects(resource['virtual_hosts'])) {
      for (const route of asObjects(vhost['routes'])) {
        const cluster = asObject(route['route'])['cluster'];
        if (typeof cluster === 'string' && !clusters.has(cluster)) {
          problems.push(`route ${String(route['name'])} in ${name} forwards to missing cluster ${cluster}`);
        }
      }
    }
  }
  for (const cluster of clusters) {
    if (!assignments.has(cluster)) problems.push(`cluster ${cluster} has no ClusterLoadAssignment`);
  }
  for (const { name, resource } of resources.clusterLoadAssignments) {
    if (!clusters.has(name)) problems.push(`ClusterLoadAssignment ${name} has no cluster`);
    if (resource['cluster_name'] !== name) {
      problems.push(`ClusterLoadAssignment ${name} names ${String(resource['cluster_name'])}`);
    }
  }
  for (const { name, resource } of resources.listeners) {
    for (const chain of asObjects(resource['filter_chains'])) {
      for (const filter of asObjects(chain['filters'])) {
        const rds = asObject(asObject(filter['typed_config'])['rds'])['route_config_name'];
        if (typeof rds === 'string' && !routeConfigurations.has(rds)) {
          problems.push(`listener ${name} uses missing RouteConfiguration ${rds}`);
        }
      }
      const tls = asObject(asObject(asObject(chain['transport_socket'])['typed_config'])['common_tls_context']);
      for (const sds of asObjects(tls['tls_certificate_sds_secret_configs'])) {
        if (typeof sds['name'] !== 'string' || !secrets.has(sds['name'])) {
          problems.push(`listener ${name} chain ${String(chain['name'])} uses missing secret ${String(sds['name'])}`);
        }
      }
    }
  }
  return problems;
}

function encodingProblems(resources: EnvoyResources): string[] {
  const problems: string[] = [];
  for (const [type, list] of Object.entries(resources)) {
    for (const { name, resource } of list as EnvoyResources['clusters']) {
      try {
        encodeAny(resource);
      } catch (error) {
        problems.push(`${type} ${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return problems;
}

function tlsSecretOf(material: TlsMaterial): Secret {
  return {
    kind: 'Secret',
    metadata: { name: 'pool', namespace: 'default' },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(material.certPem).toString('base64'),
      'tls.key': Buffer.from(material.keyPem).toString('base64'),
    },
  };
}

/** A bootstrap serving one TLS host with the given certificate. */
function bootstrapWithCertificate(material: { certPem: string; keyPem: string }): ResourceJson {
  const host = 'tls.example.com';
  const routeTable = { name: `https/${host}`, virtualHosts: [{ name: host, hostnames: [host], routes: [] }] };
  const resources = buildResources(
    ingressPairIR({
      http: { name: 'http', virtualHosts: [{ name: '*', hostnames: ['*'], routes: [] }] },
      tlsServers: [{ name: `https/${host}`, serverNames: [host], secret: 'default/pool', routeTable }],
      clusters: [],
      secrets: [
        { name: 'default/pool', certificateChain: material.certPem, privateKey: new PrivateKey(material.keyPem) },
      ],
    }),
    [],
    envoyOptions,
  );
  return inlineIntoStaticBootstrap(resources);
}

// What the translator accepts, Envoy loads as the translator passes it on; what it rejects, Envoy would refuse
// too (given as is), so no Secret takes down the HTTPS listener and none is refused without need.
test('the translator accepts exactly the certificates of the pool that Envoy loads', async (t) => {
  t.true(certs.valid.length >= 10);
  t.true(certs.broken.length >= 10);
  const envoyBin = await findEnvoyBinary();
  const pool = [...certs.valid.map((m) => ({ m, usable: true })), ...certs.broken.map((m) => ({ m, usable: false }))];
  const verdicts = await Promise.all(
    pool.map(async ({ m, usable }) => {
      const translated = validateTlsSecret(tlsSecretOf(m));
      const given = translated.valid
        ? { certPem: translated.secret.certificateChain, keyPem: translated.secret.privateKey.reveal() }
        : m;
      const envoy = await withEnvoySlot(() => validateWithEnvoy(bootstrapWithCertificate(given), { envoyBin }));
      return { m, usable, translator: translated.valid, envoy };
    }),
  );
  for (const { m, usable, translator, envoy } of verdicts) {
    t.is(translator, usable, `translator on ${m.label}`);
    t.is(envoy.ok, usable, `Envoy on ${m.label}: ${envoy.output}`);
  }
});

test('the generated batches reach the awkward cases', (t) => {
  t.is(batches.length, batchCount);
  const reasons = new Set(batches.flatMap((b) => b.config.translation.diagnostics.map((d) => d.reason)));
  // The kinds of problem the generator aims at (the translator may know more).
  const aimedAt = [
    Reason.InvalidHost,
    Reason.InvalidPath,
    Reason.RuleConflict,
    Reason.DefaultBackendConflict,
    Reason.ServiceNotFound,
    Reason.ServicePortNotFound,
    Reason.UnsupportedBackend,
    Reason.SecretNotFound,
    Reason.SecretInvalid,
    Reason.TlsConflict,
    Reason.UnsupportedTls,
    Reason.InvalidAnnotation,
    Reason.SecretNamespaceRefused,
    Reason.CertificateHostMismatch,
    Reason.ExternalNameRefused,
  ];
  for (const reason of aimedAt) t.true(reasons.has(reason), `no batch produced ${reason}`);
  const all = batches.map((b) => b.config.resources);
  const withHttps = all.filter((r) => r.listeners.length === 2).length;
  t.true(withHttps >= batchCount * 0.8, `only ${withHttps} batches have an https listener`);
  const count = (key: keyof EnvoyResources): number => all.reduce((n, r) => n + r[key].length, 0);
  t.true(count('secrets') >= batchCount * 2, `only ${count('secrets')} secrets`);
  t.true(count('clusters') >= batchCount * 5, `only ${count('clusters')} clusters`);
  const assignments = all.flatMap((r) => r.clusterLoadAssignments.map((a) => a.resource));
  t.true(assignments.some((a) => a['endpoints'] === undefined), 'some cluster has no endpoints');
  t.true(assignments.some((a) => a['endpoints'] !== undefined), 'some cluster has endpoints');
  // Shapes that once made Envoy reject a whole batch: wildcard hosts over 100 characters, 404 pages over 4 KiB.
  const domains = all.flatMap((r) =>
    r.routeConfigurations.flatMap((c) => asObjects(c.resource['virtual_hosts']).flatMap((v) => v['domains'])),
  );
  t.true(domains.some((d) => typeof d === 'string' && d.startsWith('*.') && d.length > 100), 'long wildcard host');
  const addresses = batches.flatMap((b) => [
    ...b.state.endpointSlices.flatMap((slice) => (slice.endpoints ?? []).flatMap((e) => e.addresses)),
    ...b.state.endpoints.flatMap((e) => (e.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip))),
  ]);
  t.true(addresses.some((address) => isIP(address) === 0), 'an endpoint address that is not an IP');
  const pages = batches.map((b) => Buffer.byteLength(b.options.translate.notFoundPage));
  t.true(pages.some((bytes) => bytes > 4096), '404 page over 4 KiB');
  // Invalid objects of every kind the generator makes reach the pipeline (and so Envoy's validation).
  const servedAnnotationSizes = batches.flatMap((b) => {
    const served = new Set(b.config.translation.servedIngresses.map((r) => `${r.namespace}/${r.name}`));
    return b.state.ingresses
      .filter((i) => served.has(`${i.metadata.namespace ?? 'default'}/${i.metadata.name}`))
      .map((i) => Object.values(i.metadata.annotations ?? {}).reduce((n, v) => n + v.length, 0));
  });
  t.true(servedAnnotationSizes.some((n) => n > 50_000), 'a served Ingress with a huge annotation');
  const clusterTypes = all.flatMap((r) => r.clusters.map((c) => c.resource['type']));
  t.true(clusterTypes.includes('STRICT_DNS'), 'an ExternalName Service served as a DNS cluster');
  const paths = batches.flatMap((b) =>
    b.state.ingresses.flatMap((i) => (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.path))),
  );
  t.true(paths.some((p) => p !== undefined && /[[\]^{}|]/.test(p)), 'a regex path that must be refused');
  t.true(paths.some((p) => p !== undefined && p.includes('(')), 'a regex-like path taken literally');
  const backendPorts = batches.flatMap((b) =>
    b.state.ingresses.flatMap((i) =>
      (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.backend.service?.port?.number)),
    ),
  );
  t.true(backendPorts.some((n) => n !== undefined && (n < 1 || n > 65535)), 'a backend port out of range');
  const served = batches.map((b) => b.config.translation.servedIngresses.length);
  const ingresses = batches.map((b) => b.state.ingresses.length);
  t.true(served.every((n, i) => n > 0 && n < (ingresses[i] ?? 0)), 'some Ingresses are ours, some are not');
});

test('every batch: resources encode strictly, references resolve, output is deterministic, input untouched', (t) => {
  for (const batch of batches) {
    const { resources } = batch.config;
    t.deepEqual(encodingProblems(resources), [], seedNote(batch));
    t.deepEqual(dangling(resources), [], seedNote(batch));
    // The IR agrees with the resources: each IR cluster and secret became exactly one resource.
    t.deepEqual(resources.clusters.map((c) => c.name), batch.config.translation.ir.clusters.map((c) => c.name));
    t.deepEqual(resources.secrets.map((s) => s.name), batch.config.translation.ir.secrets.map((s) => s.name));
    const again = buildConfig(batch.state, batch.options);
    t.deepEqual(again, batch.config, `buildConfig is not deterministic; ${seedNote(batch)}`);
    // PrivateKey hides its PEM from deepEqual; the resources carry it in the clear.
    t.is(JSON.stringify(again.resources), JSON.stringify(batch.config.resources));
    t.deepEqual(batch.state, batch.original, `buildConfig changed its input; ${seedNote(batch)}`);
  }
});

test('Envoy accepts the static bootstrap of every batch', async (t) => {
  const envoyBin = await findEnvoyBinary();
  const results = await Promise.all(
    batches.map(async (batch) => {
      const bootstrap = inlineIntoStaticBootstrap(batch.config.resources);
      return { batch, bootstrap, result: await withEnvoySlot(() => validateWithEnvoy(bootstrap, { envoyBin })) };
    }),
  );
  const combinations = batches.reduce((sum, b) => sum + b.combinations, 0);
  const byReason = new Map<string, number>();
  for (const d of batches.flatMap((b) => b.config.translation.diagnostics)) {
    byReason.set(d.reason, (byReason.get(d.reason) ?? 0) + 1);
  }
  const diagnostics = [...byReason.values()].reduce((a, b) => a + b, 0);
  const reasons = [...byReason.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([r, n]) => `${r} ${n}`);
  const totals = (key: keyof EnvoyResources): number => batches.reduce((n, b) => n + b.config.resources[key].length, 0);
  const accepted = results.filter((r) => r.result.ok).length;
  const summary =
    `property-validate: ${combinations} combinations in ${batches.length} bootstraps ` +
    `${accepted === batches.length ? 'accepted by Envoy' : `(${batches.length - accepted} REJECTED by Envoy)`}; ` +
    `${diagnostics} diagnostics (${reasons.join(', ')}); ` +
    `${totals('routeConfigurations')} route configurations, ${totals('clusters')} clusters, ` +
    `${totals('secrets')} secrets; seed ${seed}`;
  t.log(summary);
  console.log(summary);

  const rejections = results
    .filter(({ result }) => !result.ok)
    .map(({ batch, bootstrap, result }) => {
      const kept = keepForInspection(batch, bootstrap);
      return `Envoy rejected ${seedNote(batch)}; input and bootstrap kept in ${kept}\n${result.output}`;
    });
  t.true(rejections.length === 0, rejections.join('\n\n'));
});
