// What would change for Ingresses written for ingress-nginx if this controller served them with
// --nginx-annotations: each nginx annotation's status (from the shared catalog, refined by what the compatibility
// layer actually does with the value) and each path whose matching differs. Pure: Ingresses in, report out.
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import { nginxAnnotationPrefix, nginxCatalogEntry, type NginxAnnotationStatus } from './catalog.js';
import { mapNginxAnnotations } from './nginx-annotations.js';
import { nginxRegexHosts } from './nginx-regex-hosts.js';
import { serviceOfUrlHost } from './url-cluster.js';
import { ruleHost } from '../ingress-rules.js';
import { parseRegexPath } from '../path-match-regex.js';
import { type ConfigMapReport, formatConfigMapReport } from './nginx-configmap-report.js';
import { namespaceOf } from '../../shared/kinds.js';
import { type HostOwner, hostOwners } from '../host-ownership.js';
import { compareByAge } from '../../shared/ordering.js';

export interface AnnotationFinding {
  annotation: string;
  value: string;
  status: NginxAnnotationStatus;
  equivalent?: string;
  note?: string;
  /** What a request gets here that it does not get from ingress-nginx (the catalog's differences). */
  differences?: string[];
}

/**
 * Matching rules where ingress-nginx and this controller differ, each from ingress-nginx's documentation
 * (https://kubernetes.github.io/ingress-nginx/user-guide/ingress-path-matching/) and nginx's location rules.
 */
export const RouteChangeRule = {
  /**
   * ImplementationSpecific (or no pathType) is an nginx prefix location in ingress-nginx: a character prefix, so
   * `/foo` also matches `/foobar`, and `/foo/` does not match `/foo`. Here it is an element-wise prefix like Prefix.
   */
  implementationSpecificPrefix: 'ImplementationSpecificPrefix',
  /**
   * A regex path (on a host where use-regex or rewrite-target makes every path a regex, as in ingress-nginx) that
   * RE2, the engine Envoy uses, refuses: nginx's PCRE accepts more (lookaround, backreferences). Here the path is
   * reported (InvalidPath) and not served.
   */
  regexNotRe2: 'RegexNotRe2',
  /**
   * A regex path RE2 would compile to more instructions than a user-written regex may have here
   * (re2-program-size.ts): reported (InvalidPath) and not served; nginx serves it.
   */
  regexTooLarge: 'RegexTooLarge',
  /**
   * A path for a host an older Ingress of another namespace routes: ingress-nginx merges it into that host's
   * server; here it is refused (HostOwnedByOtherNamespace), unless --allow-cross-namespace-hosts (host-ownership.ts).
   */
  hostOfOtherNamespace: 'HostOfOtherNamespace',
  /**
   * spec.defaultBackend of an Ingress without rules: ingress-nginx's catch-all server backend, for any namespace;
   * here only Ingresses of --default-backend-namespace give it (DefaultBackendNotClusterWide), unless
   * --allow-cross-namespace-hosts (tenant-default-backends.ts).
   */
  tenantCatchAllDefaultBackend: 'TenantCatchAllDefaultBackend',
  /**
   * auth-url or mirror-target naming a host that is not a Service of the Ingress's own namespace: ingress-nginx
   * calls it; here it is refused (auth-url: the paths answer 503; mirror-target: nothing is mirrored) unless the
   * controller's --allow-url-target lists it, or --nginx-allow-cross-namespace-resources for another namespace's
   * Service (url-cluster.ts).
   */
  urlTargetOutsideNamespace: 'UrlTargetOutsideNamespace',
} as const;
export type RouteChangeRule = (typeof RouteChangeRule)[keyof typeof RouteChangeRule];

export interface RouteChange {
  host: string;
  path: string;
  pathType: string;
  rule: RouteChangeRule;
  /** What differs, with an example request. */
  difference: string;
}

export interface IngressReport {
  namespace: string;
  name: string;
  annotations: AnnotationFinding[];
  routeChanges: RouteChange[];
}

export interface MigrationSummary {
  ingresses: number;
  annotations: number;
  supported: number;
  supportedWithDifference: number;
  unsupported: number;
  refused: number;
  routeChanges: number;
  /** Something would behave differently: any annotation not plainly supported, or any route change. */
  changes: boolean;
}

