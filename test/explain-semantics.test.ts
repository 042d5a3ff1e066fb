// explain against the semantics tables (test/semantics/*.yaml): every request row there is checked against a real
// Envoy by test/semantics.test.ts; here the same rows go through explain (pure, no Envoy), which must predict the
// same answer: the Service that answers, the status, the redirect location, or a refused TLS session.
import test from 'ava';
import { stringify } from 'yaml';
import { buildConfig } from '../controller/pipeline/build-config.js';
import { explain, type ExplainInput, type Explanation } from '../controller/explain.js';
import { clusterStateFromYaml } from '../controller/translate/shared/cluster-state-yaml.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { ingressClass } from './fixtures/manifests.js';
import {
  phasesOf,
  readCaseFile,
  secretOf,
  semanticsCaseFiles,
  serviceSpecOf,
  servicePortsOf,
  serviceWithLoopbackSlice,
  type CertificateSpec,
  type RequestRow,
  type ServiceSpec,
} from './fixtures/semantics-cases.js';
import { createTestCA, type IssuedCertificate, type TestCA } from './harness/test-certs.js';

const httpsPort = 8443;

/** Services and EndpointSlices as the semantics runner makes them (one ready endpoint per port). */
function serviceObjects(services: (string | ServiceSpec)[]): { objects: object[]; portNames: Map<string, Map<number, string>> } {
  const objects: object[] = [];
  const portNames = new Map<string, Map<number, string>>();
  let nextPort = 20000;
  for (const entry of services) {
    const spec = serviceSpecOf(entry);
    const ports = servicePortsOf(spec);
    portNames.set(`${spec.namespace ?? 'default'}/${spec.name}`, new Map(ports.length > 1 ? ports.map((p) => [p.port, p.name]) : []));
    objects.push(...serviceWithLoopbackSlice(spec, ports.map(() => nextPort++)));
  }
  return { objects, portNames };
}

/**
 * What explain predicts, in the table's terms: a Service name (`name` or `name:port-name`), a status, or
 * `tls-error` (no TLS session: no certificate for the SNI, or one the client, checking names, refuses).
 */
function predicted(e: Explanation, row: RequestRow, portNames: Map<string, Map<number, string>>): string | number {
  if (e.response.kind === 'reset') return 'tls-error';
  if (e.certificate?.coversSni === false && !row.skipNameCheck) return 'tls-error';
  if (e.response.kind === 'forward' && e.status === null) {
    const s = e.response.service!;
    const portName = portNames.get(`${s.namespace}/${s.name}`)?.get(s.port);
    return portName === undefined ? s.name : `${s.name}:${portName}`;
  }
  return e.status ?? -1;
}

for (const file of semanticsCaseFiles) {
  test(`explain predicts what Envoy answers: ${file}`, async (t) => {
    const spec = readCaseFile(file);
    const { objects: serviceObjs, portNames } = serviceObjects(spec.services);
    const ca: TestCA = await createTestCA();
    const issued = new Map<string, IssuedCertificate>();
    let certificates: CertificateSpec[] = [];
    let objects: object[] = [];
    let checked = 0;
    for (const phase of phasesOf(spec)) {
      if (phase.objects) objects = phase.objects;
      for (const c of phase.certificates ?? []) {
        issued.set(c.name, await ca.issue({ dnsNames: c.hosts }));
        certificates = [...certificates.filter((x) => x.name !== c.name), c];
      }
      const all = [...(spec.noDefaultClass ? [] : [ingressClass()]), ...serviceObjs, ...certificates.map((c) => secretOf(c, issued)), ...objects];
      const { state } = clusterStateFromYaml(all.map((o) => stringify(o)).join('---\n'));
      const built = buildConfig(state, {
        translate: { ...defaultTranslateOptions, httpsRedirectPort: httpsPort, ...spec.options },
        envoy: { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort },
      });
      const input: ExplainInput = { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics };
      for (const row of phase.requests) {
        const e = explain(input, { host: row.host, path: row.path, ...(row.scheme ? { scheme: row.scheme } : {}), ...(row.sni !== undefined ? { sni: row.sni } : {}) });
        const label = `${phase.title ?? spec.title}: ${row.scheme ?? 'http'}://${row.host}${row.path}${row.sni !== undefined ? ` (SNI ${JSON.stringify(row.sni)})` : ''} -> ${e.verdict}${row.note ? ` [${row.note}]` : ''}`;
        const externalName = e.response.kind === 'forward' && input.ir.clusters.find((c) => c.name === (e.response as { cluster: string }).cluster)?.externalName;
        if (typeof externalName === 'string' && e.status === null) {
          // Envoy resolves the name itself: whether it answers depends on DNS, which explain cannot see.
          t.log(`not predictable (DNS): ${label}`);
          continue;
        }
        t.is(predicted(e, row, portNames), row.expect, label);
        if (row.location !== undefined && e.response.kind === 'redirect') {
          t.is(e.response.location, row.location.replace('{httpsPort}', String(httpsPort)), label);
        }
        checked += 1;
      }
    }
    t.true(checked > 0);
  });
}
