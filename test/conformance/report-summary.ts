/**
 * Reads the upstream ConformanceReport (sigs.k8s.io/gateway-api/conformance/apis/v1) that the suite writes: its
 * shape, and a one-line-per-profile summary of it. Only reads; the report file itself is never rewritten.
 */

export interface ReportStatistics {
  Passed: number;
  Skipped: number;
  Failed: number;
}

export interface ReportStatus {
  result: 'success' | 'partial' | 'failure' | string;
  statistics: ReportStatistics;
  skippedTests?: string[];
  failedTests?: string[];
}

export interface ProfileReport {
  name: string;
  summary: string;
  core: ReportStatus;
  extended?: ReportStatus & { supportedFeatures?: string[]; unsupportedFeatures?: string[] };
}

export interface ConformanceReport {
  apiVersion: string;
  kind: string;
  date: string;
  gatewayAPIVersion: string;
  gatewayAPIChannel: string;
  mode: string;
  implementation: { organization: string; project: string; url: string; version: string; contact: string[] };
  profiles: ProfileReport[];
  succeededProvisionalTests?: string[];
}

/** What is wrong with `value` as a ConformanceReport of `gatewayApiVersion` (empty when nothing). */
export function reportProblems(value: unknown, gatewayApiVersion: string): string[] {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null) return ['not a YAML mapping'];
  const r = value as Partial<ConformanceReport>;
  if (r.apiVersion !== 'gateway.networking.k8s.io/v1') problems.push(`apiVersion ${String(r.apiVersion)}`);
  if (r.kind !== 'ConformanceReport') problems.push(`kind ${String(r.kind)}`);
  if (r.gatewayAPIVersion !== gatewayApiVersion) problems.push(`gatewayAPIVersion ${String(r.gatewayAPIVersion)}, expected ${gatewayApiVersion}`);
  if (r.gatewayAPIChannel !== 'standard' && r.gatewayAPIChannel !== 'experimental') problems.push(`gatewayAPIChannel ${String(r.gatewayAPIChannel)}`);
  if (typeof r.date !== 'string' || Number.isNaN(Date.parse(r.date))) problems.push(`date ${String(r.date)}`);
  const impl = r.implementation;
  for (const key of ['organization', 'project', 'url', 'version'] as const) {
    if (typeof impl?.[key] !== 'string' || impl[key] === '') problems.push(`implementation.${key} empty`);
  }
  if (!Array.isArray(impl?.contact) || impl.contact.length === 0) problems.push('implementation.contact empty');
  if (!Array.isArray(r.profiles) || r.profiles.length === 0) return [...problems, 'no profiles'];
  for (const p of r.profiles) {
    const statusProblems = (what: string, s: ReportStatus | undefined): void => {
      const stats = s?.statistics;
      if (!stats || ![stats.Passed, stats.Skipped, stats.Failed].every((n) => Number.isInteger(n) && n >= 0)) {
        problems.push(`${p.name} ${what}: no statistics`);
        return;
      }
      if ((s.failedTests?.length ?? 0) !== stats.Failed) problems.push(`${p.name} ${what}: ${stats.Failed} failed but ${s.failedTests?.length ?? 0} named`);
    };
    statusProblems('core', p.core);
    if (p.extended) statusProblems('extended', p.extended);
  }
  return problems;
}

/** One line per profile: core and extended passed/failed/skipped, then the failed and skipped tests' names. */
export function summarizeReport(report: ConformanceReport): string {
  const lines = [`ConformanceReport ${report.gatewayAPIVersion} (${report.gatewayAPIChannel}), ${report.implementation.version}, mode ${report.mode}`];
  const count = (s: ReportStatus | undefined): string =>
    s ? `${s.statistics.Passed} passed, ${s.statistics.Failed} failed, ${s.statistics.Skipped} skipped (${s.result})` : 'not run';
  for (const p of report.profiles) {
    lines.push(`  ${p.name}: core ${count(p.core)}; extended ${count(p.extended)}`);
    const failed = [...(p.core.failedTests ?? []), ...(p.extended?.failedTests ?? [])];
    const skipped = [...(p.core.skippedTests ?? []), ...(p.extended?.skippedTests ?? [])];
    if (failed.length) lines.push(`    failed: ${failed.join(', ')}`);
    if (skipped.length) lines.push(`    skipped: ${skipped.join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Per profile (`HTTP`, `GRPC`, `TLS`, `TCP`), core + extended tests passed as the upstream table writes them: `37 + 57`. */
export function passedCounts(report: ConformanceReport): Record<string, string> {
  const counts: Record<string, string> = {};
  for (const p of report.profiles) counts[p.name.replace(/^GATEWAY-/, '')] = `${p.core.statistics.Passed} + ${p.extended?.statistics.Passed ?? 0}`;
  return counts;
}