export interface MigrationReport {
  ingresses: IngressReport[];
  /** The ingress-nginx ConfigMap (--nginx-configmap), when one was named. */
  configMap?: ConfigMapReport;
  summary: MigrationSummary;
}

function annotationFindings(ingress: Ingress): AnnotationFinding[] {
  // What the layer reports about this Ingress's values (an unmappable value makes a supported name unsupported).
  const diagnostics: Diagnostic[] = [];
  mapNginxAnnotations(ingress, diagnostics);
  const findings: AnnotationFinding[] = [];
  for (const [key, value] of Object.entries(ingress.metadata.annotations ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const entry = nginxCatalogEntry(key);
    if (entry === undefined) continue;
    const finding: AnnotationFinding = { annotation: key.slice(nginxAnnotationPrefix.length), value, status: entry.status };
    if (entry.equivalent !== undefined) finding.equivalent = entry.equivalent;
    if (entry.note !== undefined) finding.note = entry.note;
    if (entry.differences !== undefined) finding.differences = Object.values(entry.differences);
    const problem = diagnostics.find((d) => d.message.startsWith(`annotation ${key} `));
    if (problem !== undefined && (entry.status === 'supported' || entry.status === 'supported-with-difference')) {
      finding.status = 'unsupported';
      finding.note = problem.message;
    }
    findings.push(finding);
  }
  return findings;
}

function routeChanges(ingress: Ingress, regexHosts: ReadonlySet<string>, owners: ReadonlyMap<string, HostOwner>): RouteChange[] {
  const changes: RouteChange[] = [];
  const namespace = namespaceOf(ingress.metadata);
  if (ingress.spec?.defaultBackend !== undefined && (ingress.spec.rules ?? []).length === 0) {
    changes.push({
      host: '*',
      path: '/',
      pathType: 'spec.defaultBackend',
      rule: RouteChangeRule.tenantCatchAllDefaultBackend,
      difference: `ingress-nginx answers unknown hosts with it; here only Ingresses of --default-backend-namespace give that default backend (or --allow-cross-namespace-hosts), else the 404 page`,
    });
  }
  const foreignTargets = urlTargetsOutside(ingress);
  (ingress.spec?.rules ?? []).forEach((rule, i) => {
    const host = ruleHost(rule, i, () => undefined) ?? rule.host ?? '*';
    const owner = owners.get(host);
    for (const p of rule.http?.paths ?? []) {
      const path = p.path === undefined || p.path === '' ? '/' : p.path;
      const pathType = p.pathType ?? 'ImplementationSpecific';
      for (const { annotation, target, effect } of foreignTargets) {
        changes.push({
          host,
          path,
          pathType,
          rule: RouteChangeRule.urlTargetOutsideNamespace,
          difference: `${annotation} ${target} is not a Service of namespace ${namespace}: ingress-nginx calls it; here ${effect} unless the controller's --allow-url-target lists it (or --nginx-allow-cross-namespace-resources for another namespace's Service)`,
        });
      }
      if (owner !== undefined && owner.namespace !== namespace) {
        changes.push({
          host,
          path,
          pathType,
          rule: RouteChangeRule.hostOfOtherNamespace,
          difference: `ingress-nginx merges it into the host; here it is not served: namespace ${owner.namespace} owns the host (Ingress ${owner.ingress.namespace}/${owner.ingress.name} is the oldest to route it), unless --allow-cross-namespace-hosts`,
        });
      }
      // Every path of such a host is matched here as ingress-nginx matches it, unless RE2 cannot.
      if (regexHosts.has(host)) {
        const parsed = parseRegexPath(path);
        if (!parsed.valid) {
          const rule = parsed.tooLarge === true ? RouteChangeRule.regexTooLarge : RouteChangeRule.regexNotRe2;
          changes.push({ host, path, pathType, rule, difference: `ingress-nginx serves it; here it is not served: ${parsed.error}` });
        }
      }
    }
  });
  return changes;
}

/** auth-url / mirror-target values whose host is not a Service of the Ingress's namespace (url-cluster.ts). */
function urlTargetsOutside(ingress: Ingress): { annotation: string; target: string; effect: string }[] {
  const found: { annotation: string; target: string; effect: string }[] = [];
  const namespace = namespaceOf(ingress.metadata);
  const effects: Record<string, string> = { 'auth-url': 'the paths answer 503', 'mirror-target': 'requests are not mirrored' };
  for (const [annotation, effect] of Object.entries(effects)) {
    const value = ingress.metadata.annotations?.[`${nginxAnnotationPrefix}${annotation}`];
    if (value === undefined) continue;
    let hostname: string;
    try {
      // mirror-target may end in nginx variables ($request_uri): only the host matters here.
      hostname = new URL(value.replace(/\$[a-z_]+/g, '')).hostname;
    } catch {
      continue; // unparseable values are the annotation findings' business
    }
    const service = serviceOfUrlHost(hostname);
    if (service === undefined || !service.startsWith(`${namespace}/`)) found.push({ annotation, target: value, effect });
  }
  return found;
}

/** The report for a set of Ingresses (in any order; reported sorted by namespace/name). */
export function migrationReport(ingresses: readonly Ingress[], configMap?: ConfigMapReport): MigrationReport {
  const sorted = [...ingresses].sort((a, b) => (refKey(refOf(a)) < refKey(refOf(b)) ? -1 : 1));
  // use-regex/rewrite-target is a host-wide switch in ingress-nginx, and here too (nginx-regex-hosts.ts).
  const regexHosts = nginxRegexHosts(sorted, () => true);
  // Which namespace owns each host (oldest Ingress first), as the translator decides it.
  const owners = hostOwners([...ingresses].sort(compareByAge));
  const reports = sorted.map(
    (ingress): IngressReport => ({
      namespace: namespaceOf(ingress.metadata),
      name: ingress.metadata.name,
      annotations: annotationFindings(ingress),
      routeChanges: routeChanges(ingress, regexHosts, owners),
    }),
  );
  const all = reports.flatMap((r) => r.annotations);
  const count = (status: NginxAnnotationStatus): number => all.filter((f) => f.status === status).length;
  const summary: MigrationSummary = {
    ingresses: reports.length,
    annotations: all.length,
    supported: count('supported'),
    supportedWithDifference: count('supported-with-difference'),
    unsupported: count('unsupported'),
    refused: count('refused'),
    routeChanges: reports.reduce((n, r) => n + r.routeChanges.length, 0),
    changes: false,
  };
  summary.changes = summary.annotations !== summary.supported || summary.routeChanges > 0 || configMap?.changes === true;
  return { ingresses: reports, ...(configMap === undefined ? {} : { configMap }), summary };
}

/** `1 Ingress`, `2 Ingresses`. */
function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function summaryLine(s: MigrationSummary): string {
  return (
    `${plural(s.ingresses, 'Ingress', 'Ingresses')}, ${plural(s.annotations, 'nginx annotation', 'nginx annotations')}: ${s.supported} supported, ` +
    `${s.supportedWithDifference} supported with a difference, ${s.unsupported} unsupported, ${s.refused} refused; ` +
    `${s.routeChanges === 1 ? '1 path would' : `${s.routeChanges} paths would`} match differently` +
    (s.changes ? ' -> behaviour would change' : ' -> nothing would change')
  );
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

/** Readable text: per Ingress an annotation table and the route changes, then the summary line. */
export function formatMigrationReport(report: MigrationReport): string {
  const lines: string[] = [];
  for (const ing of report.ingresses) {
    lines.push(`Ingress ${ing.namespace}/${ing.name}`);
    if (ing.annotations.length === 0) lines.push('  no nginx annotations');
    else {
      const rows = [['ANNOTATION', 'STATUS', 'EQUIVALENT / NOTE'], ...ing.annotations.map((f) => [f.annotation, f.status, [f.equivalent, f.note].filter((x) => x !== undefined).join(': ')])];
      for (const line of table(rows)) lines.push(`  ${line}`);
      for (const f of ing.annotations) for (const d of f.differences ?? []) lines.push(`  DIFFERENCE ${f.annotation}: ${d}`);
    }
    for (const c of ing.routeChanges) lines.push(`  ROUTE ${c.host} ${c.pathType} ${c.path} [${c.rule}]: ${c.difference}`);
    lines.push('');
  }
  if (report.configMap !== undefined) lines.push(...formatConfigMapReport(report.configMap), '');
  lines.push(summaryLine(report.summary));
  return `${lines.join('\n')}\n`;
}
