// The report of `envoy-ingress migrate`: per converted Ingress, per path, whether the Gateway API objects behave the
// same, else each difference (an nginx catalog annotation name, or a conversion id of conversion-differences.ts)
// with what a person must do. The JSON shape is fixed so that other tools can read it (issue 27):
// {"ingresses": [{"namespace", "name", "paths": [{"host", "path", "result", "differences": [{"id", "message",
// "action"}]}]}]}; the other fields are additions.

export interface ReportedDifference {
  id: string;
  message: string;
  action: string;
}

export interface ReportedPath {
  /** The rule's host, `*` for a rule without one. */
  host: string;
  path: string;
  pathType: string;
  result: 'same' | 'different';
  differences: ReportedDifference[];
  /** Other names the path answers (server-alias), beside the host. */
  aliases?: string[];
  /** The HTTPRoute (namespace/name) and rule index that carry it; absent when nothing does. */
  route?: string;
  rule?: number;
  /** The RoutePolicy (namespace/name) that carries the Ingress's source ranges and authentication on that route. */
  policy?: string;
}

export interface ReportedIngress {
  namespace: string;
  name: string;
  /** The Gateway (namespace/name) its routes attach to. */
  gateway: string;
  paths: ReportedPath[];
}

export interface GatewayMigrationReport {
  ingresses: ReportedIngress[];
  /** Differences for every request, not one path's (the ingress-nginx ConfigMap's settings). */
  differences?: ReportedDifference[];
  /** Objects written (kind -> count) and objects copied unchanged. */
  summary: { ingresses: number; paths: number; same: number; different: number; written: Record<string, number>; copied: number };
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

/** The printed table: one line per path, then each difference with its action, then the totals. */
export function formatGatewayMigrationReport(report: GatewayMigrationReport): string {
  const rows = [['INGRESS', 'HOST', 'PATH', 'RESULT', 'ROUTE', 'DIFFERENCES']];
  const details: string[] = [];
  for (const ingress of report.ingresses) {
    for (const p of ingress.paths) {
      rows.push([`${ingress.namespace}/${ingress.name}`, p.host, p.path, p.result, p.route === undefined ? '-' : `${p.route}#${p.rule}`, p.differences.map((d) => d.id).join(', ') || '-']);
    }
  }
  const seen = new Set<string>();
  for (const ingress of report.ingresses) {
    for (const d of ingress.paths.flatMap((p) => p.differences)) {
      const key = `${ingress.namespace}/${ingress.name} ${d.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      details.push(`${ingress.namespace}/${ingress.name} ${d.id}: ${d.message}`, `  action: ${d.action}`);
    }
  }
  for (const d of report.differences ?? []) details.push(`all requests ${d.id}: ${d.message}`, `  action: ${d.action}`);
  const s = report.summary;
  const written = Object.entries(s.written).map(([kind, n]) => `${n} ${kind}`).join(', ');
  return [
    ...table(rows),
    ...(details.length > 0 ? ['', ...details] : []),
    '',
    `${s.ingresses} Ingresses, ${s.paths} paths: ${s.same} same, ${s.different} different; wrote ${written || 'nothing'}; copied ${s.copied} other objects unchanged`,
    '',
  ].join('\n');
}
