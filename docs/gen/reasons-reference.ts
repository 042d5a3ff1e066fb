// The reference of Event and diagnostic reasons: the stable reason strings of the translator
// (controller/translate/shared/reasons.ts, with the doc comment each carries) and of the Service-Ingress manager, each
// with its severity and a message from the golden case that produces it (testdata/translate/).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ServiceIngressReason } from '../../controller/service-ingress/plan.js';
import { GatewayReason, Reason } from '../../controller/translate/shared/reasons.js';
import { cell, code, page, table } from './markdown.js';

/** What a reason means, for those whose declaration in reasons.ts has no doc comment of its own. */
const meanings: Readonly<Record<string, string>> = {
  InvalidHost: 'A rule host, or a host of a `tls` entry, is not a valid DNS name or one-label wildcard; that rule or entry is left out.',
  InvalidPath: 'A path is not valid for its pathType (or, with the ingress-nginx layer, a regex RE2 refuses or that is too large); that path is left out.',
  RuleConflict: 'Two Ingresses claim the same host, path and pathType: the older one (creation timestamp, then namespace/name) wins, the other gets this naming the winner.',
  DefaultBackendConflict: 'Several Ingresses have a `spec.defaultBackend`: the oldest wins.',
  ServiceNotFound: 'A backend names a Service that does not exist in the Ingress\'s namespace; its path answers 503.',
  ServicePortNotFound: 'A backend names a port the Service does not have; its path answers 503.',
  UnsupportedBackend: 'A `resource` backend (or another kind this controller does not serve); its path answers 503.',
  SecretNotFound: 'A Secret the Ingress names (in a `tls` entry, or an auth Secret of the ingress-nginx layer) does not exist.',
  SecretInvalid: 'A Secret the Ingress names cannot be used as it is: a TLS Secret whose certificate and key do not parse or match, an auth Secret without its `auth` htpasswd data.',
  TlsConflict: 'Two Ingresses give the same TLS host different Secrets: the older one wins.',
  UnsupportedTls: 'A `tls` entry this controller cannot serve as written (the message says what is served instead).',
  InvalidAnnotation: 'An annotation value is not in the accepted form; the message names the annotation and the form, and only that setting falls back to its default.',
  IngressNameTaken: '`--manage-service-ingress`: an Ingress of the Service\'s name exists and the Service does not own it; it is never touched.',
  InvalidGeneratedHost: '`--manage-service-ingress`: the host made from `--service-ingress-host` for this Service is not a valid DNS name.',
  ServiceHasNoPorts: '`--manage-service-ingress`: the annotated Service has no port to route to.',
  IngressManagementFailed: '`--manage-service-ingress`: the API server refused to create, update or delete the Ingress.',
};

/** Doc comments of reasons.ts, by reason: the comment right above each `Name: 'Name'` line. */
function docComments(repoRoot: string): Map<string, string> {
  const source = readFileSync(path.join(repoRoot, 'controller/translate/shared/reasons.ts'), 'utf8');
  const out = new Map<string, string>();
  for (const m of source.matchAll(/\/\*\*([\s\S]*?)\*\/\s*\n\s*([A-Za-z]+):/g)) {
    out.set(m[2] ?? '', (m[1] ?? '').replace(/\n\s*\*\s?/g, ' ').trim());
  }
  return out;
}

interface GoldenDiagnostic {
  case: string;
  severity: string;
  message: string;
}

function goldenDiagnostics(repoRoot: string): Map<string, GoldenDiagnostic> {
  const dir = path.join(repoRoot, 'testdata/translate');
  const out = new Map<string, GoldenDiagnostic>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.out.yaml')).sort()) {
    const golden = parse(readFileSync(path.join(dir, file), 'utf8')) as { diagnostics?: { reason: string; severity: string; message: string }[] };
    for (const d of golden.diagnostics ?? []) {
      if (!out.has(d.reason)) out.set(d.reason, { case: file.slice(0, -'.out.yaml'.length), severity: d.severity, message: d.message });
    }
  }
  return out;
}

export function allReasons(): string[] {
  return [...Object.values(Reason), ...Object.values(GatewayReason), ...Object.values(ServiceIngressReason)];
}

export function reasonsReferencePage(repoRoot: string): string {
  const comments = docComments(repoRoot);
  const golden = goldenDiagnostics(repoRoot);
  const row = (reason: string): string[] => {
    const meaning = comments.get(reason) ?? meanings[reason];
    if (meaning === undefined) throw new Error(`reason ${reason} has no doc comment in reasons.ts and no meaning in docs/gen/reasons-reference.ts`);
    const example = golden.get(reason);
    return [
      code(reason),
      example?.severity ?? '',
      cell(meaning),
      example ? `${code(example.message)} (${code(`testdata/translate/${example.case}`)})` : '',
    ];
  };
  const header = ['Reason', 'Severity', 'Meaning', 'Example message (golden case)'];
  return page(
    '`controller/translate/shared/reasons.ts`, `controller/service-ingress/plan.ts` and the golden cases of `testdata/translate/`',
    'Events and diagnostics',
    'Every problem the controller finds is a diagnostic with a stable reason: a Kubernetes Event on the object (`kubectl describe ingress NAME`), ' +
      'a log line, the `envoy_ingress_diagnostics` metric (labels `reason`, `severity`), `envoy-ingress render` and `/debug/ui`. ' +
      'The reasons never change once released. A diagnostic never stops the rest of the Ingress from being served. ' +
      'Finding the cause of a 404 or 503: [Debugging](../guides/debugging.md).',
    `## The translator's (${Object.values(Reason).length})`,
    table(header, Object.values(Reason).map(row)),
    `## The Gateway API translator's (${Object.values(GatewayReason).length})`,
    'Reported on the Gateway or HTTPRoute concerned ([Gateway API](../guides/gateway-api.md)); the spec\'s condition reasons where one fits.',
    table(header, Object.values(GatewayReason).map(row)),
    `## The Service-Ingress manager's (${Object.values(ServiceIngressReason).length})`,
    'With `--manage-service-ingress`, a Service annotated `ingress/http: "true"` gets an Ingress; these are reported on the Service.',
    table(header, Object.values(ServiceIngressReason).map(row)),
  );
}
